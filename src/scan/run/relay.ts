// The hand-over between scheduled scan runs.
//
// EventBridge fires the scan every minute, and each run loops until SAFETY_MARGIN_MS before its 70 s timeout: 66 s.
// The 6 s of overlap cover a late tick or a cold start, so that no gap opens between runs, but they are billed: 10%
// of continuous mode's scan time. With the relay, a run writes its name under the relay key as it starts, and an
// older run that reads another name there stops: the newer run is up (its module loaded, Redis answering), so
// the older one's remaining seconds buy nothing. A run that sees no successor loops to its deadline as before, so
// a late or failed tick costs what it did before the relay; only the overlap that buys nothing goes.
//
// The older run looks only from RELAY_LOOK_AFTER_MS after its own start, when a successor can be due (ticks are a
// minute apart), then every RELAY_LOOK_EVERY_MS: ~40 GETs a run when the next tick comes on time (10 s of looking; 64
// at most, when none comes before the deadline), where looking all the time, once a second, would cost 60 GETs a minute
// and stop the older run 500 ms later on average. One look comes early, at RELAY_FIRST_LOOK_MS: EventBridge delivers at
// least once, and a duplicate delivery of a tick starts a second run at the same moment; without that look the two
// would scan side by side for 50 s. Claims and leases make two runs at once safe, so a hand-over needs no lock: at
// worst both scan for one more look.
//
// A name other than its own is not always a newer run's: the run's own write can fail (a Redis blip as it starts) or
// be lost (a failover before it was replicated), and the key then still holds the run before it, which loops on to
// its deadline because it sees no other name. Stopping for that name would leave no run scanning until the next
// tick. So each run remembers its predecessor, the name its write replaced (SET ... GET), or, when the write failed,
// the first name it reads, and stops only for a name that is neither its own nor that one.
//
// Those look times assume the run started on a tick. In on-demand mode a run also starts when an enqueue asks for
// one, at any moment of the minute, so the next tick can come at any time of its life: such a run looks every
// RELAY_ENQUEUE_LOOK_EVERY_MS from its start (a GET every half second while it lives, which is seconds in sparse
// workloads and at most until the next tick's run takes over), and runs beside that tick's run half a second on average.
//
// On-demand mode: a run that ends early (nothing due soon) gives the key back to its predecessor before it retires
// (handBack), so an older run still scanning does not stop for a run that is gone: it would leave its alive marker
// to nobody, and a job enqueued while that marker stood would wait for the next tick.
import { defaultLog, type Log } from '../../logger'
import { relayHandBackCall } from '../../store/scripts/relay-hand-back'
import { type RedisClient, runScript, withScripts } from '../../store/scripts'

/** A tick comes 60 s after the one before it; earlier than 50 s in, no successor is expected. */
export const RELAY_LOOK_AFTER_MS = 50_000
/** One look this early catches a duplicate delivery of the same tick (one GET a run). */
export const RELAY_FIRST_LOOK_MS = 5_000
/** Bounds how long both runs scan at once after the hand-over: 125 ms on average. */
export const RELAY_LOOK_EVERY_MS = 250
/** How often a run started by an enqueue (not on a tick) looks, from its start on. */
export const RELAY_ENQUEUE_LOOK_EVERY_MS = 500
/** The name outlives its run by this much, so a successor that starts late still finds no stale name. */
const NAME_TTL_EXTRA_MS = 10_000

/**
 * What started a scan run: EventBridge's schedule, or an enqueue (on-demand mode, src/on-demand/start/scan-starter.ts).
 */
export type RunStart = 'tick' | 'enqueue'

export interface RelayOptions {
  /** Default 'tick'. An enqueue-started run looks all along (every RELAY_ENQUEUE_LOOK_EVERY_MS), not from 50 s. */
  startedBy?: RunStart
  firstLookMs?: number
  lookAfterMs?: number
  lookEveryMs?: number
  logger?: Log
}

export class Relay {
  private timer: NodeJS.Timeout | undefined
  private ended = false
  /** The run that took over from this one, once seen. */
  successor: string | null = null
  /** The name this run's write replaced (null: none), or undefined while unknown (the write failed). */
  private predecessor: string | null | undefined
  /** Local ms of this run's start: look times count from it, however long the take-over took. */
  private readonly startedAt = Date.now()

  constructor(
    private readonly redis: RedisClient,
    private readonly key: string,
    /** This run's name (the invocation's request id). */
    private readonly owner: string,
    private readonly options: RelayOptions = {},
  ) {}

  /**
   * Writes this run's name: every older run stops at its next look. On failure (Redis away) this run just does not
   * take over, and the older one runs to its deadline, as without a relay.
   */
  async takeOver(untilMs: number): Promise<void> {
    try {
      const ttlMs = Math.max(1, untilMs - Date.now()) + NAME_TTL_EXTRA_MS
      this.predecessor = await this.redis.set(this.key, this.owner, 'PX', ttlMs, 'GET')
    } catch (e) {
      this.logger.warn('relay take-over failed', { error: String(e) })
    }
  }

  /**
   * Puts the predecessor's name back if the key still holds this run's (a newer run's name stays): the run that
   * ends early calls it before it retires. On failure the older run may still stop for this one, as before.
   */
  async handBack(): Promise<void> {
    const predecessor = this.predecessor === this.owner ? null : (this.predecessor ?? null)
    try {
      await runScript(withScripts(this.redis), relayHandBackCall(this.key, this.owner, predecessor))
    } catch (e) {
      this.logger.warn('relay hand-back failed', { error: String(e) })
    }
  }

  /**
   * Looks for a successor once at `firstLookMs`, then from `lookAfterMs` on (both after this run's start; a run
   * started by an enqueue: every `lookEveryMs` from its start); calls `stop` once, when one has taken over.
   */
  watch(stop: () => void): void {
    if (this.ended) return
    const started = this.startedAt
    const onTick = (this.options.startedBy ?? 'tick') === 'tick'
    const every = this.options.lookEveryMs ?? (onTick ? RELAY_LOOK_EVERY_MS : RELAY_ENQUEUE_LOOK_EVERY_MS)
    const after = this.options.lookAfterMs ?? (onTick ? RELAY_LOOK_AFTER_MS : every)
    const next = () => Math.max(every, started + after - Date.now())
    const look = async () => {
      try {
        const holder = await this.redis.get(this.key)
        if (this.ended) return
        // Our write failed: the name there now came before us (or is a twin's, which only costs the overlap).
        if (this.predecessor === undefined) this.predecessor = holder
        else if (holder !== null && holder !== this.owner && holder !== this.predecessor) {
          this.successor = holder
          this.logger.info('handing over to a newer scan run', { successor: holder })
          stop()
          return
        }
      } catch (e) {
        // Redis away: the scanner backs off on its own; keep looking.
        this.logger.warn('relay look failed', { error: String(e) })
      }
      if (!this.ended) this.timer = setTimeout(look, next())
    }
    const first = Math.min(this.options.firstLookMs ?? (onTick ? RELAY_FIRST_LOOK_MS : every), after)
    this.timer = setTimeout(look, Math.max(0, started + first - Date.now()))
  }

  /** Stops looking (the run ended). */
  end(): void {
    this.ended = true
    clearTimeout(this.timer)
  }

  private get logger(): Log {
    return this.options.logger ?? defaultLog()
  }
}
