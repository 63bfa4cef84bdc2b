// Flow control for the direct client and the HTTP API (docs/flow-control.md): pause and resume a target queue or a
// flow key, give either a rate. Validates as every other input is validated (ValidationError naming the field), then
// changes the settings in Redis (src/flow/flow-settings.ts), which every scanner follows.
import type { Config } from '../config'
import { ValidationError, type ErrorDetail } from '../errors'
import {
  defaultBurst,
  FLOW_KEY_PATTERN,
  FLOW_KEY_RULE,
  type FlowRate,
  type FlowSettingInput,
  flowSettingInputSchema,
  type FlowTarget,
} from '../flow/flow-names'
import {
  type FlowEntry,
  flowEntries,
  pauseFlow,
  readFlowSettings,
  readHeld,
  resumeFlow,
  setFlowRate,
} from '../flow/flow-settings'
import { isoTime } from '../shared/iso-time'
import type { JobStore } from '../store/job-store'
import { TAG_PATTERN, TAG_RULE } from './tag-rules'

/** One target's settings after a change; `resumed`: the held jobs a resume put back to leave. */
export type FlowChange = FlowEntry & { resumed?: number }

export class FlowControl {
  constructor(
    private readonly store: Pick<JobStore, 'redis' | 'keys' | 'replication'>,
    private readonly config: Pick<Config, 'queues'>,
  ) {}

  /** Every queue and flow key with a setting: paused, or a rate. */
  async list(): Promise<FlowEntry[]> {
    return flowEntries(await readFlowSettings(this.store.redis, this.store.keys))
  }

  /**
   * Changes a queue's or a key's settings: `paused` true holds its jobs from the next claim on (pending, in due order),
   * false sends the held ones in due order; `rate` (jobs/s, `burst` at once) limits its sends, null removes it.
   */
  async change(target: FlowTarget, input: FlowSettingInput | unknown): Promise<FlowChange> {
    this.checkTarget(target)
    const parsed = flowSettingInputSchema.safeParse(input)
    if (!parsed.success) {
      throw new ValidationError(
        parsed.error.issues.map((i) => ({
          path: i.path.join('.'),
          message: i.code === 'unrecognized_keys' ? 'is not a known field; known: paused, rate, burst' : i.message,
        })),
      )
    }
    const { paused, rate, burst } = parsed.data
    if (burst !== undefined && (rate === undefined || rate === null)) {
      throw new ValidationError([{ path: 'burst', message: 'is only allowed with a rate' }])
    }
    if ('tag' in target && rate !== undefined) {
      throw new ValidationError([{ path: 'rate', message: 'a tag is paused and resumed only: it takes no rate' }])
    }
    if (paused === undefined && rate === undefined) {
      throw new ValidationError([{ path: '', message: 'must set "paused", "rate" or both' }])
    }
    const { redis, keys, replication } = this.store
    // The rate first: a resume sends the held jobs at the new one.
    if (rate !== undefined) {
      const limit = rate === null ? null : { rate, burst: burst ?? defaultBurst(rate) }
      await setFlowRate(redis, keys, target, limit, { replication })
    }
    let resumed: number | undefined
    if (paused === true) await pauseFlow(redis, keys, target, { replication })
    if (paused === false) resumed = await resumeFlow(redis, keys, target, { replication })
    const entry = (await this.list()).find((e) => sameTarget(e, target)) ?? { ...target, paused: false }
    return { ...entry, ...(resumed === undefined ? {} : { resumed }) }
  }

  pause(target: FlowTarget): Promise<FlowChange> {
    return this.change(target, { paused: true })
  }

  resume(target: FlowTarget): Promise<FlowChange> {
    return this.change(target, { paused: false })
  }

  /** Sets a rate (burst default: a tenth of a second's worth), or with null removes it. */
  setRate(target: FlowTarget, rate: FlowRate | { rate: number; burst?: number } | null): Promise<FlowChange> {
    return this.change(target, rate === null ? { rate: null } : rate)
  }

  /**
   * The due jobs a pause of `target` holds, earliest first (`limit` 1-1,000, default 100): held jobs have left the
   * due list of GET /jobs (they wait, pending, for the resume); GET /jobs/{id} shows each, `held` saying why.
   */
  async held(target: FlowTarget, limit = 100): Promise<{ id: string; runAt: string }[]> {
    this.checkTarget(target)
    if (!Number.isInteger(limit) || limit < 1 || limit > 1_000) {
      throw new ValidationError([{ path: 'limit', message: 'must be an integer from 1 to 1000' }])
    }
    const held = await readHeld(this.store.redis, this.store.keys, target, limit)
    return held.map((h) => ({ id: h.id, runAt: isoTime(h.dueMs) }))
  }

  private checkTarget(target: FlowTarget): void {
    const details: ErrorDetail[] = []
    if ('queue' in target && !Object.hasOwn(this.config.queues, target.queue)) {
      const known = Object.keys(this.config.queues).map((q) => JSON.stringify(q))
      details.push({ path: 'queue', message: `must be one of the configured queues: ${known.join(', ')}` })
    }
    if ('flowKey' in target && !FLOW_KEY_PATTERN.test(target.flowKey)) {
      details.push({ path: 'flowKey', message: FLOW_KEY_RULE })
    }
    if ('tag' in target && !TAG_PATTERN.test(target.tag)) details.push({ path: 'tag', message: TAG_RULE })
    if (details.length) throw new ValidationError(details)
  }
}

function sameTarget(entry: FlowEntry, target: FlowTarget): boolean {
  if ('queue' in target) return 'queue' in entry && entry.queue === target.queue
  if ('flowKey' in target) return 'flowKey' in entry && entry.flowKey === target.flowKey
  return 'tag' in entry && entry.tag === target.tag
}
