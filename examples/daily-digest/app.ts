// Seed scenario: a daily digest e-mail at 09:00 in each user's own time zone.
//
// One recurring schedule per user, replaced when they move (a new zone) or change the hour, deleted when they
// unsubscribe. Each occurrence is a job on the "digests" queue; daylight saving time is the schedule's business,
// not the app's: 09:00 stays 09:00 on the wall clock all year.
import type { DelayQueue, ScheduleView } from '../../src/direct/delay-queue'

export const digestScheduleId = (userId: string) => `digest-${userId}`

export interface DigestPreferences {
  /** IANA zone, e.g. "Europe/Berlin". */
  timezone: string
  /** Local hour of the day, 0-23. Default 9. */
  hour?: number
}

/** Create or replace the user's digest schedule. `cron` overrides the daily rule (tests run a "day" per second). */
export function subscribeDigest(
  queue: DelayQueue,
  userId: string,
  prefs: DigestPreferences,
  cron = `0 ${prefs.hour ?? 9} * * *`,
): Promise<ScheduleView> {
  return queue.putSchedule(digestScheduleId(userId), {
    queue: 'digests',
    payload: { userId },
    cron,
    timezone: prefs.timezone,
  })
}

export async function unsubscribeDigest(queue: DelayQueue, userId: string): Promise<void> {
  await queue.deleteSchedule(digestScheduleId(userId))
}
