// A one-shard scanner with a dispatch window, recording the entries of each SendMessageBatch it makes (the warm-up,
// which carries none, left out) and each job's lateness: what the dispatch-window tests look at.
import type { SQSClient } from '@aws-sdk/client-sqs'
import { testStore } from './engine'
import { testScanner } from './scanner'
import { createQueue } from './sqs'
import { batchEntries } from '../../src/sqs/prebuilt-body'

export async function windowStage(
  sqs: SQSClient,
  queueName: string,
  o: { dispatchWindowMs?: number; pollIntervalMs?: number; otherQueues?: string[]; buckets?: number },
) {
  const t = testStore({ shards: 1, buckets: o.buckets })
  const q = await createQueue(sqs, queueName)
  // Further target queues, by name (their own queue each): jobs for several queues share a shard, not a request.
  const others: Record<string, string> = {}
  for (const name of o.otherQueues ?? []) others[name] = (await createQueue(sqs, `${queueName}-${name}`)).url
  const late = new Map<string, number>()
  const s = testScanner(t, {
    queues: { orders: q.url, ...others },
    pollIntervalMs: o.pollIntervalMs ?? 30_000,
    leaseMs: 30_000,
    dispatchWindowMs: o.dispatchWindowMs,
    onSent: (j, _at, lateMs) => late.set(j.id, lateMs),
  })
  const sends: number[] = []
  s.sqs.middlewareStack.add((next) => async (args) => {
    const entries = batchEntries(args.input as object).length
    if (entries > 0) sends.push(entries)
    return next(args)
  })
  return {
    t,
    q,
    others,
    s,
    sends,
    late,
    async close() {
      await s.close()
      await t.close()
    },
  }
}
