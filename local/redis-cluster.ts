// A private Redis Cluster on loopback (tests, bench): N masters, each with R replicas (none by default), in memory.
//
// Each node also gets an explicit cluster bus port (`cluster-port`, Redis 7+): the default bus port is port + 10000,
// which is neither guaranteed free nor even valid for the high ephemeral ports the OS hands out.
// Slot moves go through `redis-cli --cluster reshard / rebalance` (what an operator runs), plus `moveSlot`, which
// migrates one slot key by key with pauses, so a test can keep a slot half-migrated (ASK / TRYAGAIN) for a while.
// A node can be killed (-9) and restarted: it keeps its cluster config file (its id), so it rejoins, empty, as what
// the others now say it is (a master that was failed over comes back as a replica of the one promoted).
//
// `cluster-require-full-coverage no`: while one master is down and not yet replaced, the other masters keep serving
// their own slots (with the Redis default, yes, every node refuses every command with CLUSTERDOWN until the
// failover is over). The project recommends it for any self-run cluster; docs/operations.md says why.
import { sleep } from '../devkit/sleep'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Redis } from 'ioredis'
import { redisCli, waitForAgreement, type SlotRange } from './redis-cluster-admin'
import { freePort } from './ports'
import { startRedis, type LocalRedis } from './redis-server'
import { tlsServerArgs, type TestCertificates } from './tls-certs'

export interface ClusterNode {
  host: string
  port: number
  /** "127.0.0.1:port", the form REDIS_CLUSTER_NODES takes. */
  address: string
  id: string
  /** The process now (replaced by restart()). */
  server: LocalRedis
  /** redis-server's arguments after the port, to restart it the same way. */
  args: string[]
}

export interface LocalRedisCluster {
  /** The masters as created (a failover may have made one of them a replica since: see masterOf). */
  nodes: ClusterNode[]
  /** The replicas as created, `replicas` per master. */
  replicas: ClusterNode[]
  /** Seed list for REDIS_CLUSTER_NODES / connectRedis({ clusterNodes }). */
  addresses: string[]
  password?: string
  /** `redis-cli --cluster reshard`: move `slots` slots from one master to another. */
  reshard(from: ClusterNode, to: ClusterNode, slots: number): Promise<void>
  /** `redis-cli --cluster rebalance`: even the slots out over all masters (also the empty ones). */
  rebalance(): Promise<void>
  /**
   * Move one slot to `to`, `keysPerStep` keys at a time with `pauseMs` between steps. `whileMigrated` runs once every
   * key is on `to` but the slot is still the old owner's (every command on it answered ASK), before the move ends.
   */
  moveSlot(
    slot: number,
    to: ClusterNode,
    options?: { keysPerStep?: number; pauseMs?: number; whileMigrated?: () => Promise<void> },
  ): Promise<void>
  /** The master that serves `slot` now. */
  ownerOf(slot: number): Promise<ClusterNode>
  /** Slots each master serves, by node id. */
  slotCounts(): Promise<Map<string, number>>
  /** A plain (non-cluster) connection to one node; the caller quits it. */
  connect(node: ClusterNode): Redis
  /** The node (master or replica) with this id. */
  nodeById(id: string): ClusterNode
  /** The replicas of `master` now (CLUSTER REPLICAS, as a live node sees it). */
  replicasOf(master: ClusterNode): Promise<ClusterNode[]>
  /** kill -9 of a node's process. */
  kill(node: ClusterNode): Promise<void>
  /** Starts a killed node again on its port, with its cluster config: it rejoins. */
  restart(node: ClusterNode): Promise<void>
  /** Waits until the live nodes agree on the slots and every serving master has its replicas online. */
  settled(timeoutMs?: number): Promise<void>
  stop(): Promise<void>
}

export interface LocalRedisClusterOptions {
  masters?: number
  /** Replicas per master (redis-cli --cluster-replicas). Default 0. */
  replicas?: number
  /** cluster-node-timeout: how long a silent master takes to be failed over. Default 5,000 ms. */
  nodeTimeoutMs?: number
  /** cluster-require-full-coverage. Default false (no): the other masters serve on while one is down. */
  requireFullCoverage?: boolean
  /** Protects every node with requirepass / masterauth. */
  password?: string
  /** TLS only, on the client and the cluster bus (certificates from local/tls-certs.ts). */
  tls?: TestCertificates
  extraArgs?: string[]
}

export async function startRedisCluster(options: LocalRedisClusterOptions = {}): Promise<LocalRedisCluster> {
  const masters = options.masters ?? 3
  const perMaster = options.replicas ?? 0
  if (masters < 3) throw new RangeError('redis-cli --cluster create needs at least 3 masters')
  const dir = mkdtempSync(join(tmpdir(), 'sdq-cluster-'))
  const password = options.password
  const auth = [
    ...(password ? ['-a', password, '--no-auth-warning'] : []),
    ...(options.tls ? ['--tls', '--cacert', options.tls.caFile] : []),
  ]
  const all: ClusterNode[] = []
  const started: LocalRedis[] = []
  const stopAll = async () => {
    await Promise.all([...new Set([...started, ...all.map((n) => n.server)])].map((s) => s.stop()))
    rmSync(dir, { recursive: true, force: true })
  }
  const connect = (node: { port: number }) =>
    new Redis({
      host: '127.0.0.1',
      port: node.port,
      password,
      lazyConnect: false,
      maxRetriesPerRequest: 1,
      tls: options.tls ? { ca: readFileSync(options.tls.caFile) } : undefined,
    })
  try {
    for (let i = 0; i < masters * (1 + perMaster); i++) {
      const port = await freePort()
      const busPort = await freePort()
      const args = [
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        join(dir, `nodes-${port}.conf`),
        '--cluster-port',
        String(busPort),
        '--cluster-node-timeout',
        String(options.nodeTimeoutMs ?? 5_000),
        '--cluster-require-full-coverage',
        options.requireFullCoverage ? 'yes' : 'no',
        // Otherwise a master that gives away its last slot turns into a replica (Redis 7), and rebalance
        // can no longer hand slots back to it.
        '--cluster-allow-replica-migration',
        'no',
        '--dir',
        dir,
        // A replica's full sync writes an RDB file: each node its own.
        '--dbfilename',
        `dump-${port}.rdb`,
        ...(password ? ['--requirepass', password, '--masterauth', password] : []),
        ...(options.tls ? [...tlsServerArgs(options.tls, port), '--tls-cluster', 'yes'] : []),
        ...(options.extraArgs ?? []),
      ]
      const server = await startRedis({ port, extraArgs: args })
      started.push(server)
      all.push({ host: '127.0.0.1', port, address: `127.0.0.1:${port}`, id: '', server, args })
    }
    await redisCli([
      ...auth,
      '--cluster',
      'create',
      ...all.map((n) => n.address),
      '--cluster-replicas',
      String(perMaster),
      '--cluster-yes',
    ])
    const nodes: ClusterNode[] = []
    const replicas: ClusterNode[] = []
    for (const node of all) {
      const r = connect(node)
      try {
        node.id = String(await r.cluster('MYID'))
        const [role] = (await r.call('ROLE')) as [string]
        ;(role === 'master' ? nodes : replicas).push(node)
      } finally {
        r.disconnect()
      }
    }
    const live = () => all.filter((n) => n.server.process.exitCode === null && n.server.process.signalCode === null)
    const settled = (timeoutMs?: number) => waitForAgreement(live(), connect, perMaster, timeoutMs)
    // After a slot move: the slots agree (a replica a test has cut off may stay so).
    const agreed = () => waitForAgreement(live(), connect)
    await settled(30_000)

    const nodeById = (id: string) => {
      const node = all.find((n) => n.id === id)
      if (!node) throw new Error(`unknown cluster node ${id}`)
      return node
    }
    const ownerOf = async (slot: number) => {
      const r = connect(live()[0]!)
      try {
        const shards = (await r.cluster('SLOTS')) as unknown as SlotRange[]
        const range = shards.find(([lo, hi]) => slot >= lo && slot <= hi)
        if (!range) throw new Error(`slot ${slot} is not served`)
        return nodeById(range[2][2])
      } finally {
        r.disconnect()
      }
    }

    return {
      nodes,
      replicas,
      addresses: nodes.map((n) => n.address),
      password,
      connect,
      ownerOf,
      nodeById,
      settled,
      async replicasOf(master) {
        const r = connect(live().find((n) => n !== master)!)
        try {
          const lines = (await r.cluster('REPLICAS', master.id)) as unknown as string[]
          return lines.filter((l) => !/\bfail\b/.test(l)).map((l) => nodeById(l.split(' ')[0]!))
        } finally {
          r.disconnect()
        }
      },
      async kill(node) {
        const child = node.server.process
        if (child.exitCode !== null || child.signalCode !== null) return
        const exited = new Promise((ok) => child.once('exit', ok))
        child.kill('SIGKILL')
        await exited
      },
      async restart(node) {
        node.server = await startRedis({ port: node.port, extraArgs: node.args })
      },
      async reshard(from, to, slots) {
        await redisCli([
          ...auth,
          '--cluster',
          'reshard',
          from.address,
          '--cluster-from',
          from.id,
          '--cluster-to',
          to.id,
          '--cluster-slots',
          String(slots),
          '--cluster-yes',
        ])
        await agreed()
      },
      async rebalance() {
        await redisCli([...auth, '--cluster', 'rebalance', nodes[0]!.address, '--cluster-use-empty-masters'])
        await agreed()
      },
      async moveSlot(slot, to, { keysPerStep = 10, pauseMs = 0, whileMigrated } = {}) {
        const from = await ownerOf(slot)
        if (from.id === to.id) return
        const source = connect(from)
        const target = connect(to)
        try {
          // The order redis-cli uses: importing on the target first, so ASK redirects are accepted at once.
          await target.cluster('SETSLOT', slot, 'IMPORTING', from.id)
          await source.cluster('SETSLOT', slot, 'MIGRATING', to.id)
          for (;;) {
            const keys = (await source.cluster('GETKEYSINSLOT', slot, keysPerStep)) as string[]
            if (keys.length === 0) break
            const authArgs = password ? ['AUTH', password] : []
            await source.call('MIGRATE', '127.0.0.1', to.port, '', 0, 10_000, 'REPLACE', ...authArgs, 'KEYS', ...keys)
            if (pauseMs) await sleep(pauseMs)
          }
          await whileMigrated?.()
          // Target first, then source, then the rest: the owner change spreads from the new owner.
          for (const node of [to, from, ...nodes.filter((n) => n !== to && n !== from)]) {
            const r = node === to ? target : node === from ? source : connect(node)
            await r.cluster('SETSLOT', slot, 'NODE', to.id)
            if (r !== target && r !== source) r.disconnect()
          }
        } finally {
          source.disconnect()
          target.disconnect()
        }
        await agreed()
      },
      async slotCounts() {
        const r = connect(nodes[0]!)
        try {
          const shards = (await r.cluster('SLOTS')) as unknown as SlotRange[]
          const counts = new Map(nodes.map((n) => [n.id, 0]))
          for (const [lo, hi, [, , id]] of shards) counts.set(id, (counts.get(id) ?? 0) + hi - lo + 1)
          return counts
        } finally {
          r.disconnect()
        }
      },
      stop: stopAll,
    }
  } catch (e) {
    await stopAll()
    throw e
  }
}
