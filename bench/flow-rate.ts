// `npm run bench:flow-rate [-- --quick] [--cluster]`: a flow key limited to 500 jobs/s (burst 50) with 10,000 of its
// jobs due at once, drained by 4 scan workers side by side, while a stream of other jobs (no flow key, 200/s) falls
// due over the same time; before that, the same stream alone on the same scanners (what the machine and topology give
// it without any limited key). From the scanners' onSent:
//   - the limited key's rate where SQS accepted its jobs: jobs after the first burst / time from the first accepted to
//     the last (target 500/s ± 5 %), and its busiest 1 s window there;
//   - how far its sends ever went over what docs/flow-control.md promises, burst + rate x (span + 100 ms), where the
//     sends started (their SendMessageBatch request; where SQS accepted them, the requests' own times add to the span);
//   - the other jobs' lateness (SQS acceptance - due time): p50 / p99 / max (target p99 <= 10 ms).
// The 4 workers are 4 scanners, each with its own Redis and SQS connections, in this one process (one event loop): the
// bucket they share is in Redis, as it is for scan workers in 4 Lambdas. On one redis-server (SHARDS 1, the shipped
// default) and with `--cluster` on a local 3-master Redis Cluster (SHARDS=12). `--quick`: 2,000 limited jobs.
import { sleep } from '../devkit/sleep'
import { CreateQueueCommand, DeleteQueueCommand, SQSClient } from '@aws-sdk/client-sqs'
import { startRedisCluster } from '../local/redis-cluster'
import { startRedis } from '../local/redis-server'
import { localCredentials, startSqsProcess } from '../local/sqs-endpoint'
import { loadConfig } from '../src/config'
import { TOKEN_FRESH_MS } from '../src/flow/flow-gate'
import { setFlowRate } from '../src/flow/flow-settings'
import { createScanner } from '../src/scan/create-scanner'
import { createSqsClient } from '../src/sqs/sqs-client'
import { createEngine } from '../src/store/engine'
import type { NewJob } from '../src/store/job-store'
import { jobId, PAYLOAD_JSON } from './data'
import { runMain } from './main'
import { inFlight, percentiles } from '../devkit/stats'
import { printTable } from './table'

const quick = process.argv.includes('--quick')
const CLUSTER = process.argv.includes('--cluster')
const LIMITED = quick ? 2_000 : 10_000
const RATE = 500
const BURST = 50
const WORKERS = 4
const OTHER_RATE = 200
/** The other jobs fall due over as long as the limited key takes to drain. */
const SPAN_MS = Math.ceil((LIMITED / RATE) * 1000)

/** Redis for the run: one redis-server, or the 3-master Cluster; its settings for the engine, and its teardown. */
async function startTarget() {
  if (!CLUSTER) {
    const redis = await startRedis()
    return { label: 'one redis-server', vars: { REDIS_URL: redis.url }, stop: () => redis.stop() }
  }
  const cluster = await startRedisCluster({ masters: 3 })
  return {
    label: '3-master Cluster, SHARDS=12',
    vars: { REDIS_CLUSTER_NODES: cluster.addresses.join(','), SHARDS: '12' },
    stop: () => cluster.stop(),
  }
}

/**
 * How far the busiest span of `times` goes over burst + rate x (span + slackMs) (jobs; <= 0: kept). O(n) per start.
 */
function excessOverRate(times: readonly number[], rate: number, burst: number, slackMs = 0): number {
  let worst = Number.NEGATIVE_INFINITY
  for (let i = 0, j = 0; i < times.length; i++) {
    // Only spans up to 2 s: a longer one that breaks the promise holds a shorter one that does.
    while (j + 1 < times.length && times[j + 1]! - times[i]! <= 2_000) j++
    for (let k = i; k <= j; k++)
      worst = Math.max(worst, k - i + 1 - (burst + (rate * (times[k]! - times[i]! + slackMs)) / 1000))
  }
  return worst
}

async function main() {
  const target = await startTarget()
  const sqsServer = await startSqsProcess()
  const control = new SQSClient({ endpoint: sqsServer.endpoint, region: 'us-east-1', credentials: localCredentials })
  try {
    const { QueueUrl } = await control.send(
      new CreateQueueCommand({ QueueName: 'flow-rate', Attributes: { VisibilityTimeout: '600' } }),
    )
    const config = loadConfig({ ...target.vars, SQS_ENDPOINT: sqsServer.endpoint, QUEUES: `bench=${QueueUrl}` })
    const engines = Array.from({ length: WORKERS }, () => createEngine(config))
    await setFlowRate(engines[0]!.redis, engines[0]!.keys, { flowKey: 'limited' }, { rate: RATE, burst: BURST })
    // What onSent reports goes to the current phase.
    let phase = { limitedAt: [] as number[], limitedSentAt: [] as number[], otherLate: [] as number[] }
    const scanners = engines.map((engine) => {
      const sqs = createSqsClient(config)
      const s = createScanner(engine, sqs, {
        onSent: (job, acceptedAtMs, lateMs, sentAtMs) => {
          if (job.flowKey !== 'limited') return void phase.otherLate.push(lateMs)
          phase.limitedAt.push(acceptedAtMs)
          phase.limitedSentAt.push(sentAtMs)
        },
      })
      return { ...s, sqs, run: s.scanner.run(Date.now() + 2 * SPAN_MS + 240_000) }
    })
    await sleep(500) // every worker subscribed, claimed once, asleep
    const job = (id: string, atMs: number, flowKey?: string): NewJob => ({
      id,
      queue: 'bench',
      payloadJson: PAYLOAD_JSON,
      due: { atMs },
      ...(flowKey ? { flowKey } : {}),
    })
    const others = Math.floor((SPAN_MS / 1000) * OTHER_RATE)
    /** The other jobs' stream over SPAN_MS, with `limited` jobs of the key due at its start; until all are sent. */
    const runPhase = async (name: string, limited: number) => {
      phase = { limitedAt: [], limitedSentAt: [], otherLate: [] }
      const due = Date.now() + 4_000
      const all = [
        ...Array.from({ length: limited }, (_, i) => job(jobId(`${name}-lim`, i), due, 'limited')),
        ...Array.from({ length: others }, (_, i) =>
          job(jobId(`${name}-oth`, i), due + Math.floor((i * 1000) / OTHER_RATE)),
        ),
      ]
      await inFlight(Math.ceil(all.length / 100), 8, async (b) => {
        for (const r of await engines[0]!.store.enqueueMany(all.slice(b * 100, b * 100 + 100)))
          if (r instanceof Error) throw r
      })
      if (Date.now() >= due) console.error('  enqueue finished after the jobs were due')
      const deadline = due + SPAN_MS * 2 + 30_000
      while ((phase.limitedAt.length < limited || phase.otherLate.length < others) && Date.now() < deadline)
        await sleep(50)
      return phase
    }
    // The same stream alone first, on the same scanners: what this machine and topology give the other jobs without
    // any limited key, beside which the burst's row is read.
    const alone = await runPhase('alone', 0)
    const { limitedAt, limitedSentAt, otherLate } = await runPhase('burst', LIMITED)
    for (const s of scanners) s.scanner.stop()
    await Promise.all(scanners.map((s) => s.run))
    for (const s of scanners) {
      await s.close()
      s.sqs.destroy()
    }
    await Promise.all(engines.map((e) => e.close()))

    limitedAt.sort((a, b) => a - b)
    limitedSentAt.sort((a, b) => a - b)
    const excess = excessOverRate(limitedSentAt, RATE, BURST, TOKEN_FRESH_MS)
    const spanS = (limitedAt.at(-1)! - limitedAt[0]!) / 1000
    const rate = (limitedAt.length - BURST) / spanS
    let busiest = 0
    for (let i = 0, j = 0; i < limitedAt.length; i++) {
      while (limitedAt[j]! - limitedAt[i]! < 1_000 && j < limitedAt.length) j++
      busiest = Math.max(busiest, j - i)
    }
    const late = percentiles(otherLate)
    const baseline = percentiles(alone.otherLate)
    console.log(`flow rate: ${target.label}, ${WORKERS} scan workers, ${LIMITED} jobs of one key limited to ${RATE}/s`)
    console.log(
      printTable([
        {
          measure: `limited key: rate at SQS accept (${limitedAt.length} sent)`,
          value: `${rate.toFixed(1)}/s`,
          target: `${RATE}/s ± 5 %`,
          met: Math.abs(rate - RATE) <= RATE * 0.05 && limitedAt.length === LIMITED,
        },
        {
          measure: 'limited key: busiest 1 s window at SQS accept',
          value: String(busiest),
          target: `<= ${RATE + BURST + (RATE * TOKEN_FRESH_MS) / 1000} (burst + rate x ${1 + TOKEN_FRESH_MS / 1000} s)`,
          met: busiest <= RATE + BURST + (RATE * TOKEN_FRESH_MS) / 1000,
        },
        {
          measure: `limited key: most sends over burst + rate x (span + ${TOKEN_FRESH_MS} ms), at send start`,
          value: excess.toFixed(1),
          target: '<= 0',
          met: excess <= 0,
        },
        {
          measure: `other jobs (${otherLate.length} at ${OTHER_RATE}/s): lateness p50 / p99 / max`,
          value: `${late.p50.toFixed(1)} / ${late.p99.toFixed(1)} / ${late.max.toFixed(0)} ms`,
          target: 'p99 <= 10 ms',
          met: late.p99 <= 10 && otherLate.length === others,
        },
        {
          measure: `the same other jobs without the limited key (${alone.otherLate.length}): p50 / p99 / max`,
          value: `${baseline.p50.toFixed(1)} / ${baseline.p99.toFixed(1)} / ${baseline.max.toFixed(0)} ms`,
          target: 'the p99 the machine gives',
          met: alone.otherLate.length === others,
          note: `burst's p99 / this p99: ${(late.p99 / Math.max(baseline.p99, 1)).toFixed(1)}x`,
        },
      ]),
    )
    await control.send(new DeleteQueueCommand({ QueueUrl }))
  } finally {
    control.destroy()
    await sqsServer.stop()
    await target.stop()
  }
}

runMain(main)
