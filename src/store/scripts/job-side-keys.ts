// The whole job side of a shard around one bucket, in the order enqueue, cancel, promote and the schedule scripts
// take it (lua/includes/jobSideKeys.lua names them on the Lua side).
import type { JobLocation } from '../keys'

export function jobSideKeys({ shard, bucket }: Pick<JobLocation, 'shard' | 'bucket'>) {
  return {
    jobs: shard.jobs,
    index: shard.index,
    bucket,
    inflight: shard.inflight,
    leases: shard.leases,
    errors: shard.errors,
    dead: shard.dead,
    counts: shard.counts,
  }
}
