// Creates that a retry cannot duplicate. A create the API answered 503 ReplicationUnconfirmed is on the Redis primary
// already, and one whose answer was lost may be too: sent again without an id, it would store a second job. So the
// client gives every job its id before the first attempt, and a retry that meets a 409 checks whether the job holding
// the id is the one it sent: then the first attempt's write went through, and the create succeeded.
import type { JobInput, ScheduledJob } from '../direct/delay-queue'
import type { ExistingJob } from '../errors'
import { newJobId } from '../store/ids'

export type JobWithId = JobInput & { id: string }

/** The job as it will be sent, with a time-ordered id when the caller gave none (the same form the API generates). */
export function withId(job: JobInput): JobWithId {
  return job.id === undefined ? { ...job, id: newJobId() } : (job as JobWithId)
}

/**
 * Whether `existing` (a 409's view of the job holding the id) is the job `sent` would have created: same queue,
 * group and payload, and due when `sent` asked. The due time is checked against the job's own clock, which is
 * Redis's: a delay is runAt − createdAt; an absolute time is runAt itself, or createdAt when it was in the past.
 * A job that has since waited for a dispatch retry or died shows another runAt and is not taken for one's own: the
 * caller sees the conflict (and the job, without its payload) and decides.
 */
export function isOwnJob(sent: JobWithId, existing: ExistingJob | undefined): existing is ExistingJob {
  if (!existing || existing.id !== sent.id || !existing.samePayload) return false
  if (existing.queue !== sent.queue || (existing.groupId ?? undefined) !== (sent.groupId ?? undefined)) return false
  const runAt = Date.parse(existing.runAt)
  const createdAt = Date.parse(existing.createdAt)
  if (sent.runAt !== undefined) {
    const asked = typeof sent.runAt === 'number' ? sent.runAt : Date.parse(sent.runAt)
    return runAt === Math.max(asked, createdAt)
  }
  return runAt - createdAt === (sent.delayMs ?? 0)
}

/** The answer a successful create would have given, from the job the retry found. */
export function scheduledOf(
  existing: Pick<ExistingJob, 'id' | 'queue' | 'runAt' | 'createdAt' | 'groupId'>,
): ScheduledJob {
  return {
    id: existing.id,
    queue: existing.queue,
    status: 'scheduled',
    runAt: existing.runAt,
    createdAt: existing.createdAt,
    ...(existing.groupId ? { groupId: existing.groupId } : {}),
  }
}
