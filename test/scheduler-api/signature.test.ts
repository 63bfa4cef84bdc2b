// The local endpoint takes any credentials, as AWS emulators do, but only requests signed with SigV4 for the
// `scheduler` service: an unsigned request, or one signed for another service, is refused before anything runs.
import { Hash } from '@smithy/core/serde'
import { SignatureV4 } from '@smithy/signature-v4'
import { ListSchedulesCommand, SchedulerClient } from '@aws-sdk/client-scheduler'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { deployedOptions } from '../../src/scheduler-api/deployed'
import { createSchedulerHandler } from '../../src/scheduler-api/handler'
import { serveScheduler } from '../../src/scheduler-api/http-server'
import { startSchedulerStack } from './scheduler-stack'

let stack: Awaited<ReturnType<typeof startSchedulerStack>>
beforeAll(async () => {
  stack = await startSchedulerStack()
})
afterAll(() => stack?.close())

async function signedFetch(url: string, service: string) {
  const u = new URL(url)
  const signer = new SignatureV4({
    service,
    region: 'us-east-1',
    credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
    sha256: Hash.bind(null, 'sha256'),
  })
  const request = await signer.sign({
    method: 'GET',
    protocol: 'http:',
    hostname: u.hostname,
    port: Number(u.port),
    path: u.pathname,
    query: {},
    headers: { host: u.host },
  })
  return fetch(url, { headers: request.headers })
}

describe('request signing on the local Scheduler endpoint', () => {
  it('accepts the SDK with any credentials', async () => {
    const other = new SchedulerClient({
      endpoint: stack.server.url,
      region: 'eu-west-1',
      credentials: { accessKeyId: 'anything', secretAccessKey: 'at all' },
    })
    await expect(other.send(new ListSchedulesCommand({}))).resolves.toMatchObject({ Schedules: [] })
    other.destroy()
  })

  it('refuses an unsigned request with 403', async () => {
    const answer = await fetch(`${stack.server.url}/schedules`)
    expect(answer.status).toBe(403)
    expect(answer.headers.get('x-amzn-errortype')).toBe('UnrecognizedClientException')
    expect(((await answer.json()) as { Message: string }).Message).toMatch(/not signed/)
  })

  it('refuses a request signed for another service with 403 naming the service it expects', async () => {
    const answer = await signedFetch(`${stack.server.url}/schedules`, 'execute-api')
    expect(answer.status).toBe(403)
    expect(((await answer.json()) as { Message: string }).Message).toMatch(/'scheduler'/)
    expect((await signedFetch(`${stack.server.url}/schedules`, 'scheduler')).status).toBe(200)
  })

  it('as deployed behind API Gateway (execute-api only), takes the SDK with endpoint and signingName changed, not without', async () => {
    // API Gateway's IAM authorization checks the signature's service: only execute-api passes there.
    const gateway = { ...deployedOptions, acceptedServices: ['execute-api'] }
    const server = await serveScheduler(createSchedulerHandler(stack.engine, gateway))
    const config = {
      endpoint: `${server.url}/scheduler`,
      region: 'us-east-1',
      credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
    }
    const unchanged = new SchedulerClient(config)
    await expect(unchanged.send(new ListSchedulesCommand({}))).rejects.toMatchObject({
      $metadata: { httpStatusCode: 403 },
    })
    // The one extra line deployed (docs/scheduler-api.md): a client option the SDK reads, not in its config type.
    const signed = new SchedulerClient({ ...config, ...{ signingName: 'execute-api' } })
    await expect(signed.send(new ListSchedulesCommand({}))).resolves.toMatchObject({ Schedules: [] })
    unchanged.destroy()
    signed.destroy()
    await server.close()
  })

  it('as deployed, takes a request IAM authorization verified even when the front door kept the Authorization header', async () => {
    // prepare: what a Function URL with AWS_IAM hands the function, without the header; and the same event locally
    const event = (authorizer?: object) =>
      ({
        version: '2.0',
        routeKey: '$default',
        rawPath: '/schedules',
        rawQueryString: '',
        headers: { host: 'abc.lambda-url.us-east-1.on.aws' },
        isBase64Encoded: false,
        requestContext: {
          accountId: '123456789012',
          http: { method: 'GET', path: '/schedules' },
          ...(authorizer ? { authorizer } : {}),
        },
      }) as never
    const iam = {
      iam: { accessKey: 'AKIDEXAMPLE', accountId: '123456789012', userArn: 'arn:aws:iam::123456789012:user/u' },
    }
    const deployed = createSchedulerHandler(stack.engine, { ...deployedOptions, basePath: '' })
    const local = createSchedulerHandler(stack.engine, {})
    // act
    const verified = await deployed(event(iam))
    const unverified = await deployed(event())
    const localWithIam = await local(event(iam))
    // assess: only the deployed handler, and only with the front door's verdict, skips the header check
    expect(verified.statusCode).toBe(200)
    expect(JSON.parse(verified.body!)).toMatchObject({ Schedules: [] })
    expect(unverified.statusCode).toBe(403)
    expect(localWithIam.statusCode).toBe(403)
  })
})
