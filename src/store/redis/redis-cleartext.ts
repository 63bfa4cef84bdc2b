// A Redis password sent without TLS: `redis://:PASSWORD@host` to another machine puts the password (AUTH) and every
// payload on the network in clear text. Warned about once per configuration load (cold start), not refused: a
// self-managed Redis inside a private subnet may run that way today, and a new release must not stop its functions
// (docs/security.md). The password itself is never logged: the line names the setting and the hosts only.
import type { RedisSettings } from './redis-settings'
import { defaultLog, type Log } from '../../logger'

/** The warning for this Redis configuration, or undefined when its password travels under TLS or stays local. */
export function cleartextPasswordWarning(redis: RedisSettings): { message: string; hosts: string[] } | undefined {
  if (!redis.url) return undefined
  const url = new URL(redis.url)
  if (url.protocol !== 'redis:' || url.password === '') return undefined
  // TLS and credentials come from REDIS_URL in every mode; the hosts are the cluster's or sentinels' when set.
  const hosts = redis.clusterNodes?.length
    ? redis.clusterNodes.map(hostOf)
    : redis.sentinels?.length
      ? redis.sentinels.map(hostOf)
      : [url.hostname]
  const remote = hosts.filter((host) => !isLoopback(host))
  if (remote.length === 0) return undefined
  return {
    message:
      'REDIS_URL has a password but no TLS (redis://): the password and the jobs cross the network in clear text',
    hosts: remote,
  }
}

/** Logs the warning (one line) when there is one. */
export function warnOnCleartextPassword(redis: RedisSettings, log: Log = defaultLog()): void {
  const warning = cleartextPasswordWarning(redis)
  if (warning) {
    log.warn(warning.message, {
      setting: 'REDIS_URL',
      hosts: warning.hosts,
      fix: 'use rediss:// (TLS; ElastiCache and MemoryDB call it in-transit encryption)',
    })
  }
}

/** "host:port" (cluster nodes, sentinels) -> host, without IPv6 brackets. */
function hostOf(node: string): string {
  return node.slice(0, node.lastIndexOf(':'))
}

function isLoopback(host: string): boolean {
  const h = host.replace(/^\[(.*)\]$/, '$1').toLowerCase()
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h)
}
