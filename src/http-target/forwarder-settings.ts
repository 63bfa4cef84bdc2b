// The forwarder's settings, checked at cold start (a bad one fails fast, naming it): the SSRF guard's allowances, the
// per-call timeouts and where the webhook secrets come from.
import { ConfigError } from '../errors'
import { addCidr } from './address-policy'
import { BlockList } from 'node:net'
import type { SecretSource } from './secret-source'
import { readHttpTargets, type HttpTargets } from './target-settings'

export interface ForwarderSettings {
  targets: HttpTargets
  /** HTTP_ALLOW_CIDRS: ranges this deployment may deliver to although they are private (an internal service). */
  allowCidrs: string[]
  /** HTTP_ALLOW_LOOPBACK=true: tests and the local stack only. */
  allowLoopback: boolean
  connectTimeoutMs: number
  timeoutMs: number
  /** None (the local stage only): deliveries go unsigned. */
  secretSource?: SecretSource
  secretCacheMs: number
}

type Env = Record<string, string | undefined>

/**
 * Ranges an allowance may not open (the allow-list is judged before the blocked ranges): loopback, where the Lambda
 * runtime API listens, has its own setting refused outside the local stage; link-local holds the metadata and the
 * platform's services, which no receiver needs. `0.0.0.0/0` or `::/0` would open both (::/0 covers IPv4 too).
 */
const NEVER_ALLOWED = [
  { cidr: '127.0.0.0/8', name: 'loopback', rule: 'use HTTP_ALLOW_LOOPBACK (local stage only)' },
  { cidr: '::1/128', name: 'loopback', rule: 'use HTTP_ALLOW_LOOPBACK (local stage only)' },
  { cidr: '169.254.0.0/16', name: 'link-local', rule: 'never allowed' },
  { cidr: 'fe80::/10', name: 'link-local', rule: 'never allowed' },
].map((r) => {
  const list = new BlockList()
  addCidr(list, r.cidr)
  return { ...r, list }
})

/** CIDR ranges nest or are apart: they overlap when one holds the other's first address, or the given address. */
function overlaps(list: BlockList, cidr: string, range: { cidr: string; list: BlockList }): boolean {
  const at = (text: string) => {
    const address = text.split('/')[0]!.trim()
    return [address, address.includes(':') ? 'ipv6' : 'ipv4'] as const
  }
  return list.check(...at(range.cidr)) || range.list.check(...at(cidr))
}

export function readForwarderSettings(env: Env = process.env): ForwarderSettings {
  const targets = readHttpTargets(env)
  const allowLoopback = env.HTTP_ALLOW_LOOPBACK === 'true'
  if (allowLoopback && !targets.local) {
    throw new ConfigError('HTTP_ALLOW_LOOPBACK', 'is for tests and the local stage only (DEPLOY_STAGE=local)')
  }
  const allowCidrs = (env.HTTP_ALLOW_CIDRS ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  for (const cidr of allowCidrs) {
    const list = new BlockList()
    try {
      addCidr(list, cidr)
    } catch (e) {
      throw new ConfigError('HTTP_ALLOW_CIDRS', (e as Error).message)
    }
    const hit = NEVER_ALLOWED.find((r) => overlaps(list, cidr, r))
    if (hit) throw new ConfigError('HTTP_ALLOW_CIDRS', `"${cidr}" covers ${hit.cidr} (${hit.name}): ${hit.rule}`)
  }
  return {
    targets,
    allowCidrs,
    allowLoopback,
    connectTimeoutMs: int(env, 'HTTP_CONNECT_TIMEOUT_MS', 3_000, 100, 60_000),
    timeoutMs: int(env, 'HTTP_TIMEOUT_MS', 10_000, 100, 900_000),
    secretSource: secretSource(env, targets.local),
    secretCacheMs: int(env, 'WEBHOOK_SECRET_CACHE_MS', 300_000, 0, 86_400_000),
  }
}

/**
 * Real stages read SSM (WEBHOOK_SECRET_PARAMETER) or Secrets Manager (WEBHOOK_SECRET_ID), and refuse secrets in a
 * setting or a file, and refuse to start with neither. The local stage reads nothing from AWS: WEBHOOK_SECRETS or
 * WEBHOOK_SECRET_FILE, else unsigned.
 */
function secretSource(env: Env, local: boolean): SecretSource | undefined {
  const region = env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? 'us-east-1'
  const pick = (names: string[]) => {
    const given = names.filter((n) => env[n])
    if (given.length > 1) {
      throw new ConfigError(given[1]!, `cannot be combined with ${given[0]}: give one source of webhook secrets`)
    }
    return given[0]
  }
  const localName = pick(['WEBHOOK_SECRET_FILE', 'WEBHOOK_SECRETS'])
  if (local) {
    if (localName === 'WEBHOOK_SECRET_FILE') return { kind: 'file', path: env.WEBHOOK_SECRET_FILE! }
    if (localName === 'WEBHOOK_SECRETS') return { kind: 'value', value: env.WEBHOOK_SECRETS! }
    return undefined
  }
  if (localName) {
    throw new ConfigError(
      localName,
      'is for the local stage only: keep secrets in SSM (WEBHOOK_SECRET_PARAMETER) or Secrets Manager (WEBHOOK_SECRET_ID)',
    )
  }
  const name = pick(['WEBHOOK_SECRET_PARAMETER', 'WEBHOOK_SECRET_ID'])
  const endpoint = (setting: string) => (env[setting] ? { endpoint: env[setting] } : {})
  if (name === 'WEBHOOK_SECRET_PARAMETER') {
    return { kind: 'ssm', name: env.WEBHOOK_SECRET_PARAMETER!, region, ...endpoint('AWS_ENDPOINT_URL_SSM') }
  }
  if (name === 'WEBHOOK_SECRET_ID') {
    return {
      kind: 'secretsmanager',
      id: env.WEBHOOK_SECRET_ID!,
      region,
      ...endpoint('AWS_ENDPOINT_URL_SECRETS_MANAGER'),
    }
  }
  // Receivers of a real stage verify every request: a forwarder that forgot its secret must not call them unsigned.
  throw new ConfigError(
    'WEBHOOK_SECRET_PARAMETER',
    'or WEBHOOK_SECRET_ID is required outside the local stage: deliveries there are always signed',
  )
}

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  const value = Number(raw)
  if (!/^\d+$/.test(raw.trim()) || value < min || value > max) {
    throw new ConfigError(name, `must be a whole number between ${min} and ${max}, got "${raw}"`)
  }
  return value
}
