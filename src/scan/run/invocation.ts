// One scan invocation, whatever started it: it takes over from the run before it (src/scan/run/relay.ts) while it
// starts scanning, then loops in its mode until its deadline, until a newer run takes over from it, or (on-demand
// mode) until nothing is due soon.
import type { ScanMode } from '../../config'
import { defaultLog, type Log } from '../../logger'
import type { Keyspace } from '../../store/keys'
import type { RedisClient } from '../../store/scripts'
import { runOnDemand } from '../../on-demand/run/run-on-demand'
import { Presence } from '../../on-demand/run/presence'
import { Relay, type RelayOptions, type RunStart } from './relay'
import type { ScanReport } from '../observe/run-tally'
import type { Scanner } from '../loop/scanner'

/** On-demand mode: when a run started on a tick looks for a newer run first (see runInvocation). */
export const ON_DEMAND_FIRST_LOOK_MS = 500

export interface InvocationOptions {
  mode: ScanMode
  redis: RedisClient
  keys: Keyspace
  /** This invocation's name in Redis (the Lambda request id): the relay and the on-demand alive marker carry it. */
  name: string
  /** On-demand mode's watch: see src/on-demand/run/run-on-demand.ts. */
  onDemand: { horizonMs: number; lingerMs: number }
  /** What started this run (default 'tick'): the relay's look times count from it. */
  startedBy?: RunStart
  /** An enqueue's start: the start guard's token, which the run gives back as it ends. */
  startToken?: string | null
  relay?: Omit<RelayOptions, 'logger' | 'startedBy'>
  logger?: Log
}

export interface InvocationReport extends ScanReport {
  /** On-demand mode: true when the run ended because nothing was due soon. */
  endedEarly?: boolean
  /** The newer run this one stopped for, or null when it ran to its deadline (or ended early). */
  handedOverTo: string | null
}

export async function runInvocation(
  scanner: Scanner,
  untilMs: number,
  options: InvocationOptions,
): Promise<InvocationReport> {
  const { redis, keys, name, mode, logger = defaultLog() } = options
  // On-demand mode: an enqueue can start a run as a tick's run is coming up (before its alive marker is there); the
  // tick's run looks early, at 500 ms, and stops for it rather than scanning beside it until its look at 5 s.
  const firstLookMs = mode === 'on-demand' ? ON_DEMAND_FIRST_LOOK_MS : undefined
  const relay = new Relay(redis, keys.scanRelayKey, name, {
    firstLookMs,
    ...options.relay,
    startedBy: options.startedBy,
    logger,
  })
  // The scan does not wait for the take-over: a Redis node that hangs (in a cluster, the relay key's, shard 0's) would
  // hold every shard's scan. The watch starts once the take-over has settled (it needs the predecessor's name).
  const tookOver = relay.takeOver(untilMs)
  const watching = tookOver.then(() => relay.watch(() => scanner.stop()))
  try {
    const report =
      mode === 'on-demand'
        ? await runOnDemand(scanner, untilMs, {
            ...options.onDemand,
            presence: new Presence(redis, keys, name, undefined, options.startToken ?? null),
            // The newer run holds the alive marker now: removing it would make enqueues start yet another scan.
            keepMarker: () => relay.successor !== null,
            // An older run still scanning must not stop for this one once it is gone.
            // After the take-over: a write that lands after the hand-back would leave this run's name behind it.
            beforeRetire: () => tookOver.then(() => relay.handBack()),
            logger,
          })
        : await scanner.run(untilMs)
    return { ...report, handedOverTo: relay.successor }
  } finally {
    relay.end()
    // Not before it settles: a write left pending in a frozen Lambda would land later, a stale name over a newer one.
    await watching
  }
}
