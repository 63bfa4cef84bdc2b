// What the HTTP forwarder's calls got, kept beside the job's dispatch receipt and shown with it (GET /jobs/{id}):
// the last answer's status and a bounded excerpt of its body, how many calls were made, and how it ended. One small
// JSON string per job of an HTTP target queue, written after every call (the last one wins), expiring with the
// receipt retention: the receipt itself stays the compact record the ack writes (src/store/receipt.ts).
import type { Keyspace } from './keys'
import type { RedisClient } from './scripts'
import type { DeliveryRecord } from '../contract/job'

export type { DeliveryRecord }

/** As kept: also which dispatch of the id it is about (its runAt and createdAt), not shown in the job's lookup. */
export interface KeptDelivery extends DeliveryRecord {
  of?: string
}

export async function recordDelivery(
  redis: RedisClient,
  keys: Keyspace,
  id: string,
  record: KeptDelivery,
  ttlMs: number,
): Promise<void> {
  await redis.set(keys.locate(id).shard.delivery(id), JSON.stringify(record), 'PX', Math.max(1, ttlMs))
}

export async function readDelivery(
  redis: RedisClient,
  keys: Keyspace,
  id: string,
): Promise<DeliveryRecord | undefined> {
  const kept = await readKeptDelivery(redis, keys, id)
  if (!kept) return undefined
  const { of: _, ...shown } = kept
  return shown
}

export async function readKeptDelivery(
  redis: RedisClient,
  keys: Keyspace,
  id: string,
): Promise<KeptDelivery | undefined> {
  const text = await redis.get(keys.locate(id).shard.delivery(id))
  return text ? (JSON.parse(text) as KeptDelivery) : undefined
}
