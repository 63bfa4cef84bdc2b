// The business Lambda on the "nudges" target queue: nudges a user who has been quiet for the whole period.
import { jobHandler, type JobHandlerOptions } from '../../src/consumer'
import { WEEK_MS } from './app'
import type { Users } from './users'

export interface NudgePayload {
  userId: string
}

export function nudgeHandler(
  users: Users,
  send: (userId: string) => Promise<void>,
  quietMs = WEEK_MS,
  options: JobHandlerOptions<NudgePayload> = {},
) {
  return jobHandler<NudgePayload>(async ({ payload }, { logger }) => {
    const user = users.get(payload.userId)
    // Activity that raced this job wins; a user is nudged once.
    if (!user || user.nudgedAt || Date.now() - user.lastActiveAt < quietMs) return
    await send(user.id)
    user.nudgedAt = Date.now()
    logger.info('nudged', { userId: user.id })
  }, options)
}
