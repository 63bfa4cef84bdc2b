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
  '64:ff9b:1::/48': ['64:ff9b:1::a9fe:a9fe'],
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

  it.each([
    ['IPv4-compatible', 'http://[::127.0.0.1]/', '127.0.0.0/8'],
    ['IPv4-compatible, in hex', 'http://[::a9fe:a9fe]/', '169.254.0.0/16'],
    ['IPv4-translated (SIIT)', 'http://[::ffff:0:127.0.0.1]/', '127.0.0.0/8'],
    ['6to4', 'http://[2002:a9fe:a9fe::1]/', '169.254.0.0/16'],
    ['6to4, prefix only', 'http://[2002:0a00:0001::]/', '10.0.0.0/8'],
  ])('refuses a blocked IPv4 address inside a URL as %s, in the form the URL parser gives it', (_, text, cidr) => {
    // prepare: the host as the sender sees it (WHATWG URL rewrites [::127.0.0.1] to [::7f00:1])
    const host = new URL(text).hostname.replace(/^\[|\]$/g, '')
    // act
    const verdict = judge(host)
    // assess
    expect(verdict, host).toMatchObject({ allowed: false })
    expect((verdict as { reason: string }).reason).toContain(cidr)
  })

  it('judges an address with a zone id (fe80::1%eth0, as a resolver may give it) by its address', () => {
    for (const address of [
      '::7f00:1%lo',
      '::127.0.0.1%lo',
      '64:ff9b::a9fe:a9fe%2',
      '::ffff:0:7f00:1%1',
      'fe80::1%eth0',
    ]) {
      expect(judge(address), address).toMatchObject({ allowed: false })
    }
  })

  it('allows public IPv4 addresses inside IPv6 as their IPv4 address is allowed', () => {
    for (const address of ['::808:808', '2002:808:808::1', '64:ff9b::808:808']) {
      expect(judge(address), address).toEqual({ allowed: true })
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

/** A real stage's settings need a source of webhook secrets. */
const SIGNED = { WEBHOOK_SECRET_PARAMETER: '/svc/prod/webhook-secrets' }

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

  it.each([
    ['the Lambda runtime API', { AWS_LAMBDA_RUNTIME_API: '127.0.0.1:9001' }],
    ['the Lambda execution environment', { AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x' }],
  ])('treats a stage named "local" that runs in AWS (%s) as a real stage', (_, lambda) => {
    // prepare: `sls deploy --stage local`, as the template passes the stage and the settings
    const env = { DEPLOY_STAGE: 'local', HTTP_TARGETS: 'webhooks', ...lambda }
    // act / assess: no loopback, no secret in a setting, no unsigned calls, https only
    expect(() => readForwarderSettings({ ...env, HTTP_ALLOW_LOOPBACK: 'true' })).toThrow(/HTTP_ALLOW_LOOPBACK/)
    expect(() => readForwarderSettings({ ...env, WEBHOOK_SECRETS: 'whsec_x' })).toThrow(/WEBHOOK_SECRETS/)
    expect(readForwarderSettings({ ...env, WEBHOOK_SECRET_PARAMETER: '/p' }).secretSource).toMatchObject({
      kind: 'ssm',
    })
    expect(readForwarderSettings({ ...env, WEBHOOK_SECRET_ID: 's' }).targets.local).toBe(false)
    // serverless-offline (npm run dev) sets neither: still local there
    expect(
      readForwarderSettings({ DEPLOY_STAGE: 'local', IS_OFFLINE: 'true', HTTP_ALLOW_LOOPBACK: 'true' }),
    ).toMatchObject({
      allowLoopback: true,
    })
  })

  it.each([
    ['0.0.0.0/0', 'loopback'],
    ['::/0', 'loopback'],
    ['127.0.0.0/8', 'loopback'],
    ['127.5.0.0/16', 'loopback'],
    ['::ffff:7f00:0/104', 'loopback'],
    ['::1/128', 'loopback'],
    ['169.254.169.254/32', 'link-local'],
    ['169.0.0.0/8', 'link-local'],
    ['fe80::/64', 'link-local'],
  ])('refuses an allowance (%s) that would reach %s, which no setting of a real stage may open', (cidr, what) => {
    expect(() => readForwarderSettings({ ...SIGNED, HTTP_ALLOW_CIDRS: `10.20.0.0/16, ${cidr}` })).toThrow(
      new RegExp(`HTTP_ALLOW_CIDRS: "${cidr.replaceAll('.', '\\.').replaceAll('/', '\\/')}" covers \\S+ \\(${what}\\)`),
    )
  })

  it('accepts allowances of private ranges beside loopback and link-local', () => {
    const settings = readForwarderSettings({
      ...SIGNED,
      HTTP_ALLOW_CIDRS: '10.0.0.0/8,172.16.0.0/12,fd00::/8,126.0.0.0/8,169.255.0.0/16',
    })
    expect(settings.allowCidrs).toHaveLength(5)
  })

  it('refuses the loopback setting, a file or plain-text secret on a real stage, and a bad CIDR, naming the setting', () => {
    expect(() => readForwarderSettings({ HTTP_ALLOW_LOOPBACK: 'true', DEPLOY_STAGE: 'prod' })).toThrow(
      /HTTP_ALLOW_LOOPBACK/,
    )
    expect(() => readForwarderSettings({ HTTP_ALLOW_LOOPBACK: 'true' })).toThrow(/HTTP_ALLOW_LOOPBACK/)
    expect(readForwarderSettings({ HTTP_ALLOW_LOOPBACK: 'true', DEPLOY_STAGE: 'local' }).allowLoopback).toBe(true)
    expect(readForwarderSettings(SIGNED).allowLoopback).toBe(false)
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
    expect(() => readForwarderSettings({ ...SIGNED, HTTP_ALLOW_CIDRS: '10.0.0.0/33' })).toThrow(/HTTP_ALLOW_CIDRS/)
    expect(() => readForwarderSettings({ ...SIGNED, HTTP_TIMEOUT_MS: '0' })).toThrow(/HTTP_TIMEOUT_MS/)
  })

  it('refuses to start on a real stage without a source of webhook secrets: deliveries there are always signed', () => {
    expect(() => readForwarderSettings({ DEPLOY_STAGE: 'prod', HTTP_TARGETS: 'webhooks' })).toThrow(
      /WEBHOOK_SECRET_PARAMETER: or WEBHOOK_SECRET_ID is required outside the local stage/,
    )
    expect(() => readForwarderSettings({ DEPLOY_STAGE: 'prod', WEBHOOK_SECRET_PARAMETER: '' })).toThrow(
      /WEBHOOK_SECRET_PARAMETER/,
    )
    // the local stage may run unsigned (npm run dev without a secret)
    expect(readForwarderSettings({ DEPLOY_STAGE: 'local' }).secretSource).toBeUndefined()
  })
})
