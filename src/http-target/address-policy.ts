// Which addresses a delivery may connect to. By default none that reach inside: loopback, link-local (the instance
// metadata address 169.254.169.254 included), private and shared ranges, and their IPv6 equivalents, IPv4-mapped
// NAT64, IPv4-compatible, IPv4-translated and 6to4 forms included (::ffff:127.0.0.1 is 127.0.0.1, and so is ::7f00:1,
// which a URL's [::127.0.0.1] becomes). Checked on the address a connection will use, after DNS.
import { BlockList, isIP } from 'node:net'

/** The ranges refused by default, with the name a refusal reports. */
export const BLOCKED_RANGES: readonly { cidr: string; name: string }[] = [
  { cidr: '0.0.0.0/8', name: 'this network' },
  { cidr: '10.0.0.0/8', name: 'private' },
  { cidr: '100.64.0.0/10', name: 'shared (carrier-grade NAT)' },
  { cidr: '127.0.0.0/8', name: 'loopback' },
  { cidr: '169.254.0.0/16', name: 'link-local (instance metadata)' },
  { cidr: '172.16.0.0/12', name: 'private' },
  { cidr: '192.0.0.0/24', name: 'IETF protocol assignments' },
  { cidr: '192.168.0.0/16', name: 'private' },
  { cidr: '198.18.0.0/15', name: 'benchmarking' },
  { cidr: '224.0.0.0/4', name: 'multicast' },
  { cidr: '240.0.0.0/4', name: 'reserved' },
  { cidr: '::/128', name: 'unspecified' },
  { cidr: '::1/128', name: 'loopback' },
  { cidr: '64:ff9b:1::/48', name: 'NAT64 local use' },
  { cidr: 'fc00::/7', name: 'unique local (private)' },
  { cidr: 'fe80::/10', name: 'link-local' },
  { cidr: 'fec0::/10', name: 'site-local (deprecated, private)' },
  { cidr: 'ff00::/8', name: 'multicast' },
]

const LOOPBACK = ['127.0.0.0/8', '::1/128']

export interface AddressPolicyOptions {
  /** CIDRs a deployment allows although they are in a blocked range (an internal service it means to call). */
  allow?: readonly string[]
  /** Tests and the local stack only: loopback allowed (the settings refuse it on a real stage). */
  allowLoopback?: boolean
}

export type AddressVerdict = { allowed: true } | { allowed: false; reason: string }

export function addressPolicy(options: AddressPolicyOptions = {}): (address: string) => AddressVerdict {
  const allowed = new BlockList()
  for (const cidr of [...(options.allow ?? []), ...(options.allowLoopback ? LOOPBACK : [])]) addCidr(allowed, cidr)
  const blocked = BLOCKED_RANGES.map((r) => {
    const list = new BlockList()
    addCidr(list, r.cidr)
    return { ...r, list }
  })
  return (address) => {
    const family = isIP(address)
    if (family === 0) return { allowed: false, reason: `${address} is not an IP address` }
    // A zone id (fe80::1%eth0) only names the interface: the address is what is judged.
    const bare = family === 6 ? address.split('%')[0]! : address
    // An IPv4 address inside IPv6 (mapped ::ffff:a.b.c.d, NAT64 64:ff9b::a.b.c.d) is judged as that IPv4 address.
    const v4 = family === 6 ? embeddedIpv4(bare) : address
    const [ip, type] = v4 ? [v4, 'ipv4' as const] : [bare, 'ipv6' as const]
    if (allowed.check(ip, type)) return { allowed: true }
    const hit = blocked.find((r) => r.list.check(ip, type))
    return hit ? { allowed: false, reason: `${address} is in ${hit.cidr} (${hit.name})` } : { allowed: true }
  }
}

/** Throws a RangeError naming the CIDR when it is not one (the settings report it with the setting's name). */
export function addCidr(list: BlockList, cidr: string): void {
  const m = /^([^/]+)\/(\d{1,3})$/.exec(cidr.trim())
  const family = m ? isIP(m[1]!) : 0
  const bits = m ? Number(m[2]) : -1
  if (!m || family === 0 || bits > (family === 4 ? 32 : 128)) throw new RangeError(`"${cidr}" is not a CIDR range`)
  list.addSubnet(m[1]!, bits, family === 4 ? 'ipv4' : 'ipv6')
}

// Prefixes whose last 32 bits are an IPv4 address: mapped, translated (SIIT), NAT64 and IPv4-compatible (::/96, which
// the URL parser writes in hex: [::127.0.0.1] is ::7f00:1). 6to4 (2002::/16) carries it right after the prefix.
const V4_PREFIX = '(?:::ffff:|::ffff:0:|64:ff9b::|::)'
const V4_DOTTED = new RegExp(`^${V4_PREFIX}(\\d+\\.\\d+\\.\\d+\\.\\d+)$`)
const V4_HEX = new RegExp(`^${V4_PREFIX}([0-9a-f]{1,4}):([0-9a-f]{1,4})$`)
const V4_6TO4 = /^2002:([0-9a-f]{1,4}):([0-9a-f]{1,4})(?::|$)/

function embeddedIpv4(address: string): string | undefined {
  const lower = address.toLowerCase()
  const dotted = V4_DOTTED.exec(lower)
  if (dotted) return dotted[1]
  const hex = V4_HEX.exec(lower) ?? V4_6TO4.exec(lower)
  if (!hex) return undefined
  const hi = Number.parseInt(hex[1]!, 16)
  const lo = Number.parseInt(hex[2]!, 16)
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`
}
