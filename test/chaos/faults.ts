// The nemesis's faults, one function each. Every one heals itself before it returns and reports what it did
// (kind, start, end, target): the history's record of the faults. Redis faults go one at a time (a failover must
// finish and the replicas come back before the next), and so do SQS faults; a scanner one fault owns is left alone.
import { sleep } from '../../devkit/sleep'
import { Redis } from 'ioredis'
import type { Fault } from './history'
import type { Random } from './random'
import { kill9, signal, startScanner, type ChaosScanner } from './scanners'
import type { ChaosStage } from './stage'
import { stopChild } from '../../local/redis-server'
import { masterKill } from './cluster-faults'
import { killAfterCut } from '../support/replica-cut'

export type FaultReport = Omit<Fault, 'start' | 'end'>

export interface FaultContext {
  stage: ChaosStage
  random: Random
  leaseMs: number
}

/** A scanner no other fault owns (among those that can take this fault), or undefined. */
export function freeScanner(ctx: FaultContext, proxiedOnly = false): ChaosScanner | undefined {
  const free = ctx.stage.scanners.filter((s) => !s.busy && (!proxiedOnly || s.proxy))
  return free.length ? ctx.random.pick(free) : undefined
}

export async function scannerKill(ctx: FaultContext, s: ChaosScanner): Promise<FaultReport> {
  await kill9(s)
  await sleep(ctx.random.int(300, 3_000))
  await startScanner(s)
  return { kind: 'scanner-kill', target: s.name }
}

export async function scannerPause(ctx: FaultContext, s: ChaosScanner): Promise<FaultReport> {
  const ms = Math.round(ctx.leaseMs * (1.5 + ctx.random.next() * 1.5))
  signal(s, 'SIGSTOP')
  await sleep(ms)
  signal(s, 'SIGCONT')
  return { kind: 'scanner-pause', target: s.name, detail: `SIGSTOP for ${ms} ms (lease ${ctx.leaseMs} ms)` }
}

export async function scannerPartition(ctx: FaultContext, s: ChaosScanner): Promise<FaultReport> {
  const ms = ctx.random.int(2_000, 6_000)
  s.proxy!.partition()
  await sleep(ms)
  s.proxy!.heal()
  return { kind: 'scanner-partition', target: s.name, detail: `cut from Redis for ${ms} ms` }
}

/** Restarts the scanner with its clock off by up to ±30 s for a while, then without. */
export async function scannerSkew(ctx: FaultContext, s: ChaosScanner): Promise<FaultReport> {
  const skew = (ctx.random.chance(0.5) ? 1 : -1) * ctx.random.int(1_000, 30_000)
  if (s.child) await stopChild(s.child)
  await startScanner(s, { CLOCK_SKEW_MS: String(skew) })
  await sleep(ctx.random.int(8_000, 15_000))
  if (s.child) await stopChild(s.child)
  await startScanner(s)
  return { kind: 'scanner-skew', target: s.name, detail: `clock ${skew > 0 ? '+' : ''}${skew} ms` }
}

export async function apiPartition(ctx: FaultContext): Promise<FaultReport> {
  const ms = ctx.random.int(2_000, 6_000)
  const proxy = ctx.stage.apiProxy
  if (!proxy) throw new Error('the API has no partitionable endpoint on this stage')
  proxy.partition()
  await sleep(ms)
  proxy.heal()
  return { kind: 'api-partition', target: 'api', detail: `cut from Redis for ${ms} ms` }
}

export async function sqsRefuse(ctx: FaultContext): Promise<FaultReport> {
  const rate = Math.round((0.2 + ctx.random.next() * 0.4) * 100) / 100
  const ms = ctx.random.int(2_000, 6_000)
  ctx.stage.sqsProxy.setRefuseRate(rate)
  await sleep(ms)
  ctx.stage.sqsProxy.setRefuseRate(0)
  return { kind: 'sqs-refuse', detail: `${Math.round(rate * 100)}% of entries refused for ${ms} ms` }
}

export async function sqsOutage(ctx: FaultContext): Promise<FaultReport> {
  const ms = ctx.random.int(1_000, 4_000)
  await ctx.stage.sqsProxy.cutFor(ms)
  return { kind: 'sqs-outage', detail: `endpoint cut for ${ms} ms` }
}

export async function sqsDropAnswers(ctx: FaultContext): Promise<FaultReport> {
  const stats = ctx.stage.sqsProxy.stats
  const before = stats.answersDropped
  const wanted = ctx.random.int(1, 3)
  ctx.stage.sqsProxy.dropAnswers(wanted)
  const deadline = Date.now() + 5_000
  while (stats.answersDropped < before + wanted && Date.now() < deadline) await sleep(50)
  ctx.stage.sqsProxy.dropAnswers(0)
  const count = stats.answersDropped - before
  return { kind: 'sqs-drop-answers', count, detail: `${count} SendMessageBatch answers dropped after SQS took them` }
}

/** kill -9 of the primary (after cutting its replicas off for 300 ms, when asked); Sentinel promotes a replica; the
 * old node comes back empty, as a replaced node does, and becomes a replica. Ends when the new primary has it back. */
export async function primaryKill(ctx: FaultContext, cutFirst: boolean): Promise<FaultReport> {
  const { setup, cluster } = ctx.stage
  if (cluster) return masterKill(ctx, cluster, cutFirst)
  if (!setup) throw new Error('the stage has neither Sentinel nor a Cluster')
  const address = await setup.currentPrimary()
  const node = ctx.stage.nodes.find((n) => `127.0.0.1:${n.port}` === address)
  if (!node) throw new Error(`the primary ${address} is none of the nodes started`)
  const others = ctx.stage.nodes.filter((n) => n !== node)
  await killAfterCut(
    node.port,
    others.map((n) => n.port),
    cutFirst ? 300 : 0,
    () => node.process.kill('SIGKILL'),
  )
  let promoted = address
  const deadline = Date.now() + 30_000
  while (promoted === address && Date.now() < deadline) {
    await sleep(100)
    promoted = await setup.currentPrimary().catch(() => address)
  }
  // Back empty (a directory of its own), as a replica of the primary now: local/redis-sentinel.ts's restart().
  const restarted = await setup.restart(node)
  ctx.stage.nodes[ctx.stage.nodes.indexOf(node)] = restarted
  await replicasOnline(promoted, 2, 30_000)
  return {
    kind: cutFirst ? 'replica-cut-primary-kill' : 'primary-kill',
    target: address,
    detail: promoted === address ? 'no promotion within 30 s' : `Sentinel promoted ${promoted}`,
  }
}

async function replicasOnline(address: string, n: number, timeoutMs: number): Promise<void> {
  const [host, port] = address.split(':')
  const client = new Redis({ host, port: Number(port), lazyConnect: true, maxRetriesPerRequest: 1 })
  client.on('error', () => undefined)
  try {
    const deadline = Date.now() + timeoutMs
    while (Date.now() < deadline) {
      const info = await client.info('replication').catch(() => '')
      if (info.split('\n').filter((l) => /^slave\d+:.*state=online/.test(l)).length >= n) return
      await sleep(200)
    }
  } finally {
    client.disconnect()
  }
}
