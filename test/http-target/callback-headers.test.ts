// A callback goes to the URL the job's creator gave, not to the queue's target: the queue's default headers (a partner
// API's authorization, its content-type) are not sent with it, while the job itself still gets them. The forwarder's
// work runs with a sender of the test's own that records each request (no traffic at all).
import { Logger } from '@aws-lambda-powertools/logger'
import type { SQSRecord } from 'aws-lambda'
import { describe, expect, it } from 'vitest'
import type { Job } from '../../src/consumer'
import type { callbackJob } from '../../src/http-target/callback-job'
import { forwardJob } from '../../src/http-target/forward-job'
import { readForwarderSettings } from '../../src/http-target/forwarder-settings'
import type { OutgoingRequest, Sender } from '../../src/http-target/send-request'
import { lambdaContext } from '../support/lambda'

const PARTNER = { authorization: 'Bearer partner-token', 'content-type': 'application/xml', 'x-team': 'billing' }

function forwarder() {
  const sent: OutgoingRequest[] = []
  const sender: Sender = {
    send: async (request) => {
      sent.push(request)
      return { status: 200, headers: {}, excerpt: '' }
    },
    close: () => undefined,
  }
  const settings = readForwarderSettings({
    DEPLOY_STAGE: 'local',
    HTTP_TARGETS: JSON.stringify({ partner: { url: 'https://partner.example.com/hooks', headers: PARTNER } }),
  })
  const callbacks: ReturnType<typeof callbackJob>[] = []
  const work = forwardJob({ settings, sender, enqueue: async (cb) => void callbacks.push(cb) })
  const run = (job: Pick<Job<unknown>, 'id' | 'payload'>) =>
    work({ ...job, queue: 'partner', attempt: 1, runAt: '', createdAt: '' } as Job<unknown>, {
      logger: new Logger({ logLevel: 'SILENT' }),
      lambdaContext: lambdaContext({ budgetMs: 30_000 }),
      record: {} as SQSRecord,
    })
  return { sent, callbacks, run }
}

describe('callbacks on a queue with default headers', () => {
  it('go without the queue default headers, as JSON; the job itself keeps them', async () => {
    // prepare: a job with a success callback on a queue whose defaults carry the partner's credentials
    const { sent, callbacks, run } = forwarder()
    await run({ id: 'inv-7', payload: { body: '<a/>', callbacks: { success: 'https://api.example.com/done' } } })
    expect(sent[0]!.headers).toMatchObject(PARTNER)
    // act: the forwarder handles the callback job it scheduled
    const [cb] = callbacks
    await run({ id: cb!.id, payload: cb!.payload })
    // assess
    const callback = sent[1]!
    expect(callback.url.href).toBe('https://api.example.com/done')
    expect(callback.headers).not.toHaveProperty('authorization')
    expect(callback.headers).not.toHaveProperty('x-team')
    expect(callback.headers['content-type']).toBe('application/json')
    expect(JSON.parse(callback.body!.toString())).toMatchObject({ type: 'delayqueue.job.succeeded', jobId: 'inv-7' })
  })
})
