// The keys schedule-put and schedule-delete take, in their headers' order.
import type { JobLocation } from '../keys'
import { jobSideKeys } from './job-side-keys'

/** The keys a schedule script touches besides its schedule: the whole job side of its shard, and its bucket. */
export function scheduleKeys({ shard, bucket }: JobLocation) {
  return {
    schedules: shard.schedules,
    scheduleIds: shard.scheduleIds,
    ...jobSideKeys({ shard, bucket }),
    tags: shard.tags,
    scheduleTags: shard.scheduleTags,
  }
}
