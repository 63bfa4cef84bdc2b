// `npm run bench:scheduler-at [-- --quick]`: how late at() schedules made through the Scheduler-compatible API fire,
// against a private redis-server and fauxqs (started on free loopback ports, stopped at the end).
// The unmodified @aws-sdk/client-scheduler, pointed at the API served on loopback, creates N at() schedules (FlexibleTimeWindow
// OFF) spread over whole seconds (200 per second at full size: at() has second precision, so each second is a small
// burst), ahead of time, into one scanner built as the scan function builds it and already running. Lateness per
// schedule is the scanner's onSent callback (as in bench/lateness.ts): the time SendMessageBatch returned, on Redis's
// clock, minus the schedule's at() second. The queue's message count at the end proves every one is in SQS.
import { sleep } from '../devkit/sleep'
import { readFileSync, writeFileSync } from 'node:fs'
import { cpus, loadavg } from 'node:os'
import { resolve } from 'node:path'
import { CreateScheduleCommand, SchedulerClient } from '@aws-sdk/client-scheduler'
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs'
import { localCredentials } from '../local/sqs-endpoint'
import { createSchedulerHandler } from '../src/scheduler-api/handler'
import { serveScheduler } from '../src/scheduler-api/http-server'
import { createEngine } from '../src/store/engine'
import { info, startBenchEnv } from './env'
import { runMain } from './main'
import { scanParts, startScanning } from './scanning'
import { inFlight, percentiles } from '../devkit/stats'
import { fmt, printTable } from './table'

const quick = process.argv.includes('--quick')
const size = quick ? { schedules: 500, seconds: 5 } : { schedules: 2_000, seconds: 10 }
/** SDK calls in flight while creating: a client application's burst of creates, not a load test of the API. */
const CREATES_IN_FLIGHT = 16
/** Time to create every schedule before the first is due (the creates take 1-5 s here, depending on the neighbours). */
const LEAD_MS = 15_000

const log = (msg: string) => console.error(`[bench:scheduler-at ${new Date().toISOString().slice(11, 19)}] ${msg}`)
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined }

async function main() {
  const loadStart = loadavg()[0]!
  const env = await startBenchEnv()
  try {
    const redisVersion = (await info(env.admin, 'server')).redis_version
    console.log(
      `machine: node ${process.version}, redis ${redisVersion}, ${cpus().length} cpus (${cpus()[0]?.model}), mode ${quick ? 'quick' : 'full'}`,
    )
    const parts = await scanParts(env, 'scheduler-at')
    const { Attributes } = await parts.sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: parts.queue.url, AttributeNames: ['QueueArn'] }),
    )
    // The API on an engine of its own, as the deployed scheduler function has its own Redis connection.
    const apiEngine = createEngine(parts.config)
    const server = await serveScheduler(createSchedulerHandler(apiEngine, { logger: silent }))
    const client = new SchedulerClient({ endpoint: server.url, region: 'us-east-1', credentials: localCredentials })
    const lateness: number[] = []
    const scanning = startScanning(parts, Date.now() + LEAD_MS + size.seconds * 1000 + 90_000, {
      onSent: (_job, _at, late) => void lateness.push(late),
      logger: silent,
    })
    try {
      await sleep(500) // subscribed, first claim done, asleep
      const firstSecond = Math.ceil((Date.now() + LEAD_MS) / 1000) * 1000
      const startedCreating = Date.now()
      await inFlight(size.schedules, CREATES_IN_FLIGHT, (i) =>
        client.send(
          new CreateScheduleCommand({
            Name: `at-${i}`,
            ScheduleExpression: `at(${new Date(firstSecond + (i % size.seconds) * 1000).toISOString().slice(0, 19)})`,
            FlexibleTimeWindow: { Mode: 'OFF' },
            Target: {
              Arn: Attributes!.QueueArn!,
              RoleArn: 'arn:aws:iam::000000000000:role/bench',
              Input: `{"n":${i}}`,
            },
          }),
        ),
      )
      const createMs = Date.now() - startedCreating
      log(`created ${size.schedules} schedules in ${createMs} ms (${fmt.rate((size.schedules * 1000) / createMs)})`)
      if (Date.now() >= firstSecond)
        log('the creates finished after the first schedule was due: lateness is overstated')
      const deadline = firstSecond + size.seconds * 1000 + 60_000
      while (lateness.length < size.schedules && Date.now() < deadline) await sleep(50)
    } finally {
      client.destroy()
      await server.close()
      await apiEngine.close()
    }
    const attrs = await parts.sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: parts.queue.url, AttributeNames: ['ApproximateNumberOfMessages'] }),
    )
    await scanning.stop()
    const late = percentiles(lateness)
    const inQueue = Number(attrs.Attributes?.ApproximateNumberOfMessages ?? 0)
    const perSecond = size.schedules / size.seconds
    console.log(
      printTable(
        (['p50', 'p90', 'p99', 'max'] as const).map((p) => ({
          measure: `at() firing lateness ${p} (${fmt.int(late.count)} schedules, ${perSecond} per second)`,
          value: fmt.ms(late[p]),
          note: p === 'p50' ? `SQS accepted (onSent) - at() second; ${inQueue} in queue` : '',
        })),
      ),
    )
    console.log(`load average (1 min) at start ${loadStart.toFixed(2)}, at end ${loadavg()[0]!.toFixed(2)}`)
    if (!quick) {
      const file = resolve(process.cwd(), 'bench/results.json')
      const all = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>
      const machine = { node: process.version, redis: redisVersion, cpus: cpus().length, loadAverageStart: loadStart }
      const schedulerAt = { ...size, perSecond, lateness: late, inQueue, date: new Date().toISOString(), machine }
      writeFileSync(file, `${JSON.stringify({ ...all, schedulerAt }, null, 2)}\n`)
    }
  } finally {
    await env.stop()
  }
}

runMain(main)
