// A private Redis Cluster on loopback (tests, bench): N masters, no replicas, in memory only.
//
// Each node also gets an explicit cluster bus port (`cluster-port`, Redis 7+): the default bus port is port + 10000,
// which is neither guaranteed free nor even valid for the high ephemeral ports the OS hands out.
// Slot moves go through `redis-cli --cluster reshard / rebalance` (what an operator runs), plus `moveSlot`, which
// migrates one slot key by key with pauses, so a test can keep a slot half-migrated (ASK / TRYAGAIN) for a while.
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { Redis } from 'ioredis'
import { freePort } from './ports'
import { startRedis, type LocalRedis } from './redis-server'
import { tlsServerArgs, type TestCertificates } from './tls-certs'

const run = promisify(execFile)

/** One CLUSTER SLOTS entry: first slot, last slot, [host, port, node id] of the master. */
type SlotRange = [number, number, [string, number, string]]

export interface ClusterNode {
  host: string
  port: number
  /** "127.0.0.1:port", the form REDIS_CLUSTER_NODES takes. */
  address: string
  id: string
  server: LocalRedis
}

export interface LocalRedisCluster {
  nodes: ClusterNode[]
  /** Seed list for REDIS_CLUSTER_NODES / connectRedis({ clusterNodes }). */
  addresses: string[]
  password?: string
  /** `redis-cli --cluster reshard`: move `slots` slots from one master to another. */
  reshard(from: ClusterNode, to: ClusterNode, slots: number): Promise<void>
  /** `redis-cli --cluster rebalance`: even the slots out over all masters (also the empty ones). */
  rebalance(): Promise<void>
  /** Move one slot to `to`, `keysPerStep` keys at a time with `pauseMs` between steps. */
  moveSlot(slot: number, to: ClusterNode, options?: { keysPerStep?: number; pauseMs?: number }): Promise<void>
  /** The master that serves `slot` now. */
  ownerOf(slot: number): Promise<ClusterNode>
  /** Slots each master serves, by node id. */
  slotCounts(): Promise<Map<string, number>>
  /** A plain (non-cluster) connection to one node; the caller quits it. */
  connect(node: ClusterNode): Redis
  stop(): Promise<void>
}

export interface LocalRedisClusterOptions {
  masters?: number
  /** Protects every node with requirepass / masterauth. */
  password?: string
  /** TLS only, on the client and the cluster bus (certificates from local/tls-certs.ts). */
  tls?: TestCertificates
  extraArgs?: string[]
}

export async function startRedisCluster(options: LocalRedisClusterOptions = {}): Promise<LocalRedisCluster> {
  const masters = options.masters ?? 3
  if (masters < 3) throw new RangeError('redis-cli --cluster create needs at least 3 masters')
  const dir = mkdtempSync(join(tmpdir(), 'sdq-cluster-'))
  const password = options.password
  const auth = [
    ...(password ? ['-a', password, '--no-auth-warning'] : []),
    ...(options.tls ? ['--tls', '--cacert', options.tls.caFile] : []),
  ]
  const servers: LocalRedis[] = []
  const stopAll = async () => {
    await Promise.all(servers.map((s) => s.stop()))
    rmSync(dir, { recursive: true, force: true })
  }
  try {
    for (let i = 0; i < masters; i++) {
      const port = await freePort()
      const busPort = await freePort()
      servers.push(
        await startRedis({
          port,
          extraArgs: [
            '--cluster-enabled',
            'yes',
            '--cluster-config-file',
            join(dir, `nodes-${port}.conf`),
            '--cluster-port',
            String(busPort),
            '--cluster-node-timeout',
            '5000',
            // Otherwise a master that gives away its last slot turns into a replica (Redis 7), and rebalance
            // can no longer hand slots back to it.
            '--cluster-allow-replica-migration',
            'no',
            '--dir',
            dir,
            ...(password ? ['--requirepass', password, '--masterauth', password] : []),
            ...(options.tls ? [...tlsServerArgs(options.tls, port), '--tls-cluster', 'yes'] : []),
            ...(options.extraArgs ?? []),
          ],
        }),
      )
    }
    const addresses = servers.map((s) => `127.0.0.1:${s.port}`)
    await redisCli([...auth, '--cluster', 'create', ...addresses, '--cluster-replicas', '0', '--cluster-yes'])

    const connect = (node: { port: number }) =>
      new Redis({
        host: '127.0.0.1',
        port: node.port,
        password,
        lazyConnect: false,
        maxRetriesPerRequest: 1,
        tls: options.tls ? { ca: readFileSync(options.tls.caFile) } : undefined,
      })
    const nodes: ClusterNode[] = []
    for (const server of servers) {
      const r = connect(server)
      try {
        const id = String(await r.cluster('MYID'))
        nodes.push({ host: '127.0.0.1', port: server.port, address: `127.0.0.1:${server.port}`, id, server })
      } finally {
        r.disconnect()
      }
    }
    await waitForAgreement(nodes, connect)

    const nodeById = (id: string) => {
      const node = nodes.find((n) => n.id === id)
      if (!node) throw new Error(`unknown cluster node ${id}`)
      return node
    }
    const ownerOf = async (slot: number) => {
      const r = connect(nodes[0]!)
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
      addresses,
      password,
      connect,
      ownerOf,
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
        await waitForAgreement(nodes, connect)
      },
      async rebalance() {
        await redisCli([...auth, '--cluster', 'rebalance', nodes[0]!.address, '--cluster-use-empty-masters'])
        await waitForAgreement(nodes, connect)
      },
      async moveSlot(slot, to, { keysPerStep = 10, pauseMs = 0 } = {}) {
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
            if (pauseMs) await new Promise((r) => setTimeout(r, pauseMs))
          }
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
        await waitForAgreement(nodes, connect)
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

async function redisCli(args: string[]): Promise<string> {
  try {
    const { stdout } = await run('redis-cli', args, { timeout: 120_000, maxBuffer: 64 * 1024 * 1024 })
    return stdout
  } catch (e) {
    const err = e as NodeJS.ErrnoException & { stdout?: string; stderr?: string }
    if (err.code === 'ENOENT')
      throw new Error('redis-cli was not found on PATH. Install it: apt-get install -y redis-tools')
    const shown = args.map((a, i) => (args[i - 1] === '-a' ? '***' : a)).join(' ')
    throw new Error(`redis-cli ${shown} failed: ${err.stderr || err.stdout || err.message}`)
  }
}

/** Every node says cluster_state:ok, all 16384 slots are assigned, and all nodes agree on who serves them. */
async function waitForAgreement(
  nodes: { port: number }[],
  connect: (n: { port: number }) => Redis,
  timeoutMs = 20_000,
) {
  const deadline = Date.now() + timeoutMs
  let last = ''
  for (;;) {
    const views: string[] = []
    let ok = true
    for (const node of nodes) {
      const r = connect(node)
      try {
        const info = String(await r.cluster('INFO'))
        if (!/cluster_state:ok/.test(info) || !/cluster_slots_assigned:16384/.test(info)) ok = false
        const slots = (await r.cluster('SLOTS')) as unknown as SlotRange[]
        views.push(
          slots
            .map(([lo, hi, [, , id]]) => `${lo}-${hi}:${id}`)
            .sort()
            .join(','),
        )
        last = info.split('\n')[0] ?? ''
      } catch (e) {
        ok = false
        last = String(e)
      } finally {
        r.disconnect()
      }
    }
    if (ok && views.every((v) => v === views[0])) return
    if (Date.now() > deadline) throw new Error(`Redis Cluster not ready after ${timeoutMs} ms: ${last}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}
