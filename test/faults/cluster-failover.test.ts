// Scenario: a Redis Cluster of 3 masters with a replica each (node timeout 1,500 ms), 8 shards over them; the API
// side and a scanner process connect as a Cluster client. Under enqueue + cancel + dispatch load the master of shard
// 0 is killed (-9); the Cluster promotes its replica, and the old node comes back (empty) to be a replica. Measured
// with the default settings (REDIS_WAIT_REPLICAS unset: auto) and with 0: acknowledged enqueues lost, acknowledged
// cancels that fired anyway, duplicates, how long until writes on the killed master's shards are acknowledged again,
// and the longest write gap on the other masters' shards meanwhile. With the default, nothing acknowledged may be
// lost or resurrected.
//
// The "cut" variant first breaks the replica's link to its master for CUT_MS (a network blip), then kills the master:
// what it acknowledged meanwhile exists nowhere else. With the default settings the replica watch sees no replica
// online on that shard, whose marker says it had one, and refuses its writes (503) until the promotion; the other
// shards go on. `npm test` runs that variant shortened; the fault suite runs all of them, and once with
// cluster-require-full-coverage yes (the Redis default) to measure what it costs the healthy shards.
import { sleep } from '../../devkit/sleep'
import { afterEach, describe, it } from 'vitest'
import { startRedisCluster, type ClusterNode, type LocalRedisCluster } from '../../local/redis-cluster'
import { loadConfig } from '../../src/config'
import { createEngine, type Engine } from '../../src/store/engine'
import type { ShardKeys } from '../../src/store/keys'
import { killAfterCut } from '../support/replica-cut'
import { expectFailoverOutcome, longestGapMs, recoveredAfterMs, tallyOutcome, writeLoad } from './failover-load'
import { spawnScanner, stageEnv, startSqsStage, waitForDrain, type Worker } from './harness'
import { recordFigures } from './results'
import { FULL, pick } from './scale'

const LOAD_MS = pick(7_000, 40_000)
const KILL_AT_MS = pick(2_000, 12_000)
const LANES = pick(4, 8)
const CUT_MS = 300
const NODE_TIMEOUT_MS = 1_500

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step().catch(() => undefined)
})

type WaitSetting = 0 | 'default'

async function stageFor(waitReplicas: WaitSetting, requireFullCoverage: boolean) {
  const cluster = await startRedisCluster({
    masters: 3,
    replicas: 1,
    nodeTimeoutMs: NODE_TIMEOUT_MS,
    requireFullCoverage,
  })
  cleanup.push(() => cluster.stop())
  const { endpoint, sqsClient, queueUrl } = await startSqsStage(cleanup)
  const env: Record<string, string> = {
    ...stageEnv('cfo', queueUrl, endpoint),
    REDIS_CLUSTER_NODES: cluster.addresses.join(','),
    SHARDS: '8',
    ...(waitReplicas === 'default' ? {} : { REDIS_WAIT_REPLICAS: String(waitReplicas) }),
    REDIS_WAIT_TIMEOUT_MS: '500',
  }
  const engine: Engine = createEngine(loadConfig(env), { commandTimeoutMs: 2_000 })
  engine.redis.on('error', () => undefined)
  cleanup.push(() => engine.close())
  return { cluster, sqsClient, queueUrl, env, engine }
}

/** The master serving shard 0, and the shards it serves. */
async function victimOf(cluster: LocalRedisCluster, engine: Engine) {
  const slots = new Map<ShardKeys, number>()
  for (const shard of engine.keys.shards) slots.set(shard, Number(await engine.redis.cluster('KEYSLOT', shard.tag)))
  const victim = await cluster.ownerOf(slots.get(engine.keys.shards[0]!)!)
  const killed = new Set<ShardKeys>()
  for (const [shard, slot] of slots) if ((await cluster.ownerOf(slot)).id === victim.id) killed.add(shard)
  return { victim, killed, slot: slots.get(engine.keys.shards[0]!)! }
}

/**
 * Kills `victim` (after cutting its replica off for `cutMs`, when asked), waits for the Cluster to promote the
 * replica, then brings the old node back. Returns timings.
 */
async function failover(
  cluster: LocalRedisCluster,
  victim: ClusterNode,
  slot: number,
  cutMs: number,
  onKill: (at: number) => void,
) {
  const replicas = await cluster.replicasOf(victim)
  let killedAt = 0
  await killAfterCut(
    victim.port,
    replicas.map((n) => n.port),
    cutMs,
    () => {
      killedAt = Date.now()
      onKill(killedAt)
      return cluster.kill(victim)
    },
    // strict: a cut that failed, or did not hold until the kill, fails the case (it would pass as a plain kill)
    { strict: true },
  )
  let owner = victim.id
  while (owner === victim.id && Date.now() - killedAt < 30_000) {
    await sleep(50)
    owner = await cluster.ownerOf(slot).then(
      (n) => n.id,
      () => victim.id,
    )
  }
  const promotedAfterMs = Date.now() - killedAt
  // Only after the promotion: an empty node back as master before it would be synced *from* by its replica.
  await cluster.restart(victim)
  return { killedAt, promotedAfterMs, promoted: owner !== victim.id }
}

const variants: { waitReplicas: WaitSetting; cutMs: number; requireFullCoverage?: boolean }[] = [
  ...(FULL
    ? [
        { waitReplicas: 'default' as const, cutMs: 0 },
        { waitReplicas: 0 as const, cutMs: 0 },
        { waitReplicas: 0 as const, cutMs: CUT_MS },
        { waitReplicas: 'default' as const, cutMs: 0, requireFullCoverage: true },
      ]
    : []),
  { waitReplicas: 'default', cutMs: CUT_MS },
]

describe.each(variants)(
  'Cluster master killed (-9) and replaced by its replica, cut off for $cutMs ms before, REDIS_WAIT_REPLICAS=$waitReplicas',
  ({ waitReplicas, cutMs, requireFullCoverage = false }) => {
    const title =
      waitReplicas !== 0
        ? 'loses no acknowledged enqueue and fires no acknowledged cancel'
        : 'measures what is lost without replicated writes'
    it(
      `${title}${requireFullCoverage ? ' (cluster-require-full-coverage yes)' : ''}`,
      async () => {
        // prepare: one scanner process, dispatching from the Cluster
        const stage = await stageFor(waitReplicas, requireFullCoverage)
        const { victim, killed, slot } = await victimOf(stage.cluster, stage.engine)
        const onKilled = (id: string) => killed.has(stage.engine.keys.locate(id).shard)
        const healthyShard = (id: string) => !onKilled(id)
        const worker: Worker = await spawnScanner(stage.env)
        cleanup.push(() => worker.stop())
        await worker.ready

        // act: writes for LOAD_MS (and on until the killed shards take writes again, at most 30 s); the master of
        // shard 0 dies at KILL_AT_MS
        const started = Date.now()
        let killedAt = Infinity
        const tag = `c${waitReplicas}${cutMs ? 'c' : ''}${requireFullCoverage ? 'f' : ''}`
        const load = writeLoad(stage.engine, tag, LANES, (r) => {
          const now = Date.now()
          return (
            now < started + LOAD_MS || (recoveredAfterMs(r, killedAt, onKilled) === null && now < killedAt + 30_000)
          )
        })
        // Two lanes on the other masters' shards alone: a lane of the main load waits out a write on the killed
        // master, so its gaps say nothing about the healthy shards; these do.
        let loading = true
        const probe = writeLoad(stage.engine, `${tag}h`, 2, () => loading, healthyShard)
        await sleep(KILL_AT_MS)
        const fault = await failover(stage.cluster, victim, slot, cutMs, (at) => (killedAt = at))
        const record = await load
        loading = false
        const healthyRecord = await probe
        const drained = await waitForDrain(stage.engine, pick(30_000, 120_000))
        await worker.stop()

        // assess
        const enqueued = [...record.enqueued, ...healthyRecord.enqueued]
        const cancelled = [...record.cancelled, ...healthyRecord.cancelled]
        const tally = await tallyOutcome(stage, enqueued, cancelled)
        const { lost, resurrected, duplicated } = tally
        const recoveredMs = recoveredAfterMs(record, fault.killedAt, onKilled)
        const outage = [fault.killedAt, fault.killedAt + fault.promotedAfterMs + 1_000] as const
        const healthyGapMs = longestGapMs(healthyRecord, ...outage, healthyShard)
        const healthyGapBeforeMs = longestGapMs(healthyRecord, started + 1_000, fault.killedAt, healthyShard)
        const refusedHealthy = [...record.refusals, ...healthyRecord.refusals].filter(([, id]) =>
          healthyShard(id),
        ).length
        const settings = `${waitReplicas === 'default' ? 'default settings (REDIS_WAIT_REPLICAS unset: auto)' : `REDIS_WAIT_REPLICAS=${waitReplicas}`}${requireFullCoverage ? ', cluster-require-full-coverage yes' : ''}`
        recordFigures({
          case: `cluster-failover-${cutMs ? 'cut-' : ''}${waitReplicas === 'default' ? 'defaults' : `wait${waitReplicas}`}${requireFullCoverage ? '-full-coverage' : ''}`,
          scenario: `Redis Cluster, 3 masters + 1 replica each (node timeout ${NODE_TIMEOUT_MS} ms), 8 shards; kill -9 of shard 0's master under enqueue/cancel/dispatch load${cutMs ? `, its replica cut off for the ${cutMs} ms before` : ''}; ${settings}`,
          jobs: enqueued.length + cancelled.length,
          faults: `1 x kill -9 of a master serving ${killed.size} of 8 shards; its replica promoted after ${fault.promotedAfterMs} ms`,
          lost: lost.length,
          duplicated,
          notes: {
            acknowledgedCancels: cancelled.length,
            cancelsFiredAnyway: resurrected.length,
            writesRefused: record.refused + healthyRecord.refused,
            refusedOnHealthyShards: refusedHealthy,
            refusedAsUnconfirmed: record.refusedUnconfirmed + healthyRecord.refusedUnconfirmed,
            killedShardsWritableAgainAfterMs: recoveredMs ?? 'never',
            healthyShardsLongestGapMs: healthyGapMs,
            healthyShardsLongestGapBeforeKillMs: healthyGapBeforeMs,
            drained,
          },
        })
        expectFailoverOutcome({ fault, record, tally, recoveredMs, drained, replicated: waitReplicas !== 0, cutMs })
      },
      pick(120_000, 300_000),
    )
  },
)
