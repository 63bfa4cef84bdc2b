// The SSRF guard end to end: with the default settings no delivery reaches loopback, link-local (the metadata
// address), private or IPv6-local addresses, whether the URL names the address or a DNS name resolves to it; each is
// refused before any connection, reported in the job's record, and moved to the DLQ after one attempt. A redirect is
// never followed, and its target is reported. Names resolve through a resolver of the test's own (no DNS query, no
// traffic beyond loopback).
import type { LookupAddress } from 'node:dns'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { addressPolicy } from '../../src/http-target/address-policy'
import { pinnedLookup } from '../../src/http-target/pinned-lookup'
import { readDelivery } from '../../src/store/delivery-record'
import { eventually } from '../support/eventually'
import { sendHttpJobs, startKit, type Kit } from './forwarder-kit'

const NAMES: Record<string, LookupAddress[]> = {
  'hooks.test': [{ address: '127.0.0.1', family: 4 }],
  localhost: [
    { address: '127.0.0.1', family: 4 },
    { address: '::1', family: 6 },
  ],
  'metadata.test': [{ address: '169.254.169.254', family: 4 }],
  'intranet.test': [
    { address: '10.1.2.3', family: 4 },
    { address: 'fd00::5', family: 6 },
  ],
  // A name with a refused address first and an allowed one second: only the allowed one may be used.
  'mixed.test': [
    { address: '10.0.0.9', family: 4 },
    { address: '127.0.0.1', family: 4 },
  ],
}
const lookups: string[] = []
const resolve = async (hostname: string) => {
  lookups.push(hostname)
  const found = NAMES[hostname]
  if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' })
  return found
}

let guarded: Kit
let loopbackAllowed: Kit
beforeAll(async () => {
  guarded = await startKit({ HTTP_ALLOW_LOOPBACK: '' }, { resolve })
  loopbackAllowed = await startKit({}, { resolve })
  guarded.poll(2)
  loopbackAllowed.poll(1)
})
afterAll(async () => {
  await guarded?.close()
  await loopbackAllowed?.close()
})

const recordOf = (kit: Kit, id: string) => readDelivery(kit.engine.redis, kit.engine.keys, id)

describe('the SSRF guard', () => {
  it.each([
    ['a DNS name resolving to 127.0.0.1', 'http://hooks.test:PORT/ok', '127.0.0.1 is in 127.0.0.0/8 (loopback)'],
    ['localhost (IPv4 and IPv6)', 'http://localhost:PORT/ok', '::1 is in ::1/128 (loopback)'],
    ['a loopback literal', 'http://127.0.0.1:PORT/ok', '127.0.0.1 is in 127.0.0.0/8 (loopback)'],
    ['an IPv6 loopback literal', 'http://[::1]:PORT/ok', '::1 is in ::1/128 (loopback)'],
    ['an IPv4-mapped loopback literal', 'http://[::ffff:127.0.0.1]:PORT/ok', 'is in 127.0.0.0/8 (loopback)'],
    ['the metadata address', 'http://169.254.169.254/latest/meta-data/', '169.254.169.254 is in 169.254.0.0/16'],
    [
      'a name resolving to the metadata address',
      'http://metadata.test/latest/',
      '169.254.169.254 is in 169.254.0.0/16',
    ],
    ['a name resolving to private addresses only', 'http://intranet.test/', '10.1.2.3 is in 10.0.0.0/8 (private)'],
    ['a private literal', 'http://192.168.1.1/', '192.168.1.1 is in 192.168.0.0/16 (private)'],
    ['a unique-local IPv6 literal', 'http://[fd12::1]/', 'fd12::1 is in fc00::/7'],
    ['a link-local IPv6 literal', 'http://[fe80::1]/', 'fe80::1 is in fe80::/10 (link-local)'],
  ])(
    'refuses %s before connecting, reports it and dead-letters the job after one attempt',
    async (what, template, reason) => {
      // prepare
      const id = `ssrf-${what.replaceAll(/[^a-z0-9]+/gi, '-')}`
      const url = template.replace('PORT', String(guarded.receiver.port))
      // act
      await sendHttpJobs(guarded.queue.url, [{ id, payload: { url } }])
      await eventually(async () => (await recordOf(guarded, id))?.outcome === 'dead-lettered', 10_000)
      // assess
      const record = await recordOf(guarded, id)
      expect(record).toMatchObject({ attempts: 1 })
      expect(record!.reason).toContain('refused to connect')
      expect(record!.reason).toContain(reason)
      expect(guarded.receiver.deliveries.filter((d) => d.id === id)).toEqual([])
    },
  )

  it('does not follow a redirect, and reports that its target (169.254.169.254) is refused', async () => {
    // prepare: loopback allowed so that the receiver is reachable; it answers 302 to the metadata address
    const url = `${loopbackAllowed.receiver.url}/redirect`
    // act
    await sendHttpJobs(loopbackAllowed.queue.url, [{ id: 'redirect-1', payload: { url } }])
    await eventually(async () => (await recordOf(loopbackAllowed, 'redirect-1'))?.outcome === 'dead-lettered', 10_000)
    // assess
    const record = await recordOf(loopbackAllowed, 'redirect-1')
    expect(record).toMatchObject({ status: 302, attempts: 1 })
    expect(record!.reason).toMatch(
      /^redirect not followed \(Location: http:\/\/169\.254\.169\.254\/latest\/meta-data\/iam\//,
    )
    expect(record!.reason).toContain('its address is refused: 169.254.169.254 is in 169.254.0.0/16')
    expect(loopbackAllowed.receiver.deliveries.filter((d) => d.id === 'redirect-1')).toHaveLength(1)
  })

  it('hands the socket only the allowed addresses of a name, the ones it checked', async () => {
    // prepare
    const lookup = pinnedLookup(resolve, addressPolicy({ allowLoopback: true }))
    const ask = (all: boolean) =>
      new Promise<unknown>((done, fail) =>
        lookup('mixed.test', { all }, (error, address) => (error ? fail(error) : done(address))),
      )
    // act / assess
    expect(await ask(true)).toEqual([{ address: '127.0.0.1', family: 4 }])
    expect(await ask(false)).toBe('127.0.0.1')
    await expect(
      new Promise((done, fail) => lookup('intranet.test', { all: true }, (e, a) => (e ? fail(e) : done(a)))),
    ).rejects.toThrow(
      'refused to connect to intranet.test: 10.1.2.3 is in 10.0.0.0/8 (private); fd00::5 is in fc00::/7',
    )
  })

  it('delivers to a name with an allowed address, resolving it once for the connection', async () => {
    // prepare
    lookups.length = 0
    const url = `http://mixed.test:${loopbackAllowed.receiver.port}/ok`
    // act
    await sendHttpJobs(loopbackAllowed.queue.url, [{ id: 'mixed-1', payload: { url } }])
    await eventually(() => loopbackAllowed.receiver.successes.get('mixed-1') === 1, 10_000)
    // assess: one resolution for one connection
    const [delivery] = loopbackAllowed.receiver.deliveries.filter((d) => d.id === 'mixed-1')
    expect(delivery!.headers.host).toBe(`mixed.test:${loopbackAllowed.receiver.port}`)
    expect(lookups.filter((h) => h === 'mixed.test')).toHaveLength(1)
  })
})
