// Helpers of the pending-page scenarios (test/engine/pending-page.test.ts, pending-walk.test.ts): jobs spread over
// due times, pages of readPendingPage itself, and clients that count or interleave what a page reads.
import { cursorKeyOf } from '../../src/store/cursor-key'
import type { Keyspace } from '../../src/store/keys'
import { encodePendingCursor, type PendingCursor } from '../../src/store/pending-cursor'
import { readPendingPage } from '../../src/store/pending-page'
import type { WalkLimits } from '../../src/store/pending-walk'
import type { ScriptedClient } from '../../src/store/scripts'
import type { testStore } from './engine'

/** Jobs r-<n> at random due times within 100 s of an hour from now, and the ids in due order. */
export async function enqueueSpread(t: ReturnType<typeof testStore>, count: number, base = Date.now() + 3_600_000) {
  const jobs = Array.from({ length: count }, (_, i) => ({
    id: `r-${i}`,
    atMs: base + Math.floor(Math.random() * 100_000),
  }))
  for (let i = 0; i < jobs.length; i += 500) {
    const batch = jobs.slice(i, i + 500).map((j) => ({
      id: j.id,
      queue: 'orders',
      payloadJson: '{}',
      due: { atMs: j.atMs },
    }))
    for (const r of await t.store.enqueueMany(batch)) if (r instanceof Error) throw r
  }
  return [...jobs].sort((a, b) => a.atMs - b.atMs || (a.id < b.id ? -1 : 1)).map((j) => j.id)
}

/**
 * Pages of readPendingPage itself (`shallow`: how many buckets behind the cursor it reads the index as is), without
 * the rate of deep pages (these scenarios start many walks from one caller; test/engine/deep-pages.test.ts has it).
 */
export function pager(redis: ScriptedClient, keys: Keyspace, limit: number, shallow?: number, limits: WalkLimits = {}) {
  return (cursor: string | null) =>
    readPendingPage(redis, keys, { limit, cursor }, { shallowBuckets: shallow, deepPagesPerWindow: 1e6, ...limits })
}

/** The ids of every page from `cursor` on, to the end (at most 1,000 pages). */
export async function idsToEnd(page: ReturnType<typeof pager>, cursor: string | null): Promise<string[]> {
  const ids: string[] = []
  for (let n = 0; cursor && n < 1_000; n++) {
    const next = await page(cursor)
    ids.push(...next.jobs.map((j) => j.id))
    cursor = next.cursor
  }
  return ids
}

/** A cursor at `at`, signed as the store signs them: a position no page gave (forged by a test, not by a caller). */
export async function cursorAt(redis: ScriptedClient, keys: Keyspace, at: PendingCursor): Promise<string> {
  return encodePendingCursor(at, await cursorKeyOf(redis, keys))
}

/** The walk a cursor belongs to (its name in Redis). */
export function walkOf(cursor: string): string {
  return /^w([^:]+):/.exec(Buffer.from(cursor, 'base64url').toString())![1]!
}

/**
 * The client as a page sees it, that lets `during` run (other pages) just before the page's first read of a walk's
 * frontier: what happens to a page whose frontier others change while it reads.
 */
export function interleaved(redis: ScriptedClient, during: () => Promise<void>): ScriptedClient {
  let fired = false
  return new Proxy(redis, {
    get(t, prop) {
      const value = Reflect.get(t, prop, t)
      if (prop === 'zrange')
        return async (...args: unknown[]) => {
          if (!fired && /:walk:/.test(String(args[0]))) {
            fired = true
            await during()
          }
          return (value as (...a: unknown[]) => unknown).apply(t, args)
        }
      return typeof value === 'function' ? value.bind(t) : value
    },
  }) as ScriptedClient
}

/**
 * The client as readPendingPage sees it, counting the due buckets it reads (ZRANGE on a bucket, alone or in a
 * pipeline; `buckets`: which, to clear between pages): a page's work in Redis, whatever the machine's speed; and the
 * arguments of each walk-advance call.
 */
export function countingBucketReads(redis: ScriptedClient) {
  const counter = { reads: 0, advanceArgs: [] as number[], buckets: new Set<string>() }
  const count = (key: unknown) => {
    if (!/:due:/.test(String(key))) return
    counter.reads++
    counter.buckets.add(String(key))
  }
  const wrap = <T extends object>(target: T, onPipeline: boolean): T => {
    const wrapped: T = new Proxy(target, {
      get(t, prop) {
        const value = Reflect.get(t, prop, t)
        if (prop === 'zrange')
          return (...args: unknown[]) => {
            count(args[0])
            const reply = (value as (...a: unknown[]) => unknown).apply(t, args)
            return onPipeline ? wrapped : reply
          }
        if (prop === 'sdqWalkAdvance' && !onPipeline)
          return (...args: unknown[]) => {
            counter.advanceArgs.push(args.length)
            return (value as (...a: unknown[]) => unknown).apply(t, args)
          }
        if (prop === 'pipeline' && !onPipeline) return () => wrap((value as () => object).call(t), true)
        return typeof value === 'function' ? value.bind(t) : value
      },
    })
    return wrapped
  }
  return { client: wrap(redis, false), counter }
}
