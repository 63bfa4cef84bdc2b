// Operator CLI: `npm run sdq -- <command>`. Reads the same settings as the functions (REDIS_URL, QUEUES, ...).
//
//   dead list [--queue Q] [--limit N]         jobs SQS refused on every attempt, with their last error
//   dead retry <id>... [--delay-ms N]         schedule dead jobs again, unchanged
//   dead retry --all [--queue Q] [--delay-ms N]
//   redrive --dlq-url URL [--delay-ms N]      DLQ messages back into the delay queue, due in N ms (default 0)
//   redrive --dlq-url URL --direct            DLQ messages straight back to their target queue
//           [--queue Q] [--max N]             the target is the DLQ's own queue unless --queue names one;
//                                             exit code 3 when messages were refused (left in the DLQ)
//   pending [--queue Q] [--limit N] [--cursor C]  pending jobs in due-time order, a page at a time (no payloads)
//   job <id>                                  one job: pending, dead, or dispatched (its receipt)
//   run <id>...                               pending jobs due now (src/ops/run-commands.ts)
//   run-due --before T [--queue Q] [--cursor C]  every pending job due before T due now, step by step
//   run-due --tag T [--before T] [--cursor C]    every pending job with the tag (due before T) due now
//   stats                                     counts per target queue
//   schedules list|get|put|pause|resume|delete  recurring schedules (src/ops/schedule-commands.ts); delete --tag T
//   flow list|pause|resume|rate               pause a queue, a flow key or a tag, give a rate (src/ops/flow-commands.ts)
//   dashboard [--port N] [--host H]           the operator dashboard over REDIS_URL (default 127.0.0.1:3003); no AWS;
//                                             a --host beyond loopback needs SDQ_DASHBOARD_TOKEN (docs/operations.md)
import { parseArgs } from 'node:util'
import { loadConfig } from '../config'
import { DeadSet } from './dead-set'
import { createEngine } from '../store/engine'
import { createSqsClient } from '../sqs/sqs-client'
import { DelayQueueError } from '../errors'
import { redrive } from './redrive'
import { DelayQueue } from '../direct/delay-queue'
import { SCHEDULE_USAGE, ScheduleCommandError, scheduleCommand } from './schedule-commands'
import { startDashboard } from './dashboard/server'
import { JOB_USAGE, JobCommandError, jobCommand } from './job-commands'
import { isoTime } from '../shared/iso-time'
import { FLOW_USAGE, FlowCommandError, flowCommand } from './flow-commands'
import { RUN_USAGE, RunCommandError, runCommand } from './run-commands'

const USAGE = `usage:
  sdq dead list [--queue Q] [--limit N]
  sdq dead retry <id>... | --all [--queue Q]   [--delay-ms N]
  sdq redrive --dlq-url URL [--delay-ms N | --direct] [--queue Q] [--max N]
      to the queue whose DLQ it reads (or --queue Q, which also takes bodies naming another queue); every
      message passes the API's job rules; refused ones stay in the DLQ, listed under "skipped" (exit code 3)
${JOB_USAGE}
${RUN_USAGE}
  sdq stats
  sdq dashboard [--port N] [--host H]
      --host other than loopback (0.0.0.0, a LAN address) only with SDQ_DASHBOARD_TOKEN set (32+ characters): every
      request must then carry it (open /?token=<token> once, or send Authorization: Bearer <token>)
${SCHEDULE_USAGE}
${FLOW_USAGE}`

/** The flags every command may take (each command reads its own). */
const OPTIONS = {
  queue: { type: 'string' },
  limit: { type: 'string' },
  'delay-ms': { type: 'string' },
  all: { type: 'boolean' },
  'dlq-url': { type: 'string' },
  direct: { type: 'boolean' },
  max: { type: 'string' },
  cursor: { type: 'string' },
  json: { type: 'string' },
  file: { type: 'string' },
  port: { type: 'string' },
  host: { type: 'string' },
  before: { type: 'string' },
  tag: { type: 'string' },
  key: { type: 'string' },
  burst: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: OPTIONS })
  const [command, sub, ...ids] = positionals
  if (values.help || !command) {
    console.log(USAGE)
    return command ? 0 : 2
  }
  const number = (name: string, raw: string | undefined, fallback?: number) => {
    if (raw === undefined) return fallback
    if (!/^\d+$/.test(raw)) throw new UsageError(`--${name} must be a whole number`)
    return Number(raw)
  }
  const config = loadConfig()
  const engine = createEngine(config, { maxRetriesPerRequest: 1, commandTimeoutMs: 5_000 })
  const dead = new DeadSet(engine.redis, engine.keys)
  try {
    if (command === 'stats') {
      print(await new DelayQueue(engine).stats())
    } else if (command === 'pending' || command === 'job') {
      const flags = { queue: values.queue, limit: number('limit', values.limit), cursor: values.cursor }
      for (const line of await jobCommand(new DelayQueue(engine), command, sub, flags)) print(line)
    } else if (command === 'run' || command === 'run-due') {
      const flags = { before: values.before, queue: values.queue, tag: values.tag, cursor: values.cursor }
      await runCommand(
        new DelayQueue(engine),
        command,
        [sub, ...ids].filter((x) => x !== undefined),
        flags,
        print,
      )
    } else if (command === 'dashboard') {
      // From the environment, not a flag: a command line is visible to every user of the machine (ps).
      const token = process.env.SDQ_DASHBOARD_TOKEN || undefined
      await serveDashboard(engine, { port: number('port', values.port, 3003), host: values.host, token })
    } else if (command === 'dead' && sub === 'list') {
      for (const job of await dead.list({ queue: values.queue, limit: number('limit', values.limit, 100) })) print(job)
    } else if (command === 'dead' && sub === 'retry') {
      const delayMs = delayFlag(values['delay-ms'], config.maxHorizonMs)
      if (values.all) {
        print({ retried: await reviveAll(dead, values.queue, delayMs) })
      } else {
        if (ids.length === 0) throw new UsageError('name job ids, or --all')
        for (const id of ids) print({ id, runAt: isoTime(await dead.revive(id, delayMs)) })
      }
    } else if (command === 'schedules') {
      const flags = {
        cursor: values.cursor,
        tag: values.tag,
        limit: number('limit', values.limit),
        json: values.json,
        file: values.file,
      }
      for (const line of await scheduleCommand(new DelayQueue(engine), sub, ids[0], flags)) print(line)
    } else if (command === 'flow') {
      const flags = {
        queue: values.queue,
        key: values.key,
        tag: values.tag,
        burst: number('burst', values.burst),
        limit: number('limit', values.limit),
      }
      printLines(await flowCommand(new DelayQueue(engine), sub, ids[0], flags))
    } else if (command === 'redrive') {
      if (!values['dlq-url']) throw new UsageError('--dlq-url is required')
      const report = await redriveCommand(engine, {
        dlqUrl: values['dlq-url'],
        queue: values.queue,
        max: number('max', values.max),
        delayMs: values.direct ? undefined : delayFlag(values['delay-ms'], config.maxHorizonMs),
      })
      print(report)
      // Refused messages are still in the DLQ: a script running this must notice.
      if (report.skipped.length > 0) return REFUSED_EXIT_CODE
    } else {
      throw new UsageError(`unknown command: ${positionals.join(' ')}`)
    }
    return 0
  } finally {
    await engine.close()
  }
}

/** --delay-ms: whole ms, at most the job horizon (MAX_HORIZON_DAYS): more would be a due time Lua cannot write plainly. */
function delayFlag(raw: string | undefined, horizonMs: number): number {
  if (raw === undefined) return 0
  if (!/^\d+$/.test(raw)) throw new UsageError('--delay-ms must be a whole number')
  if (Number(raw) > horizonMs)
    throw new UsageError(`--delay-ms must be at most ${horizonMs} (MAX_HORIZON_DAYS, the job horizon)`)
  return Number(raw)
}

/** A redrive of one DLQ: into the delay queue after `delayMs`, or (no delay given: --direct) straight back. */
async function redriveCommand(
  engine: ReturnType<typeof createEngine>,
  options: { dlqUrl: string; queue?: string; max?: number; delayMs?: number },
) {
  const sqs = createSqsClient(engine.config)
  try {
    return await redrive({
      sqs,
      dlqUrl: options.dlqUrl,
      config: engine.config,
      queue: options.queue,
      max: options.max,
      mode:
        options.delayMs === undefined
          ? { kind: 'direct' }
          : { kind: 'schedule', store: engine.store, delayMs: options.delayMs },
    })
  } finally {
    sqs.destroy()
  }
}

/** Serves the dashboard until Ctrl-C (SIGINT) or SIGTERM. */
async function serveDashboard(
  engine: ReturnType<typeof createEngine>,
  options: { port?: number; host?: string; token?: string },
) {
  const dashboard = await startDashboard(engine, options)
  const redis = engine.config.redis.url?.replace(/\/\/[^@/]*@/, '//***@') ?? engine.config.redis.clusterNodes?.join(',')
  console.log(`dashboard on ${dashboard.url} (Redis ${redis}, key prefix ${engine.config.keyPrefix}); Ctrl-C stops it`)
  if (options.token) console.log('every request needs SDQ_DASHBOARD_TOKEN: open /?token=<token> once in the browser')
  await new Promise<void>((ok) => {
    process.once('SIGINT', ok)
    process.once('SIGTERM', ok)
  })
  await dashboard.close()
}

class UsageError extends Error {}

/** `redrive` left messages in the DLQ (the report lists why); 1 is an error, 2 a usage error. */
const REFUSED_EXIT_CODE = 3

/** A usage mistake: the usage is printed with it, exit code 2. */
function isUsage(e: unknown): e is Error {
  return (
    e instanceof UsageError ||
    e instanceof JobCommandError ||
    e instanceof RunCommandError ||
    e instanceof FlowCommandError ||
    e instanceof ScheduleCommandError
  )
}

function print(value: unknown) {
  console.log(JSON.stringify(value))
}

function printLines(values: readonly unknown[]) {
  for (const value of values) print(value)
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e) => {
    console.error(isUsage(e) ? `${e.message}\n${USAGE}` : e instanceof DelayQueueError ? e.message : e)
    process.exit(isUsage(e) ? 2 : 1)
  },
)

/** Every dead job (of one queue), page by page: a list is capped at 1,000, and revived jobs leave the dead set. */
async function reviveAll(dead: DeadSet, queue: string | undefined, delayMs: number): Promise<number> {
  const seen = new Set<string>()
  for (;;) {
    // Heads only: reviving needs the ids, not the payloads.
    const heads = await dead.heads({ queue, limit: 1000, previewBytes: 0 })
    const page = heads.map((j) => j.id).filter((id) => !seen.has(id))
    if (page.length === 0) return seen.size
    for (const id of page) {
      seen.add(id)
      print({ id, runAt: isoTime(await dead.revive(id, delayMs)) })
    }
  }
}
