// A private primary + replicas + Sentinel quorum on loopback (tests): what ElastiCache Multi-AZ or a self-run
// Sentinel setup gives in production. Every process runs in the foreground as our child and is stopped by stop().
import { sleep } from '../devkit/sleep'
import type { ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Redis } from 'ioredis'
import { freePort, onFreshPorts } from './ports'
import { spawnRedisProcess } from './redis-process'
import { startRedis, stopChild, type LocalRedis } from './redis-server'

export interface LocalSentinelSetup {
  primary: LocalRedis
  replicas: LocalRedis[]
  /** "127.0.0.1:port" of each sentinel: the form REDIS_SENTINELS takes. */
  sentinels: string[]
  masterName: string
  /** Asks a sentinel which address it names as the primary now. */
  currentPrimary(): Promise<string>
  /**
   * Starts a server again on a killed one's port as a replaced machine comes back: empty (a data directory of its
   * own, new), and a replica of the primary the sentinels name now.
   */
  restart(killed: LocalRedis): Promise<LocalRedis>
  stop(): Promise<void>
}

/** See `downAfterMs`. */
export const DEFAULT_DOWN_AFTER_MS = 2_000

export interface SentinelSetupOptions {
  replicas?: number
  sentinels?: number
  /**
   * How long a silent primary takes to be declared down (sentinel down-after-milliseconds). Default 2 s, and never
   * 1 s or less: Sentinel pings each instance once a second, and a sentinel that has just switched to a new primary
   * sends it its first PING only one period after the switch while counting the silence from the switch itself. At
   * 1 s the new primary's answer must come back within the same timer tick; under load it did not, and the sentinel
   * declared the live new primary down and started a second failover (4 of 30 failover runs under load, 0 of 29 at
   * 2 s). A second failover that promotes the replica which did not confirm the latest writes loses them.
   */
  downAfterMs?: number
}

export async function startSentinelSetup(options: SentinelSetupOptions = {}): Promise<LocalSentinelSetup> {
  const masterName = 'sdqmaster'
  const dir = mkdtempSync(join(tmpdir(), 'sdq-sentinel-'))
  const children: (LocalRedis | ChildProcess)[] = []
  const stop = async () => {
    await Promise.all(children.map((c) => ('stop' in c ? c.stop() : stopChild(c))))
    rmSync(dir, { recursive: true, force: true })
  }
  try {
    // A directory per node, under the setup's: a replica's full sync writes an RDB file there (else into the caller's
    // working directory), and a node started again must not load another node's copy (a restarted node that found
    // a replica's dump.rdb served that stale data as a primary until Sentinel demoted it).
    const inDir = () => ['--dir', mkdtempSync(join(dir, 'node-'))]
    const primary = await startRedis({ extraArgs: inDir() })
    children.push(primary)
    const replicas: LocalRedis[] = []
    for (let i = 0; i < (options.replicas ?? 1); i++) {
      const replica = await startRedis({ extraArgs: [...inDir(), '--replicaof', '127.0.0.1', String(primary.port)] })
      children.push(replica)
      replicas.push(replica)
    }
    await waitForReplicas(primary.port, replicas.length)
    const count = options.sentinels ?? 3
    const sentinels: string[] = []
    const monitor = [
      `sentinel monitor ${masterName} 127.0.0.1 ${primary.port} ${Math.floor(count / 2) + 1}`,
      `sentinel down-after-milliseconds ${masterName} ${options.downAfterMs ?? DEFAULT_DOWN_AFTER_MS}`,
      `sentinel failover-timeout ${masterName} 10000`,
      `sentinel parallel-syncs ${masterName} 1`,
    ]
    for (let i = 0; i < count; i++) {
      const { child, port } = await startSentinel(dir, monitor)
      children.push(child)
      sentinels.push(`127.0.0.1:${port}`)
    }
    const ask = async (): Promise<string> => {
      const [host, port] = sentinels[0]!.split(':')
      const client = new Redis({ host, port: Number(port), lazyConnect: true, maxRetriesPerRequest: 1 })
      try {
        await client.connect()
        const [ip, p] = (await client.call('SENTINEL', 'get-master-addr-by-name', masterName)) as [string, string]
        return `${ip}:${p}`
      } finally {
        client.disconnect()
      }
    }
    const restart = async (killed: LocalRedis) => {
      const now = await ask().catch(() => undefined)
      const [host, port] = now?.split(':') ?? []
      const follow = host && port && Number(port) !== killed.port ? ['--replicaof', host, port] : []
      const server = await startRedis({ port: killed.port, extraArgs: [...inDir(), ...follow] })
      children.push(server)
      return server
    }
    return { primary, replicas, sentinels, masterName, currentPrimary: ask, restart, stop }
  } catch (e) {
    await stop()
    throw e
  }
}

/** Waits until the primary counts `n` replicas online (so WAIT and a failover have someone to count on). */
async function waitForReplicas(port: number, n: number): Promise<void> {
  const client = new Redis({ port, host: '127.0.0.1' })
  try {
    const deadline = Date.now() + 15_000
    let seen = ''
    while (Date.now() < deadline) {
      const info = await client.info('replication')
      const replicas = info.split('\n').filter((l) => /^slave\d+:/.test(l))
      if (replicas.filter((l) => l.includes('state=online')).length >= n) return
      seen = replicas.map((l) => l.trim()).join('; ') || 'no replica connected'
      await sleep(50)
    }
    throw new Error(`${n} replica(s) did not come online on 127.0.0.1:${port} within 15 s (last seen: ${seen})`)
  } finally {
    client.disconnect()
  }
}

/** One sentinel with these `monitor` lines, on a free port (another one when the port was taken meanwhile). */
function startSentinel(dir: string, monitor: string[]): Promise<{ child: ChildProcess; port: number }> {
  return onFreshPorts(async () => {
    const port = await freePort()
    const conf = join(dir, `sentinel-${port}.conf`)
    writeFileSync(conf, [`port ${port}`, 'bind 127.0.0.1', `dir ${dir}`, ...monitor, ''].join('\n'))
    // redis-server in sentinel mode: the same program as Debian's redis-sentinel, which is a separate package.
    return { child: await spawnRedisProcess([conf, '--sentinel'], port, `redis-sentinel :${port}`), port }
  })
}
