// A one-shard scanner with a dispatch window, recording the entries of each SendMessageBatch it makes (the warm-up,
// which carries none, left out) and each job's lateness: what the dispatch-window tests look at.
import { sleep } from '../../devkit/sleep'
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
    /**
     * Starts the scan (until `timeoutMs` from now) and resolves once its first claim has answered: the scan is up,
     * subscribed to its wake signals, its clock sampled, asleep. Jobs enqueued after this wake it, so their lead counts
     * from a running scan: counted from before its start, which took over a second on a loaded machine, the scan
     * found the first jobs due and sent them at once, as it must ([5, 10, 10] for [10, 10, 5]).
     */
    async startScan(timeoutMs: number) {
      let answered = false
      const claim = s.leases.claim.bind(s.leases)
      s.leases.claim = (...args) => claim(...args).finally(() => (answered = true))
      let finished = false
      const run = s.scanner.run(Date.now() + timeoutMs).finally(() => (finished = true))
      while (!answered && !finished) await sleep(5)
      return {
        /** Lets the scan run until `done()` holds (checked every 25 ms) or its deadline, then stops it: its report. */
        async until(done: () => Promise<boolean> | boolean) {
          while (!finished && !(await done())) await sleep(25)
          s.scanner.stop()
          return run
        },
      }
    },
    async close() {
      await s.close()
      await t.close()
    },
  }
}
