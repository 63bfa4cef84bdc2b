// `npm run dev` serves the Scheduler-compatible API: it prints its address, writes SCHEDULER_ENDPOINT into the env
// file, and an at() schedule made there with the unmodified SDK reaches the stack's queue as its Input, on time.
import { CreateScheduleCommand, SchedulerClient } from '@aws-sdk/client-scheduler'
import { GetQueueAttributesCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { readDevEnv } from '../../tools/sdq-poll/dev-env'
import { devStackForFile } from '../support/dev-stack'
import { uniquePrefix } from '../support/engine'
import { sqsClient } from '../support/sqs'
import { atExpression } from './scheduler-stack'

const dir = mkdtempSync(join(tmpdir(), 'sdq-scheduler-dev-'))
const envFile = join(dir, 'env')
const dev = devStackForFile({ env: { KEY_PREFIX: uniquePrefix('sched-dev') }, exampleConsumer: false, envFile })
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('npm run dev: the Scheduler-compatible API', () => {
  it('prints its address, writes SCHEDULER_ENDPOINT, and fires an at() schedule into the stack queue', async () => {
    const env = readDevEnv(envFile)
    expect(env.SCHEDULER_ENDPOINT).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(dev.output).toContain(`[dev] scheduler API ${env.SCHEDULER_ENDPOINT}`)
    const sqs = sqsClient(dev.stack.sqsEndpoint)
    const queueUrl = dev.stack.queues.orders!
    const { Attributes } = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }),
    )
    // Only the endpoint differs from code written for AWS (the env file's credentials are dummies the stack accepts).
    const scheduler = new SchedulerClient({
      endpoint: env.SCHEDULER_ENDPOINT,
      region: env.AWS_REGION,
      credentials: { accessKeyId: env.AWS_ACCESS_KEY_ID!, secretAccessKey: env.AWS_SECRET_ACCESS_KEY! },
    })
    const atMs = Math.ceil(Date.now() / 1000) * 1000 + 2_000
    await scheduler.send(
      new CreateScheduleCommand({
        Name: 'dev-order-42',
        ScheduleExpression: atExpression(atMs),
        FlexibleTimeWindow: { Mode: 'OFF' },
        Target: {
          Arn: Attributes!.QueueArn!,
          RoleArn: 'arn:aws:iam::000000000000:role/unused',
          Input: '{"orderId":42}',
        },
      }),
    )
    let body: string | undefined
    let sentAt = 0
    while (body === undefined && Date.now() < atMs + 30_000) {
      const { Messages } = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          WaitTimeSeconds: 1,
          MessageSystemAttributeNames: ['SentTimestamp'],
        }),
      )
      body = Messages?.[0]?.Body
      sentAt = Number(Messages?.[0]?.Attributes?.SentTimestamp)
    }
    expect(body).toBe('{"orderId":42}')
    expect(sentAt).toBeGreaterThanOrEqual(atMs)
    scheduler.destroy()
    sqs.destroy()
  }, 60_000)
})
