// Why a pending job waits past its due time under flow control, for its view (GET /jobs/{id}): a held job has left
// the due list (it waits in the inflight set, like a retry: lua/flow-hold.lua), so without this it looks like any job
// scheduled later. Read only, a few ZSCOREs, and only for a job whose view says scheduled.
import { isoTime } from '../shared/iso-time'
import type { JobView } from '../store/job-store'
import type { Keyspace } from '../store/keys'
import type { ScriptedClient } from '../store/scripts'
import { flowName, type FlowTarget, flowTarget } from './flow-names'
import { readFlowSettings } from './flow-settings'

/** A pause of its queue, key or a tag holds it (its place in due order kept), or a rate holds it until `until`. */
export type HeldReason =
  | { reason: 'paused'; queue: string; dueAt: string }
  | { reason: 'paused'; flowKey: string; dueAt: string }
  | { reason: 'paused'; tag: string; dueAt: string }
  | { reason: 'rate'; queue: string; until: string }
  | { reason: 'rate'; flowKey: string; until: string }

/** The job's view, with `held` when flow control holds it. */
export async function withHeldReason(
  redis: ScriptedClient,
  keys: Keyspace,
  view: JobView,
): Promise<JobView & { held?: HeldReason }> {
  if (view.status !== 'scheduled') return view
  const shard = keys.locate(view.id).shard
  const targets: FlowTarget[] = [{ queue: view.queue }, ...(view.flowKey ? [{ flowKey: view.flowKey }] : [])]
  const names = targets.map(flowName)
  // A tag is paused, never rated (src/direct/flow-control.ts): its held set is read, not a bucket.
  const pauses = [...names, ...(view.tags ?? []).map((tag) => flowName({ tag }))]
  // Held jobs wait in the inflight set; a job in its due bucket is merely scheduled, whatever sets name it (and costs
  // this one read).
  const waitsUntil = await redis.zscore(shard.inflight, view.id)
  if (waitsUntil === null) return view
  const places = await Promise.all([
    ...pauses.map((name) => redis.zscore(shard.held(name), view.id)),
    ...names.map((name) => redis.zscore(keys.rateShard(name).rateBucket(name).slots, view.id)),
  ])
  const paused = pauses.findIndex((_, i) => places[i] !== null)
  if (paused >= 0)
    return { ...view, held: { reason: 'paused', ...targetOf(pauses[paused]!), dueAt: isoTime(Number(places[paused])) } }
  // A key's rate applies before its queue's (src/flow/flow-gate.ts verdictOf): look at the key's bucket first.
  for (let i = names.length - 1; i >= 0; i--) {
    const at = places[pauses.length + i]
    if (at !== null && at !== undefined)
      return { ...view, held: { reason: 'rate', ...(targetOf(names[i]!) as RatedTarget), until: isoTime(Number(at)) } }
  }
  return pacedReason(redis, keys, view, names, Number(waitsUntil))
}

/**
 * A job a claim held for its rate's pace (lua/includes/flowPace.lua) is in no bucket's slots: it waits unleased in the
 * inflight set, without an error (a dispatch retry has one), until its score. It keeps that time when its rate is
 * changed or removed (docs/flow-control.md), so it is shown held by the rate that paced it even once that is gone.
 */
async function pacedReason(
  redis: ScriptedClient,
  keys: Keyspace,
  view: JobView,
  names: readonly string[],
  untilMs: number,
): Promise<JobView & { held?: HeldReason }> {
  const shard = keys.locate(view.id).shard
  const [lease, failed, settings, paces] = await Promise.all([
    redis.hget(shard.leases, view.id),
    redis.hexists(shard.errors, view.id),
    readFlowSettings(redis, keys),
    redis.hmget(shard.flowPace, ...names),
  ])
  if (!lease?.endsWith(':') || failed) return view
  // The key's rate before its queue's (names: the queue's, then the key's): a rate set now, else one this shard paced
  // lately (its pace state outlives the rate as long as its held jobs may wait: flowPace.lua).
  const byKeyFirst = [...names].reverse()
  const name = byKeyFirst.find((n) => settings.rates.has(n)) ?? byKeyFirst.find((n) => paces[names.indexOf(n)] !== null)
  return name
    ? { ...view, held: { reason: 'rate', ...(targetOf(name) as RatedTarget), until: isoTime(untilMs) } }
    : view
}

/** A queue or a key: the targets a rate is set on. */
type RatedTarget = { queue: string } | { flowKey: string }

function targetOf(name: string): FlowTarget {
  return flowTarget(name)!
}
