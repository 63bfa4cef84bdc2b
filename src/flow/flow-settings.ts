// Flow control's settings (docs/flow-control.md): which queues and flow keys are paused, and their rates. Kept in
// Redis (one HASH, Keyspace.flowSettingsKey), so every scan worker of every deployment shares them and they outlive
// scanner crashes and failovers. Each change bumps the settings' epoch and writes it on every shard: the next claim of
// any shard returns it (lua/claim.lua), and a scanner holding an older one reads the settings again before it sends.
import type { Keyspace } from '../store/keys'
import { guard } from '../store/redis/redis-errors'
import type { RedisClient, ScriptedClient } from '../store/scripts'
import { type FlowRate, type FlowTarget, flowName, flowTarget, MIN_RATE } from './flow-names'
import { releaseHeld } from './flow-resume'
import { announceEpoch, writeSetting } from './flow-set'
import type { ReplicationOptions } from '../store/redis/replication'

/** The settings as a scanner reads them: names ("q:<queue>", "k:<flow key>") paused, and their rates. */
export interface FlowSettings {
  epoch: string
  paused: ReadonlySet<string>
  rates: ReadonlyMap<string, FlowRate>
}

export const NO_FLOW_SETTINGS: FlowSettings = { epoch: '0', paused: new Set(), rates: new Map() }

/** One target's settings, as the API lists them. */
export type FlowEntry = FlowTarget & { paused: boolean; rate?: number; burst?: number }

/** Reads every setting (one HGETALL of a small hash). */
export async function readFlowSettings(redis: RedisClient, keys: Keyspace): Promise<FlowSettings> {
  const fields = await guard(redis.hgetall(keys.flowSettingsKey))
  const paused = new Set<string>()
  const rates = new Map<string, FlowRate>()
  for (const [field, value] of Object.entries(fields)) {
    if (field.startsWith('p:')) paused.add(field.slice(2))
    else if (field.startsWith('r:')) {
      const [rate, burst] = value.split('/').map(Number)
      // A rate stored below MIN_RATE (an older client's) is held to it: the claims' pace could not count it.
      if (rate! > 0 && burst! >= 1) rates.set(field.slice(2), { rate: Math.max(rate!, MIN_RATE), burst: burst! })
    }
  }
  return { epoch: fields.epoch ?? '0', paused, rates }
}

/** The settings per target, for GET /flow and `sdq flow`. */
export function flowEntries(settings: FlowSettings): FlowEntry[] {
  const names = new Set([...settings.paused, ...settings.rates.keys()])
  return [...names].sort().flatMap((name) => {
    const target = flowTarget(name)
    if (!target) return []
    const rate = settings.rates.get(name)
    return [{ ...target, paused: settings.paused.has(name), ...(rate ? rate : {}) }]
  })
}

/**
 * Writes one field (or removes it) and bumps the epoch; tells every shard unless `announce` is false (a resume tells
 * each shard once its held jobs are back: lua/flow-resume.lua). Each write confirmed by replicas as `replication`
 * asks (the store's: REDIS_WAIT_REPLICAS). Returns the new epoch.
 */
async function change(
  redis: ScriptedClient,
  keys: Keyspace,
  field: string,
  value: string | null,
  o: ChangeOptions & { announce?: boolean } = {},
): Promise<string> {
  const epoch = await writeSetting(redis, keys, field, value, o.replication)
  // Claims begun after these writes return the new epoch: their scanners read the settings again before sending.
  if (o.announce !== false) await announceEpoch(redis, keys, epoch, o.replication)
  return epoch
}

export interface ChangeOptions {
  /** Replicas that confirm each write (the store's replication); absent: none waited for. */
  replication?: ReplicationOptions
}

/** Pauses a queue or a flow key: from when this resolves, the jobs claimed are held, pending, in due order. */
export async function pauseFlow(
  redis: ScriptedClient,
  keys: Keyspace,
  target: FlowTarget,
  o: ChangeOptions = {},
): Promise<void> {
  await change(redis, keys, `p:${flowName(target)}`, '1', o)
}

/**
 * Resumes a queue or a flow key: the jobs held for its pause leave in due order (at its rate, if it has one). Safe to
 * repeat: a resume that stopped half way (its caller died) is finished by the next, or by the held jobs' recheck.
 * Returns how many held jobs it put back.
 */
export async function resumeFlow(
  redis: ScriptedClient,
  keys: Keyspace,
  target: FlowTarget,
  o: ChangeOptions = {},
): Promise<number> {
  const name = flowName(target)
  const epoch = await change(redis, keys, `p:${name}`, null, { ...o, announce: false })
  return releaseHeld(redis, keys, name, epoch)
}

/** Sets (or with null, removes) the rate of a queue or a flow key. */
export async function setFlowRate(
  redis: ScriptedClient,
  keys: Keyspace,
  target: FlowTarget,
  rate: FlowRate | null,
  o: ChangeOptions = {},
): Promise<void> {
  await change(redis, keys, `r:${flowName(target)}`, rate ? `${rate.rate}/${rate.burst}` : null, o)
}

/** A job held for a pause: its id and its place in due order (ms). */
export interface HeldJob {
  id: string
  dueMs: number
}

/** The jobs held for the pause of `target`, earliest first, `limit` at most (ZRANGE of each shard's held set). */
export async function readHeld(redis: RedisClient, keys: Keyspace, target: FlowTarget, limit: number) {
  const name = flowName(target)
  const perShard = await guard(
    Promise.all(keys.shards.map((s) => redis.zrange(s.held(name), '0', String(limit - 1), 'WITHSCORES'))),
  )
  const held: HeldJob[] = []
  for (const flat of perShard)
    for (let i = 0; i < flat.length; i += 2) held.push({ id: flat[i]!, dueMs: Number(flat[i + 1]) })
  return held.sort((a, b) => a.dueMs - b.dueMs || (a.id < b.id ? -1 : 1)).slice(0, limit)
}
