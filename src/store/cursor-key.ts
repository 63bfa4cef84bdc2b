// The key that signs the cursors of GET /jobs (HMAC-SHA256, src/store/pending-cursor.ts): 32 random bytes kept in
// Redis, made by the first instance that needs it (SET NX), so that every API instance of a deployment signs and
// checks with the same one, without a setting to manage. A cursor is a position in Redis's data that a caller could
// otherwise forge: deep positions in walks of its choosing, each costing Redis a copy of an index and thousands of
// reads. Deleting the key (`<prefix>{0}:cursor-key`) makes every cursor given so far a 400; instances read it again
// when a cursor does not match the key they hold.
import { randomBytes } from 'node:crypto'
import type { Keyspace } from './keys'
import type { RedisClient } from './scripts'

const held = new WeakMap<RedisClient, Map<string, Promise<Buffer>>>()

async function readKey(redis: RedisClient, keys: Keyspace): Promise<Buffer> {
  // Refused at maxmemory: the key is almost always there already, and GET tells.
  await redis.set(keys.cursorKey, randomBytes(32).toString('base64'), 'NX').catch(() => null)
  const key = await redis.get(keys.cursorKey)
  if (!key) throw new Error('the cursor key vanished as it was made')
  return Buffer.from(key, 'base64')
}

/** The deployment's cursor key; `fresh`: read it again from Redis (a cursor did not match the one held). */
export function cursorKeyOf(redis: RedisClient, keys: Keyspace, fresh = false): Promise<Buffer> {
  const byKey = held.get(redis) ?? new Map<string, Promise<Buffer>>()
  held.set(redis, byKey)
  let key = byKey.get(keys.cursorKey)
  if (!key || fresh) {
    key = readKey(redis, keys)
    // A failed read is not kept: the next page tries again.
    key.catch(() => byKey.delete(keys.cursorKey))
    byKey.set(keys.cursorKey, key)
  }
  return key
}
