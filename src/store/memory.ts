// How full Redis is: `used_memory` against `maxmemory`, per primary (one node, or each master of a Cluster).
// At maxmemory with `noeviction` Redis refuses new jobs (507 StoreFull); this is the early warning.
import { Cluster } from 'ioredis'
import type { RedisClient } from './scripts'

export interface MemoryReading {
  /** "host:port" of a Cluster master; "primary" for one node (perhaps found through Sentinel). */
  node: string
  usedBytes: number
  /** 0 when the node has no maxmemory (it then grows until the host runs out). */
  maxBytes: number
  /** used / max in percent, null without maxmemory. */
  percent: number | null
  policy: string
}

export async function readMemory(redis: RedisClient): Promise<MemoryReading[]> {
  const cluster = redis instanceof Cluster
  const nodes = cluster ? redis.nodes('master') : [redis]
  return Promise.all(
    nodes.map(async (node) => {
      const info = parseInfo(await node.info('memory'))
      const usedBytes = Number(info.used_memory ?? 0)
      const maxBytes = Number(info.maxmemory ?? 0)
      return {
        node: cluster ? `${node.options.host}:${node.options.port}` : 'primary',
        usedBytes,
        maxBytes,
        percent: maxBytes > 0 ? Math.round((usedBytes / maxBytes) * 1000) / 10 : null,
        policy: info.maxmemory_policy ?? 'unknown',
      }
    }),
  )
}

function parseInfo(text: string): Record<string, string> {
  const fields: Record<string, string> = {}
  for (const line of text.split('\r\n')) {
    const at = line.indexOf(':')
    if (at > 0 && !line.startsWith('#')) fields[line.slice(0, at)] = line.slice(at + 1)
  }
  return fields
}
