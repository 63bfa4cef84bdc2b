// Runs one scanner exactly as the scan function builds it (createEngine + createSqsClient + createScanner, shipped
// defaults: wake-signal subscription on, 1 s poll interval, claims of 250, 16 sends in flight), enqueues a scenario's
// jobs while it runs, and records each job's lateness as the scanner's onSent callback reports it:
//   lateness = (local time SendMessageBatch returned, converted to Redis's clock) - the job's due time (Redis clock).
// That is "time SQS accepted the message - due time", measured at the sender, per job.
import { sleep } from '../devkit/sleep'
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs'
import { createScanner } from '../src/scan/create-scanner'
import type { JobStore } from '../src/store/job-store'
import type { BenchEnv } from './env'
import { scanParts } from './scanning'

export interface ScanRun {
  /** ms, one per job SQS accepted. */
  lateness: number[]
  /** Messages the queue holds at the end (GetQueueAttributes): proves they are in SQS, not just reported. */
  inQueue: number
  claims: number
  errors: number
}

export async function runScanner(
  env: BenchEnv,
  name: string,
  enqueue: (store: JobStore) => Promise<number>,
  timeoutMs: number,
): Promise<ScanRun> {
  const { queue, engine, sqs } = await scanParts(env, name)
  const lateness: number[] = []
  const logs: unknown[] = []
  const keep = (msg: string, ...extra: Record<string, unknown>[]) =>
    void logs.push({ msg, ...Object.assign({}, ...extra) })
  const { scanner, close } = createScanner(engine, sqs, {
    onSent: (_job, _at, late) => void lateness.push(late),
    logger: { info: keep, warn: keep, error: keep },
  })
  const run = scanner.run(Date.now() + timeoutMs + 60_000)
  try {
    await sleep(500) // subscribed, first claim done, asleep: the state a Lambda spends most of its time in
    const expected = await enqueue(engine.store)
    const deadline = Date.now() + timeoutMs
    while (lateness.length < expected && Date.now() < deadline) await sleep(20)
  } finally {
    scanner.stop()
  }
  const report = await run
  await close()
  const attrs = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: queue.url, AttributeNames: ['ApproximateNumberOfMessages'] }),
  )
  sqs.destroy()
  await engine.close()
  await queue.remove()
  if (logs.length) console.error(`  ${name}: scanner logged`, logs.slice(0, 3))
  return {
    lateness,
    inQueue: Number(attrs.Attributes?.ApproximateNumberOfMessages ?? 0),
    claims: report.claims,
    errors: report.errors,
  }
}
