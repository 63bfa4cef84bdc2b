// The key layout (shard count, due buckets) is part of the data: a job's shard and bucket come from its id and these
// two numbers. Deploying other numbers over existing jobs would strand them (fewer shards: never scanned) or hide
// them (lookups by id in the wrong place). So the first engine records the layout in Redis, and every later one
// checks it: a mismatch fails fast with a ConfigError, unless the recorded layout holds no jobs at all.
import { ConfigError } from '../errors'
import { Keyspace } from './keys'
import type { RedisClient } from './scripts'

const verified = new WeakMap<object, Map<string, Promise<void>>>()

/** Resolves once this client has checked this layout; a Redis error is not remembered (the next call retries). */
export function verifyLayout(redis: RedisClient, keys: Keyspace): Promise<void> {
  const byLayout = verified.get(redis) ?? new Map<string, Promise<void>>()
  verified.set(redis, byLayout)
  const id = `${keys.layoutKey} ${keys.layout}`
  let check = byLayout.get(id)
  if (!check) {
    check = checkLayout(redis, keys)
    byLayout.set(id, check)
    check.catch((e) => {
      if (!(e instanceof ConfigError)) byLayout.delete(id)
    })
  }
  return check
}

async function checkLayout(redis: RedisClient, keys: Keyspace): Promise<void> {
  if ((await redis.set(keys.layoutKey, keys.layout, 'NX')) === 'OK') return
  const stored = await redis.get(keys.layoutKey)
  if (stored === keys.layout) return
  const old = parseLayout(stored)
  if (old) {
    const previous = new Keyspace({ prefix: keys.options.prefix, ...old })
    // Schedules count too: a paused one has no pending job, and would be stranded just the same.
    const counts = await Promise.all(previous.shards.flatMap((s) => [redis.hlen(s.jobs), redis.hlen(s.schedules)]))
    if (counts.every((n) => n === 0)) {
      await redis.set(keys.layoutKey, keys.layout)
      return
    }
  }
  const setting = old && old.shards !== keys.options.shards ? 'SHARDS' : 'DUE_BUCKETS'
  throw new ConfigError(
    setting,
    `the jobs under KEY_PREFIX "${keys.options.prefix}" are laid out as ${stored}, and this deployment says ` +
      `${keys.layout}: they would become unreachable. Keep the old values, or deploy the new ones under a new ` +
      `KEY_PREFIX and let the old deployment drain (docs/cluster.md, "Changing SHARDS or DUE_BUCKETS")`,
  )
}

function parseLayout(value: string | null): { shards: number; buckets: number } | null {
  const m = /^shards=(\d+);buckets=(\d+)$/.exec(value ?? '')
  return m ? { shards: Number(m[1]), buckets: Number(m[2]) } : null
}
