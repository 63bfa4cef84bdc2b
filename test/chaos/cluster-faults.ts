// The chaos run's Redis fault on a Cluster (--cluster): kill -9 of a master serving slots (after cutting its replica
// off for 300 ms, when asked); the Cluster promotes the replica by itself (cluster-node-timeout); the killed node
// comes back on its port with its cluster config and rejoins as a replica of the one promoted. Ends once the live
// nodes agree on the slots and every master has its replica online again (or 30 s).
import { sleep } from '../../devkit/sleep'
import type { ClusterNode, LocalRedisCluster } from '../../local/redis-cluster'
import type { SlotRange } from '../../local/redis-cluster-admin'
import type { FaultContext, FaultReport } from './faults'
import { killAfterCut } from '../support/replica-cut'

const alive = (n: ClusterNode) => n.server.process.exitCode === null && n.server.process.signalCode === null

/** Each master serving slots now, with one of its slots. */
async function servingMasters(cluster: LocalRedisCluster): Promise<{ node: ClusterNode; slot: number }[]> {
  const ask = [...cluster.nodes, ...cluster.replicas].find(alive)
  if (!ask) throw new Error('no live cluster node')
  const r = cluster.connect(ask)
  try {
    const ranges = (await r.cluster('SLOTS')) as unknown as SlotRange[]
    const byId = new Map<string, number>()
    for (const [lo, , [, , id]] of ranges) if (!byId.has(id)) byId.set(id, lo)
    return [...byId].map(([id, slot]) => ({ node: cluster.nodeById(id), slot }))
  } finally {
    r.disconnect()
  }
}

export async function masterKill(
  ctx: FaultContext,
  cluster: LocalRedisCluster,
  cutFirst: boolean,
): Promise<FaultReport> {
  const { node, slot } = ctx.random.pick(await servingMasters(cluster))
  const replicas = await cluster.replicasOf(node)
  await killAfterCut(
    node.port,
    replicas.map((n) => n.port),
    cutFirst ? 300 : 0,
    () => cluster.kill(node),
  )
  let owner = node
  const deadline = Date.now() + 30_000
  while (owner === node && Date.now() < deadline) {
    await sleep(200)
    owner = await cluster.ownerOf(slot).catch(() => node)
  }
  await cluster.restart(node)
  await cluster.settled(30_000).catch(() => undefined)
  return {
    kind: cutFirst ? 'replica-cut-primary-kill' : 'primary-kill',
    target: node.address,
    detail: owner === node ? 'no promotion within 30 s' : `the Cluster promoted ${owner.address}`,
  }
}
