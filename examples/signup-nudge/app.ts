// Seed scenario: a nudge one week after sign-up, pushed back each time the user is active again.
//
// One job per user, replaced (PUT / reschedule) on every activity: the queue holds one small record per user
// however active they are, and the nudge fires a week after the last activity.
import type { DelayQueue } from '../../src/client/delay-queue'
import { JobDispatchingError } from '../../src/errors'
import type { Users } from './users'

export const WEEK_MS = 7 * 86_400_000

export const nudgeJobId = (userId: string) => `nudge-${userId}`

export async function signUp(queue: DelayQueue, users: Users, userId: string, quietMs = WEEK_MS) {
  users.signUp(userId)
  await scheduleNudge(queue, userId, quietMs)
}

export async function recordActivity(queue: DelayQueue, users: Users, userId: string, quietMs = WEEK_MS) {
  users.touch(userId)
  await scheduleNudge(queue, userId, quietMs)
}

async function scheduleNudge(queue: DelayQueue, userId: string, quietMs: number) {
  try {
    await queue.reschedule(nudgeJobId(userId), { queue: 'nudges', payload: { userId }, delayMs: quietMs })
  } catch (e) {
    // The nudge is being sent right now: the handler checks activity, so the stale one will not go out.
    if (!(e instanceof JobDispatchingError)) throw e
  }
}
