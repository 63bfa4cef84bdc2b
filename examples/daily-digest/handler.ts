// The business Lambda on the "digests" target queue: builds and sends one user's digest for one occurrence.
import { jobHandler, type JobHandlerOptions } from '../../src/consumer'
import type { Outbox } from './digests'

export interface DigestPayload {
  userId: string
}

export function digestHandler(
  outbox: Outbox,
  send: (userId: string, asOf: string) => Promise<void>,
  options: JobHandlerOptions<DigestPayload> = {},
) {
  return jobHandler<DigestPayload>(async ({ payload, occurrenceAt, runAt }, { logger }) => {
    // The occurrence time, not "now", is the digest's cut-off: a late or repeated delivery covers the same period.
    const asOf = occurrenceAt ?? runAt
    if (!outbox.record(payload.userId, asOf)) return
    await send(payload.userId, asOf)
    logger.info('digest sent', { userId: payload.userId, asOf })
  }, options)
}
