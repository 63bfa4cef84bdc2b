// The API behind a custom domain (CloudFront, an API Gateway custom domain): its host names neither the service nor
// the region to sign for, so the client takes them from its options. Pure: a fetch that records the request and
// answers it, no traffic at all.
import { afterEach, describe, expect, it, vi } from 'vitest'
import { DelayQueueApiClient } from '../../src/api-client'

const credentials = { accessKeyId: 'AKIDLOCALTEST', secretAccessKey: 'local-secret' }
const CUSTOM_DOMAIN = 'https://jobs.example.com'

/** A fetch that keeps the Authorization header of each request and answers GET /stats. */
function recordingFetch() {
  const authorizations: string[] = []
  const fetch = (async (_url: string | URL | Request, init?: RequestInit) => {
    authorizations.push(new Headers(init?.headers).get('authorization') ?? '')
    return new Response(JSON.stringify({ queues: {} }), {
      status: 200,
      headers: { 'content-type': 'application/json' },
    })
  }) as typeof globalThis.fetch
  return { fetch, authorizations }
}

describe('DelayQueueApiClient on a custom domain', () => {
  afterEach(() => vi.unstubAllEnvs())

  it('signs for the service and region its options name (a Function URL behind the domain)', async () => {
    // prepare
    const { fetch, authorizations } = recordingFetch()
    const client = new DelayQueueApiClient({
      url: CUSTOM_DOMAIN,
      signingService: 'lambda',
      region: 'ap-southeast-2',
      credentials,
      fetch,
    })
    // act
    await client.stats()
    // assess: the credential scope is the one the Function URL checks, not execute-api in the caller's region
    expect(authorizations).toHaveLength(1)
    expect(authorizations[0]).toMatch(/Credential=AKIDLOCALTEST\/\d{8}\/ap-southeast-2\/lambda\/aws4_request/)
  })

  it('signs for execute-api when the options say so, also on a lambda-url host', async () => {
    // prepare
    const { fetch, authorizations } = recordingFetch()
    const client = new DelayQueueApiClient({
      url: 'https://abcdefghijklmnopqrstuvwxyz012345.lambda-url.eu-west-3.on.aws',
      signingService: 'execute-api',
      credentials,
      fetch,
    })
    // act
    await client.stats()
    // assess: the region still comes from the host
    expect(authorizations[0]).toMatch(/\/eu-west-3\/execute-api\/aws4_request/)
  })

  it('refuses to build a client that could not sign: no region from the host, the options or AWS_REGION', () => {
    // prepare
    vi.stubEnv('AWS_REGION', undefined)
    vi.stubEnv('AWS_DEFAULT_REGION', undefined)
    // act
    const attempt = () => new DelayQueueApiClient({ url: CUSTOM_DOMAIN, signingService: 'lambda', credentials })
    // assess: the error names the option to set
    expect(attempt).toThrow(/jobs\.example\.com.*pass the region option/)
  })

  it('refuses a signing service other than lambda or execute-api, naming the option', () => {
    const attempt = () =>
      new DelayQueueApiClient({
        url: CUSTOM_DOMAIN,
        region: 'eu-west-1',
        signingService: 'sqs' as 'lambda',
        credentials,
      })
    expect(attempt).toThrow('the signingService option must be one of lambda, execute-api, got sqs')
  })
})
