// The dev terminal's line per job outcome (local/job-lines.ts): a user sees that a job ran, how late, and why one
// failed, in one short line each, from the consumer toolkit's real JSON log lines.
import { describe, expect, it } from 'vitest'
import { jobOutcomeLine } from '../../local/job-lines'

const common =
  '"timestamp":"2026-11-29T09:13:22.787Z","service":"example-consumer","cold_start":false,' +
  '"function_name":"consumer","function_request_id":"90f46c72","sampling_rate":0'

describe('the dev terminal’s job lines', () => {
  it('turns a job done into one line naming the job, its queue, its lateness and its SQS message', () => {
    // prepare: the consumer toolkit's line as serverless-offline prints it
    const line = `{"level":"INFO","message":"job done",${common},"jobId":"hello-1","queue":"orders","attempt":1,"latenessMs":4,"messageId":"4ea5dcce","durationMs":1}`
    // act / assess
    expect(jobOutcomeLine(line)).toBe(
      '[job] hello-1 on orders done, 4 ms after its due time, ran 1 ms (SQS message 4ea5dcce)',
    )
  })

  it('turns a job failed into one line with the attempt and the error’s message, and drops job received', () => {
    // prepare
    const failed = `{"level":"ERROR","message":"job failed",${common},"jobId":"try-dlq","queue":"orders","attempt":3,"latenessMs":9,"messageId":"m-2","retryInSeconds":20,"error":{"name":"Error","location":"functions/consumer.ts:15","message":"the payload asked this example consumer to fail (\\"fail\\": true)","stack":"Error: ..."}}`
    const received = `{"level":"INFO","message":"job received",${common},"jobId":"try-dlq","queue":"orders","attempt":3}`
    // act / assess
    expect(jobOutcomeLine(failed)).toBe(
      '[job] try-dlq on orders FAILED, attempt 3: the payload asked this example consumer to fail ("fail": true) ' +
        '(retried in 20 s)',
    )
    expect(jobOutcomeLine(received)).toBeNull()
  })

  it('says when a failure was the last attempt, after which SQS moves the message to the DLQ', () => {
    // prepare
    const last = `{"level":"ERROR","message":"last attempt: to the DLQ",${common},"jobId":"try-dlq","queue":"orders","attempt":5,"maxReceiveCount":5,"error":{"name":"Error","message":"boom"}}`
    // act / assess
    expect(jobOutcomeLine(last)).toBe(
      '[job] try-dlq on orders FAILED, attempt 5: boom (the last of 5 receives: SQS moves it to the DLQ)',
    )
  })

  it('leaves every other line as it is: the scan’s report, the API’s requests, text that is not JSON', () => {
    // prepare
    const lines = [
      '{"level":"INFO","message":"scan finished","service":"scan","dispatched":3}',
      'POST /jobs (λ: api)',
      '{"level":"INFO","message":"job done" but cut',
    ]
    // act / assess
    expect(lines.map(jobOutcomeLine)).toEqual([undefined, undefined, undefined])
  })
})
