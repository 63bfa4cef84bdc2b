// What local/redis-cluster.ts asks of a running cluster: redis-cli --cluster commands, and waiting until the nodes
// agree (slots, and each master's replicas in sync).
import { sleep } from '../devkit/sleep'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import type { Redis } from 'ioredis'

const run = promisify(execFile)

/** One CLUSTER SLOTS entry: first slot, last slot, [host, port, node id] of the master. */
export type SlotRange = [number, number, [string, number, string]]

export async function redisCli(args: string[]): Promise<string> {
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

/**
 * Every node says cluster_state:ok, all 16384 slots are assigned, all nodes agree on who serves them, and each
 * master streams to `replicas` replicas (state=online) that every node knows as its replicas. A master streams to a
 * new replica before the cluster bus has told the other nodes: until then they list it as a master without slots and
 * CLUSTER REPLICAS on them answers none. Counted in CLUSTER NODES, where a role shows as soon as the bus has told;
 * CLUSTER SLOTS lists a replica only once gossip has brought its replication offset, seconds later.
 */
export async function waitForAgreement(
  nodes: { port: number }[],
  connect: (n: { port: number }) => Redis,
  replicas = 0,
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
        if (replicas > 0) {
          const known = replicasKnown(String(await r.cluster('NODES')))
          const short = slots.find(([, , [, , id]]) => (known.get(id) ?? 0) < replicas)
          if (short) {
            ok = false
            last = `:${node.port} knows ${known.get(short[2][2]) ?? 0} of ${replicas} replicas of slots ${short[0]}-${short[1]}`
          }
        }
        const replication = await r.info('replication')
        if (/role:master/.test(replication) && slots.length > 0) {
          const online = replication.split('\n').filter((l) => /^slave\d+:.*state=online/.test(l)).length
          const serves = slots.some(([, , [, port]]) => port === node.port)
          if (serves && online < replicas) {
            ok = false
            last = `:${node.port} has ${online} of ${replicas} replicas online`
          }
        }
      } catch (e) {
        ok = false
        last = String(e)
      } finally {
        r.disconnect()
      }
    }
    if (ok && views.every((v) => v === views[0])) return
    if (Date.now() > deadline) throw new Error(`Redis Cluster not ready after ${timeoutMs} ms: ${last}`)
    await sleep(100)
  }
}

/** Per master id, how many replicas (not failed) a node's CLUSTER NODES lists for it. */
function replicasKnown(nodes: string): Map<string, number> {
  const known = new Map<string, number>()
  for (const line of nodes.split('\n')) {
    const [, , flags = '', master = '-'] = line.split(' ')
    if (master === '-' || !flags.split(',').includes('slave') || /\bfail\b/.test(flags)) continue
    known.set(master, (known.get(master) ?? 0) + 1)
  }
  return known
}
