// What a deep page of GET /jobs may cost, over the API: a cursor is signed (forged, altered or unsigned: 400 naming
// `cursor`, nothing read), and one caller (the IAM principal, else the source address) may start only so many deep
// pages a minute (429 with Retry-After), others unaffected. test/engine/deep-pages.test.ts has the store's side.
import { describe, expect, it } from 'vitest'
import { encodePendingCursor } from '../../src/store/pending-cursor'
import { uniquePrefix } from '../support/engine'
import { cursorAt, enqueueSpread } from '../support/pending-pages'
import { bodyOf, request, testApi } from './api-helpers'

/** An API over 3,000 jobs in 512 buckets (one shard): a position `n` jobs in, for cursors deep in the queue. */
async function deepApi(name: string) {
  const api = testApi({ SHARDS: '1', DUE_BUCKETS: '512', KEY_PREFIX: uniquePrefix(name) })
  const t = { ...api.engine, close: async () => 'OK' as const }
  const expected = await enqueueSpread(t, 3_000)
  const at = async (n: number) => {
    const id = expected[n]!
    return { walk: null, id, dueMs: Number(await t.redis.zscore(t.keys.locate(id).bucket, id)) }
  }
  return { api, t, expected, at }
}

describe('cursors of GET /jobs', () => {
  it('refuses a forged, altered or unsigned cursor with a 400 naming cursor, and starts no walk', async () => {
    // prepare: 3,000 jobs over 512 buckets; a real cursor deep in the queue
    const { api, t, expected, at } = await deepApi('signed')
    const real = await cursorAt(t.redis, t.keys, await at(2_000))
    const [text, mac] = real.split('.') as [string, string]
    const deeper = Buffer.from(Buffer.from(text, 'base64url').toString().replace(/^(\d)/, '9')).toString('base64url')
    const forged = [
      // the text altered (another position), its mac kept
      `${deeper}.${mac}`,
      // the form cursors had before they were signed
      text,
      // signed with another key
      encodePendingCursor(await at(2_000), Buffer.alloc(32, 7)),
    ]
    // act
    const answers = await Promise.all(
      forged.map((cursor) => api.call(request('GET', '/jobs', { query: { cursor, limit: '10' } }))),
    )
    const genuine = await api.call(request('GET', '/jobs', { query: { cursor: real, limit: '10' } }))
    // assess: each refused naming the field, no walk started by them; the real cursor works
    for (const answer of answers) {
      expect(answer.statusCode).toBe(400)
      expect(bodyOf(answer).error.details[0].path).toBe('cursor')
    }
    expect(genuine.statusCode).toBe(200)
    expect(bodyOf(genuine).jobs.map((j: { id: string }) => j.id)).toEqual(expected.slice(2_001, 2_011))
    expect(await t.redis.zcard(t.keys.shards[0]!.pendingWalks)).toBe(1)
    await api.close()
  })
})

describe('deep pages per caller', () => {
  it('is a 429 with Retry-After over the API, counted per source address (20 a minute)', async () => {
    // prepare
    const { api, t, at } = await deepApi('deep-rate')
    const cursors = await Promise.all(
      Array.from({ length: 21 }, async (_, k) => cursorAt(t.redis, t.keys, await at(2_000 + k * 20))),
    )
    const from = (ip: string, cursor: string) => {
      const event = request('GET', '/jobs', { query: { cursor, limit: '5' } })
      event.requestContext.http.sourceIp = ip
      return api.call(event)
    }
    // act
    const first20 = []
    for (const cursor of cursors.slice(0, 20)) first20.push(await from('192.0.2.1', cursor))
    const over = await from('192.0.2.1', cursors[20]!)
    const elsewhere = await from('192.0.2.2', cursors[20]!)
    // assess
    expect(first20.map((a) => a.statusCode)).toEqual(cursors.slice(0, 20).map(() => 200))
    expect(over.statusCode).toBe(429)
    expect(bodyOf(over).error.code).toBe('TooManyRequests')
    expect(Number(over.headers?.['retry-after'])).toBeGreaterThan(0)
    expect(elsewhere.statusCode).toBe(200)
    await api.close()
  })
})
