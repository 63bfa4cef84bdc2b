// The count the chaos run's duplicate bound rests on (test/faults/unanswered-sends.ts): every SendMessageBatch attempt
// that may have reached SQS without a definite answer reports its entries, the SDK's own retry included; a definite
// answer reports nothing, and an answer that leaves entries unnamed reports those. Against a loopback HTTP server
// that answers as told.
import { createServer } from 'node:http'
import { afterEach, describe, expect, it } from 'vitest'
import { sendMessageBatchBody, sendPrebuilt } from '../../src/sqs/prebuilt-body'
import { createSqsClient } from '../../src/sqs/sqs-client'
import { countUnansweredSends } from '../faults/unanswered-sends'
import { listenOnLoopback, type LoopbackServer } from '../../devkit/loopback-server'

type Answer = { status: number; body: object } | 'never'

const opened: LoopbackServer[] = []
afterEach(async () => {
  for (const server of opened.splice(0)) await server.close()
})

/** A loopback "SQS" that answers every request with `answer`, and a client of it whose attempts are counted. */
async function stage(answer: Answer) {
  const server = await listenOnLoopback(
    createServer((req, res) => {
      req.resume()
      if (answer === 'never') return
      res.writeHead(answer.status, { 'content-type': 'application/x-amz-json-1.0' })
      res.end(JSON.stringify(answer.body))
    }),
  )
  opened.push(server)
  // A lease of 800 ms: each attempt times out after 200 ms (src/sqs/sqs-client.ts sendTimeoutMs).
  const sqs = createSqsClient({ region: 'us-east-1', sqsEndpoint: server.url, sendConcurrency: 1, leaseMs: 800 })
  const reports: number[] = []
  countUnansweredSends(sqs, (entries) => reports.push(entries))
  const queueUrl = `${server.url}/000000000000/orders`
  const entries = ['a', 'b', 'c'].map((id, i) => ({ Id: `e${i}`, MessageBody: id, jobId: id }))
  const send = async () => {
    try {
      await sendPrebuilt(sqs, queueUrl, sendMessageBatchBody(queueUrl, entries, 'sdqJobId'))
      return 'answered'
    } catch (e) {
      return (e as Error).name
    } finally {
      sqs.destroy()
    }
  }
  return { reports, send }
}

const ok = (id: string) => ({ Id: id, MessageId: `m-${id}`, MD5OfMessageBody: '' })

describe('unanswered sends', () => {
  it('reports the entries of each attempt that timed out, the SDK retry included', async () => {
    const { reports, send } = await stage('never')
    expect(await send()).toBe('TimeoutError')
    expect(reports).toEqual([3, 3])
  })

  it('reports the entries of each attempt a server error answered (SQS may have taken them)', async () => {
    const { reports, send } = await stage({ status: 500, body: { __type: 'InternalFailure', message: 'oops' } })
    expect(await send()).not.toBe('answered')
    expect(reports).toEqual([3, 3])
  })

  it('reports the entries an answer does not name, and nothing for a definite answer or refusal', async () => {
    const partial = await stage({ status: 200, body: { Successful: [ok('e0')], Failed: [] } })
    expect(await partial.send()).toBe('answered')
    expect(partial.reports).toEqual([2])

    const failed = { Id: 'e2', Code: 'InvalidParameterValue', SenderFault: true, Message: 'no' }
    const named = await stage({ status: 200, body: { Successful: [ok('e0'), ok('e1')], Failed: [failed] } })
    expect(await named.send()).toBe('answered')
    const refused = await stage({ status: 400, body: { __type: 'AWS.SimpleQueueService.NonExistentQueue' } })
    expect(await refused.send()).not.toBe('answered')
    expect([named.reports, refused.reports]).toEqual([[], []])
  })
})
