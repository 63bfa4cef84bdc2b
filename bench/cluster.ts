// `npm run bench:cluster`: the queue on a local 3-master Redis Cluster (local/redis-cluster.ts) with fauxqs in its own
// process. Measures what sizing a cluster needs:
//   - bytes per pending job at 1,000,000 jobs (200-byte payload, 20-char ids), used_memory summed over the masters,
//     and at 250,000 jobs with 1 KiB payloads; jobs per GB from those;
//   - backlog drain (jobs/s into SQS) for 1 scanner over 1 and 3 shards, 2 scanners over 3 and 12 shards.
// Every process shares this machine's 2 cores, and the "2 scanners" of a row run in this one process (one event loop):
// the drain figures compare layouts with each other, not with AWS, where each scan Lambda has its own CPU.
import { sleep } from '../devkit/sleep'
import { GetQueueAttributesCommand, CreateQueueCommand, SQSClient } from '@aws-sdk/client-sqs'
import type { Redis } from 'ioredis'
import { loadConfig, type Config } from '../src/config'
import { createEngine, type Engine } from '../src/store/engine'
import { createScanner } from '../src/scan/create-scanner'
import { createSqsClient } from '../src/sqs/sqs-client'
import type { NewJob } from '../src/store/job-store'
import { startRedisCluster, type LocalRedisCluster } from '../local/redis-cluster'
import { localCredentials, startSqsProcess } from '../local/sqs-endpoint'
import { jobId, PAYLOAD_JSON, TARGET } from './data'
import { runMain } from './main'
import { inFlight, median } from '../devkit/stats'
import { fmt, printTable, type Row } from './table'

const quick = process.argv.includes('--quick')
const MEMORY_JOBS = quick ? 200_000 : 1_000_000
const KIB_JOBS = quick ? 50_000 : 250_000
const DRAIN_JOBS = quick ? 10_000 : 30_000
const REPS = quick ? 1 : 3

async function main() {
  const cluster = await startRedisCluster({ masters: 3 })
  const sqs = await startSqsProcess()
  const control = new SQSClient({ endpoint: sqs.endpoint, region: 'us-east-1', credentials: localCredentials })
  const admins = cluster.nodes.map((n) => cluster.connect(n))
  let queueSeq = 0
  const newQueue = async () => {
    const { QueueUrl } = await control.send(
      new CreateQueueCommand({ QueueName: `cluster-${++queueSeq}`, Attributes: { VisibilityTimeout: '600' } }),
    )
    return QueueUrl!
  }
  const config = (queueUrl: string, env: Record<string, string> = {}): Config =>
    loadConfig({
      REDIS_CLUSTER_NODES: cluster.addresses.join(','),
      SQS_ENDPOINT: sqs.endpoint,
      QUEUES: `${TARGET}=${queueUrl}`,
      KEY_PREFIX: `c${queueSeq}`,
      ...env,
    })
  try {
    console.log(`machine: node ${process.version}, 3 masters on loopback, mode ${quick ? 'quick' : 'full'}`)
    const rows: Row[] = []
    const num = (n: number, digits: number) => n.toFixed(digits)

    // Where shards land: a shard's keys share the hash tag "{n}", so shard n lives on the master owning that slot.
    const placement = await shardPlacement(cluster, admins[0]!, 12)
    console.log(`shards 0..11 live on masters: ${placement.join(', ')}`)

    // 1. Memory.
    const { bytes: mem200, fragmentation: frag } = await bytesPerJob(
      admins,
      config(await newQueue(), { SHARDS: '3' }),
      MEMORY_JOBS,
      PAYLOAD_JSON,
    )
    const kib = JSON.stringify({ data: 'x'.repeat(1024 - 11) })
    const { bytes: mem1k } = await bytesPerJob(admins, config(await newQueue(), { SHARDS: '3' }), KIB_JOBS, kib)
    rows.push({
      measure: 'bytes per pending job, 200 B payload',
      value: num(mem200, 1),
      note: `${fmt.int(MEMORY_JOBS)} jobs, 3 shards, summed over masters`,
    })
    rows.push({
      measure: 'bytes per pending job, 1 KiB payload',
      value: num(mem1k, 1),
      note: `${fmt.int(KIB_JOBS)} jobs, 3 shards`,
    })
    rows.push({
      measure: 'overhead beyond the payload (200 B case)',
      value: num(mem200 - 200, 1),
      note: 'record header + id + index',
    })
    rows.push({
      measure: 'jobs per GB of used_memory, 200 B / 1 KiB',
      value: `${num(1e9 / mem200 / 1e6, 2)} M / ${num(1e9 / mem1k / 1e6, 2)} M`,
      note: 'before fragmentation and reserved memory',
    })
    rows.push({
      measure: 'fragmentation (RSS / used_memory, all masters)',
      value: num(frag, 2),
      note: `with ${fmt.int(MEMORY_JOBS)} jobs of 200 B loaded (no churn)`,
    })

    // 2. Drain of a backlog, by layout.
    for (const [scanners, shards] of [
      [1, 1],
      [1, 3],
      [2, 3],
      [2, 12],
    ] as const) {
      const rates: number[] = []
      for (let rep = 0; rep < REPS; rep++)
        rates.push(await drain(config(await newQueue(), { SHARDS: String(shards) }), scanners, rep))
      rows.push({
        measure: `backlog drain, ${scanners} scanner(s) over ${shards} shard(s)`,
        value: fmt.rate(median(rates)),
        note: `median of ${REPS}, ${fmt.int(DRAIN_JOBS)} jobs due at once`,
      })
    }
    console.log(printTable(rows))
  } finally {
    for (const a of admins) a.disconnect()
    control.destroy()
    await sqs.stop()
    await cluster.stop()
  }
}

async function shardPlacement(cluster: LocalRedisCluster, admin: Redis, shards: number): Promise<string[]> {
  const out: string[] = []
  for (let s = 0; s < shards; s++) {
    const slot = Number(await admin.call('CLUSTER', 'KEYSLOT', `{${s}}`))
    out.push(`${s}->${(await cluster.ownerOf(slot)).port}`)
  }
  return out
}

async function usedMemory(admins: Redis[]): Promise<number> {
  let total = 0
  for (const a of admins) total += Number(/used_memory:(\d+)/.exec(await a.info('memory'))![1])
  return total
}

/** RSS over used memory, summed over the masters (a near-empty master alone shows a large, meaningless ratio). */
async function fragmentation(admins: Redis[]): Promise<number> {
  let rss = 0
  let used = 0
  for (const a of admins) {
    const text = await a.info('memory')
    rss += Number(/used_memory_rss:(\d+)/.exec(text)![1])
    used += Number(/used_memory:(\d+)/.exec(text)![1])
  }
  return rss / used
}

/** used_memory over all masters before and after `jobs` pending jobs, per job; then the jobs are removed. */
async function bytesPerJob(admins: Redis[], config: Config, jobs: number, payloadJson: string) {
  for (const a of admins) await a.flushall()
  await sleep(200)
  const engine = createEngine(config)
  await engine.store.stats() // connect and load the scripts before the "before" reading
  const before = await usedMemory(admins)
  const base = Date.now() + 86_400_000
  await inFlight(Math.ceil(jobs / 1000), 4, async (b) => {
    const batch: NewJob[] = []
    for (let i = b * 1000; i < Math.min(jobs, b * 1000 + 1000); i++) {
      // Spread over 30 days, as real pending jobs are.
      batch.push({
        id: jobId('m', i),
        queue: TARGET,
        payloadJson,
        due: { atMs: base + ((i * 7919) % 2_592_000_000) },
      })
    }
    for (const r of await engine.store.enqueueMany(batch)) if (r instanceof Error) throw r
  })
  const after = await usedMemory(admins)
  const ratio = await fragmentation(admins)
  await engine.close()
  for (const a of admins) await a.flushall()
  return { bytes: (after - before) / jobs, fragmentation: ratio }
}

/** N jobs due at one instant, drained by `scanners` scanners; jobs/s from the due time to the last one in SQS. */
async function drain(config: Config, scanners: number, rep: number): Promise<number> {
  const engines: Engine[] = Array.from({ length: scanners }, () => createEngine(config))
  const sqs = createSqsClient(config)
  let last = 0
  let sent = 0
  const scans = engines.map((engine) =>
    createScanner(engine, sqs, {
      onSent: (job, acceptedAtMs) => {
        sent++
        last = Math.max(last, acceptedAtMs)
        void job
      },
    }),
  )
  const runs = scans.map((s) => s.scanner.run(Date.now() + 120_000))
  const at = Date.now() + 5_000
  const jobs = Array.from(
    { length: DRAIN_JOBS },
    (_, i): NewJob => ({
      id: jobId(`d${rep}`, i),
      queue: TARGET,
      payloadJson: PAYLOAD_JSON,
      due: { atMs: at },
    }),
  )
  await inFlight(DRAIN_JOBS / 100, 8, async (b) => {
    for (const r of await engines[0]!.store.enqueueMany(jobs.slice(b * 100, b * 100 + 100)))
      if (r instanceof Error) throw r
  })
  if (Date.now() > at) console.error(`  drain: the enqueue finished ${Date.now() - at} ms after the due time`)
  const deadline = Date.now() + 60_000
  while (sent < DRAIN_JOBS && Date.now() < deadline) await sleep(20)
  for (const s of scans) s.scanner.stop()
  await Promise.all(runs)
  await Promise.all(scans.map((s) => s.close()))
  const inQueue = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: config.queues[TARGET], AttributeNames: ['ApproximateNumberOfMessages'] }),
  )
  if (Number(inQueue.Attributes!.ApproximateNumberOfMessages) !== DRAIN_JOBS) {
    throw new Error(`drain: ${inQueue.Attributes!.ApproximateNumberOfMessages} of ${DRAIN_JOBS} messages in SQS`)
  }
  sqs.destroy()
  await Promise.all(engines.map((e) => e.close()))
  const start = Math.max(at, 0)
  return DRAIN_JOBS / ((last - start) / 1000)
}

runMain(main)
