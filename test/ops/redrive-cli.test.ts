// `npm run sdq -- redrive` as an operator types it: what it refused is printed, and the exit code says so.
import { SendMessageCommand } from '@aws-sdk/client-sqs'
import { afterAll, describe, expect, inject, it } from 'vitest'
import { messageBody } from '../../src/sqs/envelope'
import { uniquePrefix } from '../support/engine'
import { runSdq } from '../support/sdq-cli'
import { approximateCount, createTargetWithDlq, sqsClient } from '../support/sqs'

const sqs = sqsClient()
afterAll(() => sqs.destroy())

describe('sdq redrive', () => {
  it('prints the messages it refused, with their reason, and exits 3', async () => {
    // prepare: the emails DLQ holds one good message and one whose body names another queue
    const emails = await createTargetWithDlq(sqs, 'emails')
    const orders = await createTargetWithDlq(sqs, 'orders')
    for (const [id, queue] of [
      ['cli-good', 'emails'],
      ['cli-stray', 'orders'],
    ] as const) {
      const body = messageBody({ id, queue, payloadJson: '{}', dueMs: 0, createdAtMs: 0 }, 0)
      await sqs.send(new SendMessageCommand({ QueueUrl: emails.dlq.url, MessageBody: body }))
    }
    const env = {
      REDIS_URL: inject('redisUrl'),
      SQS_ENDPOINT: inject('sqsEndpoint'),
      QUEUES: `emails=${emails.target.url},orders=${orders.target.url}`,
      KEY_PREFIX: uniquePrefix('cli'),
    }
    // act
    const r = await runSdq(env, 'redrive', '--dlq-url', emails.dlq.url, '--direct')
    // assess
    expect(r.code).toBe(3)
    expect(JSON.parse(r.stdout)).toEqual({
      queue: 'emails',
      moved: 1,
      skipped: [expect.objectContaining({ jobId: 'cli-stray', reason: expect.stringMatching(/names queue "orders"/) })],
    })
    expect(await approximateCount(sqs, emails.target.url)).toBe(1)
    expect(await approximateCount(sqs, orders.target.url)).toBe(0)
  })
})
