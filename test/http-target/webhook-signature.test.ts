// Signatures as the Standard Webhooks libraries check them (the `standardwebhooks` package verifies, not our code),
// several secrets at once for a rotation, and the secret loader's cache.
import { randomBytes } from 'node:crypto'
import { Webhook } from 'standardwebhooks'
import { createServer } from 'node:http'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { readForwarderSettings } from '../../src/http-target/forwarder-settings'
import { listenOnLoopback } from '../../devkit/loopback-server'
import { secretLoader } from '../../src/http-target/secret-loader'
import type { SecretSource } from '../../src/http-target/secret-source'
import { signingKeys, webhookHeaders } from '../../src/http-target/webhook-signature'

afterEach(() => {
  vi.unstubAllEnvs()
})

const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`

describe('webhook signatures', () => {
  it('verify with the standardwebhooks library, for JSON and binary-looking bodies', () => {
    // prepare
    const secret = newSecret()
    const receiver = new Webhook(secret)
    for (const body of ['{"orderId":42}', 'plain text with ünïcode', '']) {
      // act
      const headers = webhookHeaders(signingKeys([secret]), 'job-1', Date.now() / 1000, body)
      // assess
      expect(() => receiver.verify(body, headers, { jsonParse: false }), body).not.toThrow()
      expect(() => receiver.verify(`${body} `, headers, { jsonParse: false })).toThrow()
    }
  })

  it('carry one signature per secret during a rotation: a receiver holding either one verifies', () => {
    // prepare
    const [oldSecret, newOne] = [newSecret(), newSecret()]
    const body = '{"a":1}'
    // act
    const headers = webhookHeaders(signingKeys([oldSecret, newOne]), 'job-2', Date.now() / 1000, body)
    // assess
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2)
    expect(() => new Webhook(oldSecret).verify(body, headers)).not.toThrow()
    expect(() => new Webhook(newOne).verify(body, headers)).not.toThrow()
    expect(() => new Webhook(newSecret()).verify(body, headers)).toThrow()
  })

  it('refuse a secret that is not whsec_ base64, naming its position only', () => {
    expect(() => signingKeys([newSecret(), 'hunter2'])).toThrow(/^secret 2 must be "whsec_"/)
    expect(() => signingKeys(['whsec_c2hvcnQ='])).toThrow(/secret 1/)
  })
})

describe('the secret loader', () => {
  it('reads once per cache period, keeps signing with the last secrets when a reload fails, and picks up a rotation', async () => {
    // prepare: a source that counts its reads; a fake clock
    const [a, b] = [newSecret(), newSecret()]
    let text = a
    let fail = false
    let reads = 0
    let nowMs = 0
    const fetch = async (_: SecretSource) => {
      reads++
      if (fail) throw new Error('SSM unreachable')
      return text
    }
    const loader = secretLoader({ source: { kind: 'value', value: '' }, cacheMs: 60_000, fetch, now: () => nowMs })
    // act / assess: cached
    await Promise.all([loader.keys(), loader.keys(), loader.keys()])
    expect(reads).toBe(1)
    // a failed reload after the period: the old keys still sign
    nowMs = 61_000
    fail = true
    expect(await loader.keys()).toHaveLength(1)
    expect(reads).toBe(2)
    // the rotation: both secrets once the source has both
    nowMs = 200_000
    fail = false
    text = `${a}\n${b}`
    const keys = await loader.keys()
    expect(keys).toHaveLength(2)
    const headers = webhookHeaders(keys, 'm', Date.now() / 1000, '"x"')
    expect(() => new Webhook(a).verify('"x"', headers)).not.toThrow()
    expect(() => new Webhook(b).verify('"x"', headers)).not.toThrow()
  })

  it('fails (and the delivery is retried) when no secret was ever read', async () => {
    const loader = secretLoader({
      source: { kind: 'ssm', name: '/x', region: 'eu-west-1' },
      cacheMs: 1,
      fetch: async () => {
        throw new Error('AccessDenied')
      },
    })
    await expect(loader.keys()).rejects.toThrow(/webhook secrets unavailable \(ssm\): AccessDenied/)
  })
})

describe('secret sources on AWS', () => {
  it('reads SSM (GetParameter, decrypted) and Secrets Manager (GetSecretValue) with SigV4-signed calls', async () => {
    // prepare: a fake of both APIs on loopback (the SDK's endpoint override settings point at it)
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIDTESTTEST')
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'secret-test')
    vi.stubEnv('AWS_SESSION_TOKEN', '')
    const [a, b] = [newSecret(), newSecret()]
    const calls: { target: string; auth: string; body: unknown }[] = []
    const server = await listenOnLoopback(
      createServer((req, res) => {
        let text = ''
        req.on('data', (c) => (text += c))
        req.on('end', () => {
          const target = String(req.headers['x-amz-target'])
          calls.push({ target, auth: String(req.headers.authorization), body: JSON.parse(text) })
          const out = target === 'AmazonSSM.GetParameter' ? { Parameter: { Value: `${a}\n${b}` } } : { SecretString: a }
          res.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' }).end(JSON.stringify(out))
        })
      }),
    )
    try {
      const env = {
        DEPLOY_STAGE: 'prod',
        AWS_REGION: 'eu-west-1',
        AWS_ENDPOINT_URL_SSM: server.url,
        AWS_ENDPOINT_URL_SECRETS_MANAGER: server.url,
      }
      // act
      const ssm = readForwarderSettings({ ...env, WEBHOOK_SECRET_PARAMETER: '/svc/prod/webhook-secrets' }).secretSource!
      const sm = readForwarderSettings({ ...env, WEBHOOK_SECRET_ID: 'svc/webhooks' }).secretSource!
      const fromSsm = await secretLoader({ source: ssm, cacheMs: 60_000 }).keys()
      const fromSm = await secretLoader({ source: sm, cacheMs: 60_000 }).keys()
      // assess
      expect(fromSsm).toHaveLength(2)
      expect(fromSm).toHaveLength(1)
      expect(calls.map(({ target, body }) => ({ target, body }))).toEqual([
        { target: 'AmazonSSM.GetParameter', body: { Name: '/svc/prod/webhook-secrets', WithDecryption: true } },
        { target: 'secretsmanager.GetSecretValue', body: { SecretId: 'svc/webhooks' } },
      ])
      expect(calls[0]!.auth).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDTESTTEST\/\d{8}\/eu-west-1\/ssm\/aws4_request, /)
      expect(calls[1]!.auth).toMatch(/\/eu-west-1\/secretsmanager\/aws4_request, /)
    } finally {
      await server.close()
    }
  })
})
