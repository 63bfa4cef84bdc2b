// The scan function in on-demand mode, run in this process: an invoker that, like Lambda's asynchronous invoke,
// returns at once and runs one scan "invocation" in the background (a scanner on the real Redis and SQS, with the
// on-demand watch). It records when each invocation was asked for and when its scanner was up.
import { createServer } from 'node:http'
import { DelayQueue } from '../../src/direct/delay-queue'
import type { ScanInvoker } from '../../src/on-demand/start/scan-starter'
import { loadConfig } from '../../src/config'
import { runOnDemand, type OnDemandReport } from '../../src/on-demand/run/run-on-demand'
import { Presence } from '../../src/on-demand/run/presence'
import type { ClaimedJob } from '../../src/scan/claims/claimed-job'
import { JobStore } from '../../src/store/job-store'
import { NO_REPLICA_WAIT } from '../../src/store/redis/replication'
import { SCAN_START_GUARD_MS } from '../../src/on-demand/start/scan-start'
import { listenOnLoopback } from '../../devkit/loopback-server'
import { testScanner } from './scanner'
import type { testStore } from './engine'

export interface Invocation {
  invokedAt: number
  /**
   * When its scanner issued its first claim (connected, subscribed to wake signals, the key layout checked): the
   * "start time" of this local function is upAt - invokedAt.
   */
  upAt?: number
  done: Promise<OnDemandReport>
}

export interface SentJob {
  id: string
  lateMs: number
}

type TestStore = ReturnType<typeof testStore>

/** Numbers the runs of every in-process scan function: each run's name in the alive marker is its own. */
let runs = 0

export function inProcessScanFunction(
  t: TestStore,
  queues: Record<string, string>,
  o: { horizonMs?: number; lingerMs?: number; timeoutMs?: number } = {},
) {
  const invocations: Invocation[] = []
  const sent: SentJob[] = []
  const run = (startToken: string | null = null): Invocation => {
    const invocation: Invocation = { invokedAt: Date.now(), done: undefined as never }
    const s = testScanner(t, {
      queues,
      onSent: (job: ClaimedJob, _at, lateMs) => void sent.push({ id: job.id, lateMs }),
    })
    const claim = s.leases.claim.bind(s.leases)
    s.leases.claim = (...args) => {
      invocation.upAt ??= Date.now()
      return claim(...args)
    }
    const presence = new Presence(t.redis, t.keys, `test-${++runs}`, undefined, startToken)
    invocation.done = runOnDemand(s.scanner, Date.now() + (o.timeoutMs ?? 20_000), {
      presence,
      horizonMs: o.horizonMs ?? 70_000,
      lingerMs: o.lingerMs ?? 200,
    }).finally(() => s.close())
    return invocation
  }
  const invoker: ScanInvoker = {
    async invoke(event) {
      invocations.push(run(event.startToken ?? null))
    },
  }
  return {
    invocations,
    sent,
    invoker,
    /** Starts one invocation directly, as the schedule would. */
    tick: () => {
      const invocation = run()
      invocations.push(invocation)
      return invocation
    },
    /** Waits for every invocation so far to end. */
    settled: () => Promise.all(invocations.map((i) => i.done)),
  }
}

/** A DelayQueue over the test store in on-demand mode (or `mode`), starting scanners through `invoker`. */
export function onDemandQueue(t: TestStore, queues: Record<string, string>, invoker: ScanInvoker, mode = 'on-demand') {
  const config = loadConfig({
    REDIS_URL: 'redis://unused:6379',
    QUEUES: Object.entries(queues)
      .map(([n, u]) => `${n}=${u}`)
      .join(','),
    SCAN_MODE: mode,
  })
  const store = new JobStore(
    t.redis,
    t.keys,
    {
      horizonMs: mode === 'on-demand' ? config.onDemandHorizonMs : 0,
      guardMs: SCAN_START_GUARD_MS,
    },
    NO_REPLICA_WAIT,
  )
  return new DelayQueue({ config, store }, {}, { scanInvoker: invoker })
}

/** How one invoke of the scan function goes wrong: accepted and never run, refused (throttled). */
export type StartFault = 'lost' | 'throttled'

/** `invoker`, except that its first invokes go wrong as `faults` lists them; `calls` has the time of each invoke. */
export function faultyInvoker(invoker: ScanInvoker, faults: StartFault[]) {
  const left = [...faults]
  const calls: number[] = []
  const faulty: ScanInvoker = {
    async invoke(event) {
      calls.push(Date.now())
      const fault = left.shift()
      if (fault === 'lost') return
      if (fault === 'throttled') throw new Error('TooManyRequestsException: Rate Exceeded.')
      return invoker.invoke(event)
    },
  }
  return { invoker: faulty, calls }
}

/** A loopback HTTP endpoint that takes every request and never answers: a Lambda endpoint that hangs. */
export async function silentEndpoint() {
  /** Each request's time and invocation type ("Event", or "DryRun": the invoker's warm-up). */
  const requests: { at: number; type: string }[] = []
  const server = createServer((req) => {
    requests.push({ at: Date.now(), type: String(req.headers['x-amz-invocation-type']) })
  })
  const { url, close } = await listenOnLoopback(server)
  return { url, requests, close }
}
