// One scan invocation, whatever started it: it takes over from the run before it (src/scan/relay.ts), then loops
// in its mode until its deadline, until a newer run takes over from it, or (on-demand mode) until nothing is due
// soon.
import type { ScanMode } from '../config'
import { defaultLog, type Log } from '../logger'
import type { Keyspace } from '../store/keys'
import type { RedisClient } from '../store/scripts'
import { runOnDemand } from './on-demand'
import { Presence } from './presence'
import { Relay, type RelayOptions } from './relay'
import type { ScanReport } from './run-tally'
import type { Scanner } from './scanner'

export interface InvocationOptions {
  mode: ScanMode
  redis: RedisClient
  keys: Keyspace
  /** This invocation's name in Redis (the Lambda request id): the relay and the on-demand alive marker carry it. */
  name: string
  /** On-demand mode's watch: see src/scan/on-demand.ts. */
  onDemand: { horizonMs: number; lingerMs: number }
  relay?: Omit<RelayOptions, 'logger'>
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
  const relay = new Relay(redis, keys.scanRelayKey, name, { ...options.relay, logger })
  await relay.takeOver(untilMs)
  relay.watch(() => scanner.stop())
  try {
    const report =
      mode === 'on-demand'
        ? await runOnDemand(scanner, untilMs, {
            ...options.onDemand,
            presence: new Presence(redis, keys, name),
            // The newer run holds the alive marker now: removing it would make enqueues start yet another scan.
            keepMarker: () => relay.successor !== null,
            // An older run still scanning must not stop for this one once it is gone.
            beforeRetire: () => relay.handBack(),
            logger,
          })
        : await scanner.run(untilMs)
    return { ...report, handedOverTo: relay.successor }
  } finally {
    relay.end()
  }
}
