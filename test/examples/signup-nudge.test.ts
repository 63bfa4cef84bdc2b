// Seed: a nudge one week after sign-up, pushed back each time the user is active. One "week" is 400 ms here.
import { sleep } from '../../devkit/sleep'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { nudgeJobId, recordActivity, signUp } from '../../examples/signup-nudge/app'
import { nudgeHandler } from '../../examples/signup-nudge/handler'
import { Users } from '../../examples/signup-nudge/users'
import { eventually, silentLogger, startPipeline } from '../support/pipeline'

const WEEK = 400
const users = new Users()
const sent: { userId: string; at: number }[] = []
let pipeline: Awaited<ReturnType<typeof startPipeline>>

beforeAll(async () => {
  const send = async (userId: string) => void sent.push({ userId, at: Date.now() })
  pipeline = await startPipeline('nudges', (sqs, queue) =>
    nudgeHandler(users, send, queue, WEEK, { sqs, logger: silentLogger() }),
  )
})
afterAll(() => pipeline.stop())

describe('example: sign-up nudge', () => {
  it('nudges a quiet user a week after sign-up, and an active one a week after their last activity', async () => {
    // prepare
    await signUp(pipeline.queue, users, 'quiet', WEEK)
    await signUp(pipeline.queue, users, 'busy', WEEK)
    // act: "busy" comes back twice within the week
    for (let i = 0; i < 2; i++) {
      await sleep(WEEK / 2)
      await recordActivity(pipeline.queue, users, 'busy', WEEK)
    }
    await eventually(() => sent.length === 2)
    // assess
    const at = (id: string) => sent.find((s) => s.userId === id)!.at
    expect(at('quiet') - users.get('quiet')!.signedUpAt).toBeGreaterThanOrEqual(WEEK)
    expect(at('busy') - users.get('busy')!.lastActiveAt).toBeGreaterThanOrEqual(WEEK)
    expect(at('busy')).toBeGreaterThan(at('quiet'))
    expect(await pipeline.store.get(nudgeJobId('busy'))).toBeNull()
  })

  it('nudges a user a week after activity that came while their nudge was being handed to SQS', async () => {
    // prepare: the user's nudge is on its way to SQS, so the reschedule of their activity was refused (as
    // recordActivity's JobDispatchingError): the user is active, and the only nudge job left is the one leaving now
    users.signUp('racer')
    await pipeline.queue.schedule({ id: nudgeJobId('racer'), queue: 'nudges', payload: { userId: 'racer' } })
    users.touch('racer')
    // act
    await eventually(() => sent.some((s) => s.userId === 'racer'))
    // assess: not nudged by the stale job, but a week after the activity
    const nudged = sent.find((s) => s.userId === 'racer')!
    expect(nudged.at - users.get('racer')!.lastActiveAt).toBeGreaterThanOrEqual(WEEK)
    expect(sent.filter((s) => s.userId === 'racer')).toHaveLength(1)
  })

  it('keeps one job per user however often they are active', async () => {
    await signUp(pipeline.queue, users, 'chatty', 60_000)
    for (let i = 0; i < 20; i++) await recordActivity(pipeline.queue, users, 'chatty', 60_000)
    expect((await pipeline.store.stats()).queues.nudges!.pending).toBe(1)
    expect((await pipeline.store.get(nudgeJobId('chatty')))!.status).toBe('scheduled')
    await pipeline.queue.cancel(nudgeJobId('chatty'))
  })
})
