// The SSRF guard's address rule and the settings around it: every blocked range refused by default (IPv6 and
// IPv4-in-IPv6 forms included), a deployment's allow-list, and loopback only where tests and the local stack run.
import { describe, expect, it } from 'vitest'
import { addressPolicy, BLOCKED_RANGES } from '../../src/http-target/address-policy'
import { readForwarderSettings } from '../../src/http-target/forwarder-settings'

/** One address inside each blocked range, by range. */
const SAMPLES: Record<string, string[]> = {
  '0.0.0.0/8': ['0.0.0.0', '0.1.2.3'],
  '10.0.0.0/8': ['10.0.0.1', '10.255.255.254'],
  '100.64.0.0/10': ['100.64.0.1', '100.127.255.254'],
  '127.0.0.0/8': ['127.0.0.1', '127.1.2.3'],
  '169.254.0.0/16': ['169.254.169.254', '169.254.0.1'],
  '172.16.0.0/12': ['172.16.0.1', '172.31.255.254'],
  '192.0.0.0/24': ['192.0.0.8'],
  '192.168.0.0/16': ['192.168.1.1'],
  '198.18.0.0/15': ['198.19.0.1'],
  '224.0.0.0/4': ['224.0.0.1'],
  '240.0.0.0/4': ['255.255.255.255'],
  '::/128': ['::'],
  '::1/128': ['::1', '0:0:0:0:0:0:0:1'],
  'fc00::/7': ['fc00::1', 'fd12:3456::1'],
  'fe80::/10': ['fe80::1', 'febf::1'],
  'fec0::/10': ['fec0::1'],
  'ff00::/8': ['ff02::1'],
}

describe('the default address policy', () => {
  const judge = addressPolicy()

  it.each(BLOCKED_RANGES.map((r) => [r.cidr, r.name]))('refuses %s (%s), naming the range', (cidr) => {
    // prepare: addresses of the range
    const samples = SAMPLES[cidr]
    expect(samples, `a sample for ${cidr}`).toBeDefined()
    for (const address of samples!) {
      // act
      const verdict = judge(address)
      // assess
      expect(verdict, address).toMatchObject({ allowed: false })
      expect((verdict as { reason: string }).reason).toContain(cidr)
    }
  })

  it('refuses blocked IPv4 addresses written inside IPv6 (mapped, NAT64, compatible)', () => {
    for (const address of [
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:169.254.169.254',
      '::ffff:a9fe:a9fe',
      '64:ff9b::10.0.0.1',
      '::127.0.0.1',
    ]) {
      expect(judge(address), address).toMatchObject({ allowed: false })
    }
  })

  it('allows public addresses, and refuses what is not an address', () => {
    for (const address of [
      '93.184.215.14',
      '8.8.8.8',
      '2606:4700::1111',
      '::ffff:8.8.8.8',
      '172.32.0.1',
      '100.128.0.1',
    ]) {
      expect(judge(address), address).toEqual({ allowed: true })
    }
    expect(judge('localhost')).toMatchObject({ allowed: false })
  })
})

describe('allowances', () => {
  it('allows a deployment-listed private range and nothing beside it', () => {
    const judge = addressPolicy({ allow: ['10.1.0.0/16', 'fd00:1::/32'] })
    expect(judge('10.1.2.3')).toEqual({ allowed: true })
    expect(judge('fd00:1::5')).toEqual({ allowed: true })
    expect(judge('10.2.0.1')).toMatchObject({ allowed: false })
    expect(judge('169.254.169.254')).toMatchObject({ allowed: false })
  })

  it('allows loopback only with the loopback setting, and never the metadata address', () => {
    const judge = addressPolicy({ allowLoopback: true })
    expect(judge('127.0.0.1')).toEqual({ allowed: true })
    expect(judge('::1')).toEqual({ allowed: true })
    expect(judge('169.254.169.254')).toMatchObject({ allowed: false })
    expect(addressPolicy()('127.0.0.1')).toMatchObject({ allowed: false })
  })

  it('refuses the loopback setting, a file or plain-text secret on a real stage, and a bad CIDR, naming the setting', () => {
    expect(() => readForwarderSettings({ HTTP_ALLOW_LOOPBACK: 'true', DEPLOY_STAGE: 'prod' })).toThrow(
      /HTTP_ALLOW_LOOPBACK/,
    )
    expect(() => readForwarderSettings({ HTTP_ALLOW_LOOPBACK: 'true' })).toThrow(/HTTP_ALLOW_LOOPBACK/)
    expect(readForwarderSettings({ HTTP_ALLOW_LOOPBACK: 'true', DEPLOY_STAGE: 'local' }).allowLoopback).toBe(true)
    expect(readForwarderSettings({}).allowLoopback).toBe(false)
    expect(() => readForwarderSettings({ WEBHOOK_SECRETS: 'whsec_x', DEPLOY_STAGE: 'prod' })).toThrow(/WEBHOOK_SECRETS/)
    expect(() => readForwarderSettings({ WEBHOOK_SECRET_FILE: '/tmp/s', DEPLOY_STAGE: 'prod' })).toThrow(
      /WEBHOOK_SECRET_FILE/,
    )
    expect(
      readForwarderSettings({ WEBHOOK_SECRET_PARAMETER: '/svc/prod/whsec', AWS_REGION: 'eu-west-1' }).secretSource,
    ).toEqual({
      kind: 'ssm',
      name: '/svc/prod/whsec',
      region: 'eu-west-1',
    })
    expect(() => readForwarderSettings({ HTTP_ALLOW_CIDRS: '10.0.0.0/33' })).toThrow(/HTTP_ALLOW_CIDRS/)
    expect(() => readForwarderSettings({ HTTP_TIMEOUT_MS: '0' })).toThrow(/HTTP_TIMEOUT_MS/)
  })
})
