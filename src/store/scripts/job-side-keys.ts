// The key groups several scripts take in one order: the whole job side of a shard around one bucket (enqueue,
// cancel, promote and the schedule scripts; lua/includes/jobSideKeys.lua names them on the Lua side), and a shard's
// job state without a bucket (claim and tag-cancel take it first).
import type { JobLocation, ShardKeys } from '../keys'

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

/** A shard's job state without a bucket: the first seven keys of claim and tag-cancel, in their order. */
export function jobStateKeys(shard: ShardKeys) {
  return {
    jobs: shard.jobs,
    index: shard.index,
    inflight: shard.inflight,
    leases: shard.leases,
    errors: shard.errors,
    dead: shard.dead,
    counts: shard.counts,
  }
}
