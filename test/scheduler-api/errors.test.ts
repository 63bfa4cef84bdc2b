// Every exception the Scheduler API answers with reaches the caller as the SDK's own class with AWS's status code,
// and a full Redis is a ServiceQuotaExceededException that stores nothing; a Redis too busy to answer now is a
// ThrottlingException.
import {
  ConflictException,
  CreateScheduleCommand,
  GetScheduleCommand,
  InternalServerException,
  ListSchedulesCommand,
  ResourceNotFoundException,
  SchedulerClient,
  ServiceQuotaExceededException,
  ThrottlingException,
  ValidationException,
} from '@aws-sdk/client-scheduler'
import { ReplyError } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { localCredentials } from '../../local/sqs-endpoint'
import { StoreUnavailableError } from '../../src/errors'
import { asSchedulerError, errorAnswer } from '../../src/scheduler-api/error-answer'
import {
  SchedulerConflictError,
  SchedulerInternalError,
  SchedulerNotFoundError,
  SchedulerQuotaError,
  SchedulerThrottlingError,
  SchedulerValidationError,
} from '../../src/scheduler-api/errors'
import { serveScheduler } from '../../src/scheduler-api/http-server'
import { cappedRedisForFile } from '../support/capped-redis'
import { atExpression, startSchedulerStack } from './scheduler-stack'

const capped = cappedRedisForFile()
let stack: Awaited<ReturnType<typeof startSchedulerStack>>
beforeAll(async () => {
  stack = await startSchedulerStack({ redisUrl: capped.server.url })
})
afterAll(() => stack?.close())

describe('Scheduler API errors as the SDK knows them', () => {
  it('answers each exception type with its status, and the SDK raises its own class for it', async () => {
    const cases = [
      [new SchedulerValidationError('v'), ValidationException, 400],
      [new SchedulerNotFoundError('n'), ResourceNotFoundException, 404],
      [new SchedulerConflictError('c'), ConflictException, 409],
      [new SchedulerQuotaError('q'), ServiceQuotaExceededException, 402],
      [new SchedulerThrottlingError('t'), ThrottlingException, 429],
      [new SchedulerInternalError('i'), InternalServerException, 500],
    ] as const
    for (const [error, sdkClass, status] of cases) {
      // A front door that answers only this error: the wire format is what is under test.
      const server = await serveScheduler(async () => errorAnswer(error))
      const client = new SchedulerClient({
        endpoint: server.url,
        region: 'us-east-1',
        credentials: localCredentials,
        maxAttempts: 1,
      })
      const call = client.send(new ListSchedulesCommand({}))
      await expect(call, error.type).rejects.toBeInstanceOf(sdkClass)
      await expect(call, error.type).rejects.toMatchObject({
        message: error.message,
        $metadata: { httpStatusCode: status },
      })
      client.destroy()
      await server.close()
    }
  })

  it('answers ServiceQuotaExceededException (402) when Redis is full, stores nothing, and still answers reads', async () => {
    await stack.client.send(new ListSchedulesCommand({}))
    await capped.admin.config('SET', 'maxmemory', '1')
    try {
      await expect(stack.client.send(new ListSchedulesCommand({}))).resolves.toMatchObject({ Schedules: [] })
      const create = stack.client.send(
        new CreateScheduleCommand({
          Name: 'no-room',
          ScheduleExpression: atExpression(Date.now() + 3_600_000),
          FlexibleTimeWindow: { Mode: 'OFF' },
          Target: stack.target('x'),
        }),
      )
      await expect(create).rejects.toBeInstanceOf(ServiceQuotaExceededException)
      await expect(create).rejects.toMatchObject({ $metadata: { httpStatusCode: 402 } })
    } finally {
      await capped.admin.config('SET', 'maxmemory', '0')
    }
    await expect(stack.client.send(new GetScheduleCommand({ Name: 'no-room' }))).rejects.toBeInstanceOf(
      ResourceNotFoundException,
    )
  })
})

describe("Redis's overload replies as ThrottlingException", () => {
  it('answers ThrottlingException when Redis is busy with a script or out of client slots, and not for an outage', () => {
    // prepare: the replies as Redis words them; engine writes arrive wrapped (src/store/redis/redis-errors.ts, guard),
    // definition writes as the reply itself
    const busy = new ReplyError(
      'BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.',
    )
    const noClientSlot = new ReplyError('ERR max number of clients reached')
    const down = new Error('connect ECONNREFUSED 127.0.0.1:6379')
    // act
    const answers = [new StoreUnavailableError(busy), busy, new StoreUnavailableError(noClientSlot)].map(
      asSchedulerError,
    )
    const outage = asSchedulerError(new StoreUnavailableError(down))
    // assess
    for (const answer of answers) expect(answer).toBeInstanceOf(SchedulerThrottlingError)
    expect(outage).toBeInstanceOf(SchedulerInternalError)
  })
})
