// CreateSchedule / GetSchedule / UpdateSchedule / DeleteSchedule for at() schedules, through the unmodified SDK:
// what AWS answers (ARNs, full replace, ClientToken), and each failure as the SDK's exception class.
import {
  ConflictException,
  CreateScheduleCommand,
  DeleteScheduleCommand,
  GetScheduleCommand,
  ResourceNotFoundException,
  UpdateScheduleCommand,
  ValidationException,
} from '@aws-sdk/client-scheduler'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { atExpression, startSchedulerStack } from './scheduler-stack'

let stack: Awaited<ReturnType<typeof startSchedulerStack>>
beforeAll(async () => {
  stack = await startSchedulerStack()
})
afterAll(() => stack?.close())

const inAnHour = () => atExpression(Date.now() + 3_600_000)

describe('one-time schedules through @aws-sdk/client-scheduler', () => {
  it('creates, reads back, replaces whole, and deletes an at() schedule, with its job pending in between', async () => {
    const expression = inAnHour()
    const created = await stack.client.send(
      new CreateScheduleCommand({
        Name: 'order-42-timeout',
        ScheduleExpression: expression,
        FlexibleTimeWindow: { Mode: 'OFF' },
        Target: { ...stack.target('{"orderId":42}'), SqsParameters: {} },
        Description: 'close order 42',
      }),
    )
    expect(created.ScheduleArn).toBe('arn:aws:scheduler:us-east-1:000000000000:schedule/default/order-42-timeout')

    const got = await stack.client.send(new GetScheduleCommand({ Name: 'order-42-timeout' }))
    expect(got).toMatchObject({
      Arn: created.ScheduleArn,
      Name: 'order-42-timeout',
      GroupName: 'default',
      ScheduleExpression: expression,
      State: 'ENABLED',
      Description: 'close order 42',
      ActionAfterCompletion: 'NONE',
      FlexibleTimeWindow: { Mode: 'OFF' },
      Target: { Arn: stack.queueArn, Input: '{"orderId":42}' },
    })
    expect(got.CreationDate).toBeInstanceOf(Date)
    const job = await stack.delayQueue.get('scheduler:default:order-42-timeout')
    expect(job).toMatchObject({ status: 'scheduled', queue: 'target', payload: '{"orderId":42}' })

    // Full replace: Description was not sent again, so it is gone; the job moves to the new time.
    const later = atExpression(Date.now() + 7_200_000)
    await stack.client.send(
      new UpdateScheduleCommand({
        Name: 'order-42-timeout',
        ScheduleExpression: later,
        FlexibleTimeWindow: { Mode: 'OFF' },
        Target: stack.target('{"orderId":42,"v":2}'),
      }),
    )
    const replaced = await stack.client.send(new GetScheduleCommand({ Name: 'order-42-timeout' }))
    expect(replaced.Description).toBeUndefined()
    expect(replaced.ScheduleExpression).toBe(later)
    expect(replaced.CreationDate).toEqual(got.CreationDate)
    const moved = await stack.delayQueue.get('scheduler:default:order-42-timeout')
    expect(moved?.runAt).toBe(`${later.slice(3, 22)}.000Z`)

    await stack.client.send(new DeleteScheduleCommand({ Name: 'order-42-timeout' }))
    expect(await stack.delayQueue.get('scheduler:default:order-42-timeout')).toBeNull()
    await expect(stack.client.send(new GetScheduleCommand({ Name: 'order-42-timeout' }))).rejects.toBeInstanceOf(
      ResourceNotFoundException,
    )
  })

  it('answers a create sent again with the same ClientToken as the first, and another create of the name with ConflictException', async () => {
    const input = {
      Name: 'retried-create',
      ScheduleExpression: inAnHour(),
      FlexibleTimeWindow: { Mode: 'OFF' as const },
      Target: stack.target('x'),
      ClientToken: 'token-1',
    }
    const first = await stack.client.send(new CreateScheduleCommand(input))
    const again = await stack.client.send(new CreateScheduleCommand(input))
    expect(again.ScheduleArn).toBe(first.ScheduleArn)
    const other = stack.client.send(new CreateScheduleCommand({ ...input, ClientToken: 'token-2' }))
    await expect(other).rejects.toBeInstanceOf(ConflictException)
    await expect(other).rejects.toMatchObject({ $metadata: { httpStatusCode: 409 } })
  })

  it('answers a delete sent again with the same ClientToken as the first, and one with another token with ResourceNotFoundException', async () => {
    const input = {
      Name: 'deleted-twice',
      ScheduleExpression: inAnHour(),
      FlexibleTimeWindow: { Mode: 'OFF' as const },
    }
    await stack.client.send(new CreateScheduleCommand({ ...input, Target: stack.target('x') }))
    await stack.client.send(new DeleteScheduleCommand({ Name: 'deleted-twice', ClientToken: 'delete-1' }))
    // The first answer was lost, say: the SDK's retry sends the same request, token included.
    await expect(
      stack.client.send(new DeleteScheduleCommand({ Name: 'deleted-twice', ClientToken: 'delete-1' })),
    ).resolves.toBeDefined()
    await expect(
      stack.client.send(new DeleteScheduleCommand({ Name: 'deleted-twice', ClientToken: 'delete-2' })),
    ).rejects.toBeInstanceOf(ResourceNotFoundException)
  })

  it('takes an Input up to 256 KB, as AWS does, and refuses a larger one naming Target.Input', async () => {
    // prepare: 200 KB of JSON (beyond any 8 KB bound), and one byte more than 256 KB
    const big = JSON.stringify({ text: 'é'.repeat(100_000) })
    const tooBig = 'x'.repeat(262_145)
    const base = { ScheduleExpression: inAnHour(), FlexibleTimeWindow: { Mode: 'OFF' as const } }
    // act
    await stack.client.send(new CreateScheduleCommand({ Name: 'big-input', ...base, Target: stack.target(big) }))
    const refused = await stack.client
      .send(new CreateScheduleCommand({ Name: 'too-big-input', ...base, Target: stack.target(tooBig) }))
      .catch((e: unknown) => e)
    // assess: stored and armed whole; the larger one refused
    const got = await stack.client.send(new GetScheduleCommand({ Name: 'big-input' }))
    expect(got.Target?.Input).toBe(big)
    expect(await stack.delayQueue.get('scheduler:default:big-input')).toMatchObject({ payload: big })
    expect(refused).toBeInstanceOf(ValidationException)
    expect(refused).toMatchObject({ message: expect.stringMatching(/^Target.Input /) })
  })

  it('takes an empty Description, as AWS does (0-512 characters)', async () => {
    await stack.client.send(
      new CreateScheduleCommand({
        Name: 'no-description',
        ScheduleExpression: inAnHour(),
        FlexibleTimeWindow: { Mode: 'OFF' },
        Target: stack.target('x'),
        Description: '',
      }),
    )
    expect(await stack.client.send(new GetScheduleCommand({ Name: 'no-description' }))).toMatchObject({
      Description: '',
    })
  })

  it('refuses bad input with ValidationException (400) naming the field, and stores nothing', async () => {
    const base = {
      ScheduleExpression: inAnHour(),
      FlexibleTimeWindow: { Mode: 'OFF' as const },
      Target: stack.target('x'),
    }
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ['kms', { KmsKeyArn: 'arn:aws:kms:us-east-1:000000000000:key/1' }, /KmsKeyArn/],
      ['bad-expression', { ScheduleExpression: 'at(2027-02-30T10:00:00)' }, /ScheduleExpression/],
      ['bad-zone', { ScheduleExpressionTimezone: 'Mars/Olympus' }, /ScheduleExpressionTimezone/],
      ['bad-window', { FlexibleTimeWindow: { Mode: 'FLEXIBLE' } }, /MaximumWindowInMinutes/],
      [
        'unknown-queue',
        { Target: { ...stack.target('x'), Arn: 'arn:aws:sqs:us-east-1:000000000000:nope' } },
        /Target.Arn/,
      ],
      [
        'lambda',
        { Target: { ...stack.target('x'), Arn: 'arn:aws:lambda:us-east-1:000000000000:function:f' } },
        /Target.Arn/,
      ],
      // Beyond the engine's horizon (MAX_HORIZON_DAYS, 400 by default): refused by the engine after the definition was
      // written, which is then taken back.
      ['too-far', { ScheduleExpression: atExpression(Date.now() + 500 * 86_400_000) }, /^ScheduleExpression: /],
    ]
    for (const [name, override, message] of cases) {
      const create = stack.client.send(new CreateScheduleCommand({ Name: name, ...base, ...override } as never))
      await expect(create, name).rejects.toBeInstanceOf(ValidationException)
      await expect(create, name).rejects.toMatchObject({
        message: expect.stringMatching(message),
        $metadata: { httpStatusCode: 400 },
      })
      await expect(stack.client.send(new GetScheduleCommand({ Name: name }))).rejects.toBeInstanceOf(
        ResourceNotFoundException,
      )
    }
  })

  it('answers ResourceNotFoundException (404) for updates and deletes of schedules that do not exist, and for unknown groups', async () => {
    const update = stack.client.send(
      new UpdateScheduleCommand({
        Name: 'never',
        ScheduleExpression: inAnHour(),
        FlexibleTimeWindow: { Mode: 'OFF' },
        Target: stack.target('x'),
      }),
    )
    await expect(update).rejects.toBeInstanceOf(ResourceNotFoundException)
    await expect(update).rejects.toMatchObject({ $metadata: { httpStatusCode: 404 } })
    await expect(stack.client.send(new DeleteScheduleCommand({ Name: 'never' }))).rejects.toBeInstanceOf(
      ResourceNotFoundException,
    )
    const inMissingGroup = stack.client.send(
      new CreateScheduleCommand({
        Name: 'x',
        GroupName: 'missing',
        ScheduleExpression: inAnHour(),
        FlexibleTimeWindow: { Mode: 'OFF' },
        Target: stack.target('x'),
      }),
    )
    await expect(inMissingGroup).rejects.toBeInstanceOf(ResourceNotFoundException)
  })

  it('keeps a DISABLED schedule without a pending job, and arms it when it is enabled', async () => {
    const input = {
      Name: 'paused',
      ScheduleExpression: inAnHour(),
      FlexibleTimeWindow: { Mode: 'OFF' as const },
      Target: stack.target('p'),
    }
    await stack.client.send(new CreateScheduleCommand({ ...input, State: 'DISABLED' }))
    expect(await stack.delayQueue.get('scheduler:default:paused')).toBeNull()
    await stack.client.send(new UpdateScheduleCommand({ ...input, State: 'ENABLED' }))
    expect(await stack.delayQueue.get('scheduler:default:paused')).toMatchObject({ status: 'scheduled' })
  })
})
