// The business Lambda on the "nudges" target queue: nudges a user who has been quiet for the whole period.
import type { DelayQueue } from '../../src/direct/delay-queue'
import { jobHandler, type JobHandlerOptions } from '../../src/consumer'
import { scheduleNudge, WEEK_MS } from './app'
import type { Users } from './users'

export interface NudgePayload {
  userId: string
}

export function nudgeHandler(
  users: Users,
  send: (userId: string) => Promise<void>,
  queue: Pick<DelayQueue, 'reschedule'>,
  quietMs = WEEK_MS,
  options: JobHandlerOptions<NudgePayload> = {},
) {
  return jobHandler<NudgePayload>(async ({ payload }, { logger }) => {
    const user = users.get(payload.userId)
    if (!user || user.nudgedAt) return
    const quietForMs = Date.now() - user.lastActiveAt
    if (quietForMs < quietMs) {
      // Activity while this job was being handed to SQS could not move it (recordActivity was refused): move the
      // user's nudge to a week after that activity now. Should this job not have left Redis yet, this throws and
      // SQS delivers the message again later; a nudge moved by activity since is moved to the same time.
      await scheduleNudge(queue, user.id, quietMs - quietForMs)
      return
    }
    await send(user.id)
    user.nudgedAt = Date.now()
    logger.info('nudged', { userId: user.id })
  }, options)
}
