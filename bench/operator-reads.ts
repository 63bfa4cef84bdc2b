// `npm run bench:operator-reads`: what the operator tools read from Redis when payloads are large. 200 dead jobs of
// 1 MiB (20 for "orders", 180 for "emails"), 20 more in flight (leased to a scanner) and 2 recurring schedules, on a
// private redis-server. For a dashboard refresh (OverviewReader.read, every 2 s while the page is open; the first one
// of a dashboard process, and the next ones, which read only records they have not read before) and for
// `sdq dead list --queue orders` (DeadSet.list, limits 10 and 100): the bytes Redis sent to the client (its socket's
// bytesRead), the time per call and redis-server's CPU per call (INFO cpu, which counts whole milliseconds only
// roughly), medians of a few calls. `--payload-bytes N` changes the payload size.
import type { Redis } from 'ioredis'
import { startRedis } from '../local/redis-server'
import { DelayQueue } from '../src/direct/delay-queue'
import { loadConfig } from '../src/config'
import { OverviewReader } from '../src/ops/dashboard/overview'
import { DeadSet } from '../src/ops/dead-set'
import { Leases } from '../src/scan/claims/leases'
import { createEngine, type Engine } from '../src/store/engine'
import { median } from '../devkit/stats'
import { fmt, printTable, type Row } from './table'
import { runMain } from './main'

const CALLS = 5
const at = process.argv.indexOf('--payload-bytes')
const PAYLOAD_BYTES = at > 0 ? Number(process.argv[at + 1]) : 1_048_576 - 1_024 // the message must fit 1 MiB

async function fill(engine: Engine): Promise<void> {
  const payloadJson = JSON.stringify('x'.repeat(PAYLOAD_BYTES - 2))
  const leases = new Leases(engine.redis, { leaseMs: 3_600_000, maxAttempts: 1, backoffBaseMs: 1, backoffMaxMs: 1 })
  const claim = async (refuse: boolean) => {
    for (const shard of engine.keys.shards) {
      for (;;) {
        const { jobs } = await leases.claim(shard, await leases.seedHints(shard, 100), 100)
        if (jobs.length === 0) break
        if (refuse)
          await leases.release(
            shard,
            jobs.map((j) => ({ ...j, error: 'QueueDoesNotExist' })),
          )
      }
    }
  }
  for (let i = 0; i < 200; i++) {
    const queue = i % 10 === 0 ? 'orders' : 'emails'
    await engine.store.enqueue({ id: `dead-${i}`, queue, payloadJson, due: { delayMs: 0 } })
  }
  await claim(true)
  for (let i = 0; i < 20; i++) {
    await engine.store.enqueue({ id: `flying-${i}`, queue: 'orders', payloadJson, due: { delayMs: 0 } })
  }
  await claim(false)
  const schedules = new DelayQueue(engine)
  for (const id of ['daily', 'hourly']) {
    await schedules.putSchedule(id, { queue: 'orders', payload: 'x'.repeat(PAYLOAD_BYTES - 2), cron: '0 * * * *' })
  }
}

/** Seconds of CPU redis-server has used (INFO cpu: user + sys). */
async function redisCpu(redis: Redis): Promise<number> {
  const info = await redis.info('cpu')
  const field = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)![1])
  return field('used_cpu_user') + field('used_cpu_sys')
}

async function measure(
  redis: Redis,
  read: () => Promise<unknown>,
): Promise<{ bytes: number; ms: number; cpuMs: number }> {
  const bytes: number[] = []
  const ms: number[] = []
  const cpuMs: number[] = []
  for (let i = 0; i < CALLS; i++) {
    const cpu = await redisCpu(redis)
    const before = redis.stream.bytesRead
    const t = performance.now()
    await read()
    ms.push(performance.now() - t)
    bytes.push(redis.stream.bytesRead - before)
    cpuMs.push((await redisCpu(redis)) * 1000 - cpu * 1000)
  }
  return { bytes: median(bytes), ms: median(ms), cpuMs: median(cpuMs) }
}

async function main() {
  const server = await startRedis()
  const engine = createEngine(
    loadConfig({
      REDIS_URL: server.url,
      QUEUES: 'orders=http://127.0.0.1:9/000000000000/orders,emails=http://127.0.0.1:9/000000000000/emails',
    }),
  )
  try {
    await fill(engine)
    const redis = engine.redis as Redis
    const overview = new OverviewReader(engine.redis, engine.keys, engine.store)
    const dead = new DeadSet(engine.redis, engine.keys)
    const rows: Row[] = []
    const add = (what: string, r: { bytes: number; ms: number; cpuMs: number }) => {
      rows.push({ measure: `${what}: bytes from Redis`, value: fmt.int(r.bytes) })
      rows.push({ measure: `${what}: time`, value: fmt.ms(r.ms) })
      rows.push({ measure: `${what}: redis-server CPU`, value: fmt.ms(r.cpuMs) })
    }
    add(
      'dashboard refresh, first (a new page)',
      await measure(redis, () => new OverviewReader(engine.redis, engine.keys, engine.store).read()),
    )
    await overview.read()
    add('dashboard refresh, every 2 s after', await measure(redis, () => overview.read()))
    add('dead list --queue orders --limit 10', await measure(redis, () => dead.list({ queue: 'orders', limit: 10 })))
    add('dead list --queue orders (limit 100)', await measure(redis, () => dead.list({ queue: 'orders', limit: 100 })))
    console.log(printTable(rows))
    console.log(
      `200 dead jobs (20 orders), 20 in flight, 2 schedules; payloads of ${fmt.int(PAYLOAD_BYTES)} bytes; ` +
        `medians of ${CALLS} calls; ${new Date().toISOString()}`,
    )
  } finally {
    await engine.close()
    await server.stop()
  }
}

runMain(main)
