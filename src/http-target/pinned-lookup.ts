// The DNS step of a delivery's connection: resolve the host, judge every address, and hand the socket only allowed
// ones. The socket connects to the address returned here, so the address checked is the address used: no second
// resolution between the check and the connect that a rebinding DNS server could answer differently.
import { promises as dns, type LookupAddress, type LookupOptions } from 'node:dns'
import type { AddressVerdict } from './address-policy'
import { AddressRefusedError } from './errors'

/** Resolves a host name to its addresses (default: the system resolver, as every Node connection uses). */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>

export const systemResolver: Resolver = (hostname) => dns.lookup(hostname, { all: true, verbatim: true })

type LookupCallback = (error: Error | null, address: string | LookupAddress[], family?: number) => void

/** A `lookup` for http.request / net.connect that refuses with AddressRefusedError when no address is allowed. */
export function pinnedLookup(resolve: Resolver, judge: (address: string) => AddressVerdict) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    resolve(hostname).then(
      (addresses) => {
        const wanted = options.family === 4 || options.family === 6 ? options.family : 0
        const candidates = addresses.filter((a) => wanted === 0 || a.family === wanted)
        const allowed = candidates.filter((a) => judge(a.address).allowed)
        if (allowed.length === 0) {
          const reasons = candidates.map((a) => judge(a.address)).flatMap((v) => (v.allowed ? [] : [v.reason]))
          callback(new AddressRefusedError(hostname, reasons.join('; ') || 'no address'), [])
          return
        }
        if (options.all) callback(null, allowed)
        else callback(null, allowed[0]!.address, allowed[0]!.family)
      },
      (error: Error) => callback(error, []),
    )
  }
}
