// One chaos run: starts the parts (test/chaos/stage.ts), runs client lanes, consumers and the nemesis for the given
// time, then lets the faults heal, the writes stop and the queue drain, and hands the recorded history to the
// checker. Everything started is stopped at the end, also on a failure or an abort (Ctrl-C in the CLI).
import { sleep } from '../../devkit/sleep'
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs'
import { check, type Verdict } from './checker'
import { earliestDue } from './check-jobs'
import { startConsumers } from './consumers'
import { flowLane } from './flow-lanes'
import type { FlowOp, History, Op } from './history'
import { apiClient, jobLane } from './job-lanes'
import { fifoLane } from './fifo-lanes'
import { startNemesis } from './nemesis'
import { seeded } from './random'
import { Recorder } from './recorder'
import { scheduleLane } from './schedule-lanes'
import { scheduleTagLane } from './schedule-tag-lanes'
import { debounceLane, tagLane } from './tag-lanes'
import { CHAOS_SETTINGS, startStage } from './stage'

export interface ChaosOptions {
  durationMs: number
  seed: number
  jobLanes?: number
  scheduleLanes?: number
  fifoLanes?: number
  /** Lanes of flow control: a rate-limited key, and a key paused and resumed (test/chaos/flow-lanes.ts). */
  flowLanes?: number
  /** Lanes that cancel by tag (test/chaos/tag-lanes.ts). */
  tagLanes?: number
  /** Lanes that write one id again and again with onConflict debounce. */
  debounceLanes?: number
  /** Lanes of tagged recurring schedules deleted by tag (test/chaos/schedule-tag-lanes.ts). */
  scheduleTagLanes?: number
  /** A 3-master Redis Cluster with a replica each, instead of a primary with 2 replicas and Sentinel. */
  cluster?: boolean
  scanners?: number
  log?: (line: string) => void
  signal?: AbortSignal
}

export interface ChaosResult {
  history: History
  verdict: Verdict
}
/** Due-time checks allow this much between Redis's clock, the runner's and SQS's (all the same machine's). */
export const TOLERANCE_MS = 10

export async function runChaos(o: ChaosOptions): Promise<ChaosResult> {
  const log = o.log ?? (() => undefined)
  const scannerCount = o.scanners ?? 3
  const started = Date.now()
  const stage = await startStage(scannerCount, o.durationMs + 10 * 60_000, o.cluster)
  const redis = o.cluster ? 'a Redis Cluster of 3 masters with a replica each' : 'primary + 2 replicas + 3 sentinels'
  log(`parts up in ${Date.now() - started} ms: ${redis}, SQS, API, ${scannerCount} scanners`)
  const consumers = startConsumers(stage.sqsClient, [stage.queueUrl, stage.fifoQueueUrl], 2)
  try {
    const startedAt = Date.now()
    const endAt = startedAt + o.durationMs
    const running = () => Date.now() < endAt && !o.signal?.aborted
    const random = seeded(o.seed)
    const ops: Op[] = []
    const flow: FlowOp[] = []
    /** Each lane its own client, so that an operation's HTTP attempts can be counted. */
    const lane = (n: number) => {
      let requests = 0
      const client = apiClient(stage.api.url, () => requests++)
      return { client, recorder: new Recorder(ops, () => requests), random: seeded(o.seed * 31 + n), running }
    }
    const jobLanes = o.jobLanes ?? 6
    const scheduleLanes = o.scheduleLanes ?? 2
    const fifoLanes = o.fifoLanes ?? 2
    const lanes = [
      ...Array.from({ length: jobLanes }, (_, i) => jobLane(`j${i}`, lane(i))),
      ...Array.from({ length: scheduleLanes }, (_, i) => scheduleLane(`s${i}`, lane(jobLanes + i))),
      ...Array.from({ length: fifoLanes }, (_, i) => fifoLane(`f${i}`, lane(jobLanes + scheduleLanes + i))),
      // One lane at most: its operator pauses and resumes one key, and rates another.
      ...(o.flowLanes === 0 ? [] : [flowLane('r0', lane(jobLanes + scheduleLanes + fifoLanes), flow)]),
      // Numbered after the others: the lanes above draw what they drew before these existed.
      ...Array.from({ length: o.tagLanes ?? 1 }, (_, i) =>
        tagLane(`g${i}`, lane(jobLanes + scheduleLanes + fifoLanes + 20 + i)),
      ),
      ...Array.from({ length: o.debounceLanes ?? 1 }, (_, i) =>
        debounceLane(`d${i}`, lane(jobLanes + scheduleLanes + fifoLanes + 30 + i)),
      ),
      ...Array.from({ length: o.scheduleTagLanes ?? 1 }, (_, i) =>
        scheduleTagLane(`p${i}`, lane(jobLanes + scheduleLanes + fifoLanes + 40 + i)),
      ),
    ]
    const leaseMs = Number(CHAOS_SETTINGS.LEASE_MS)
    const nemesis = startNemesis({ stage, random, leaseMs }, running, log)
    await Promise.all([...lanes, nemesis.done])
    const quietAt = Date.now()
    log(
      `quiet after ${Math.round((quietAt - startedAt) / 1000)} s: ${ops.length} operations, ${nemesis.faults.length} faults`,
    )
    if (o.signal?.aborted) throw new Error('aborted')
    await drain(stage, ops, consumers, log)
    const endedAt = Date.now()
    await consumers.stop()
    const history: History = {
      seed: o.seed,
      startedAt,
      quietAt,
      endedAt,
      settings: {
        claimBatchSize: Number(CHAOS_SETTINGS.CLAIM_BATCH_SIZE),
        maxInFlight: Number(CHAOS_SETTINGS.MAX_IN_FLIGHT),
        leaseMs,
        scanners: scannerCount,
        toleranceMs: TOLERANCE_MS,
      },
      ops: ops,
      deliveries: consumers.deliveries,
      faults: nemesis.faults.sort((a, b) => a.start - b.start),
      environment: [...stage.environment],
      sendStarts: [...stage.sendStarts],
      flow,
    }
    return { history, verdict: check(history) }
  } finally {
    await consumers.stop()
    await stage.close()
  }
}

/** Waits until every write is due, Redis holds nothing pending or in flight, both queues are empty (the consumers
 * have received and deleted every message: on a loaded machine they can go quiet for seconds with messages left) and
 * no delivery came for 3 s (at most 90 s after the last due time: what is still missing then is the checker's to
 * report). */
async function drain(
  stage: Awaited<ReturnType<typeof startStage>>,
  ops: Op[],
  consumers: ReturnType<typeof startConsumers>,
  log: (line: string) => void,
) {
  const lastDue = Math.max(Date.now(), ...ops.map(earliestDue))
  while (Date.now() < lastDue + 1_000) await sleep(200)
  const deadline = Date.now() + 90_000
  for (;;) {
    const stats = await stage.monitor.store.stats().catch(() => undefined)
    const left = stats ? Object.values(stats.queues).reduce((n, q) => n + q.pending, 0) + stats.inflight : -1
    const inSqs = left === 0 ? await messagesLeft(stage) : -1
    if (left === 0 && inSqs === 0 && Date.now() - consumers.lastAt() > 3_000) return
    if (Date.now() > deadline) {
      log(
        `drain: gave up waiting with ${left} job(s) still in Redis (dead: ${stats?.dead ?? '?'}), ${inSqs} message(s) in SQS`,
      )
      return
    }
    await sleep(500)
  }
}

/** Messages in the two target queues, received or not (-1 when SQS does not answer). */
async function messagesLeft(stage: Awaited<ReturnType<typeof startStage>>): Promise<number> {
  let n = 0
  for (const QueueUrl of [stage.queueUrl, stage.fifoQueueUrl]) {
    const answer = await stage.sqsClient
      .send(
        new GetQueueAttributesCommand({
          QueueUrl,
          AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
        }),
      )
      .catch(() => undefined)
    if (!answer?.Attributes) return -1
    n += Number(answer.Attributes.ApproximateNumberOfMessages ?? 0)
    n += Number(answer.Attributes.ApproximateNumberOfMessagesNotVisible ?? 0)
  }
  return n
}
