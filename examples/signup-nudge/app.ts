// Seed scenario: a nudge one week after sign-up, pushed back each time the user is active again.
//
// One job per user, replaced (PUT / reschedule) on every activity: the queue holds one small record per user
// however active they are, and the nudge fires a week after the last activity.
import type { DelayQueue } from '../../src/direct/delay-queue'
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
  try {
    await scheduleNudge(queue, userId, quietMs)
  } catch (e) {
    // The nudge is being handed to SQS right now and can no longer be moved: its handler sees this activity and
    // schedules the next nudge itself (handler.ts).
    if (!(e instanceof JobDispatchingError)) throw e
  }
}

/** Creates or moves the user's one nudge job to `delayMs` from now. */
export async function scheduleNudge(queue: Pick<DelayQueue, 'reschedule'>, userId: string, delayMs: number) {
  await queue.reschedule(nudgeJobId(userId), { queue: 'nudges', payload: { userId }, delayMs })
}
