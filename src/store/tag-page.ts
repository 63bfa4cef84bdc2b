// Pages of the jobs with a tag (GET /jobs?tag=, DelayQueue.listByTag), in id order across shards: each shard's next
// ids from its tag index (src/store/tag-index.ts), read on every shard at once and merged, then each shown job looked
// up (lua/get.lua, all at once). The cursor is the last id shown: the next page starts after it on every shard. A
// snapshot of a moving queue, as the pending list is: a job sent or cancelled between the two reads is left out.
import { decodeRecord } from './record'
import { rideOut } from './redis/ride-out'
import { decodeGet, getCall } from './scripts/get'
import { runScript } from './scripts'
import type { JobStore } from './job-store'
import { tagIds } from './tag-index'
import { isoTime } from '../shared/iso-time'
import type { TaggedJob, TagPage } from '../contract/tag'

export type { TaggedJob, TagPage }

export async function readTagPage(
  store: Pick<JobStore, 'redis' | 'keys'>,
  tag: string,
  options: { limit: number; cursor: string | null },
): Promise<TagPage> {
  const { redis, keys } = store
  const { limit, cursor } = options
  const perShard = await rideOut(redis, () =>
    Promise.all(keys.shards.map((s) => tagIds(redis, s, tag, cursor, limit + 1))),
  )
  const ids = perShard.flat().sort()
  const shown = ids.slice(0, limit)
  const replies = await rideOut(redis, () =>
    Promise.all(shown.map((id) => runScript(redis, getCall(keys.locate(id), id)))),
  )
  const jobs: TaggedJob[] = []
  replies.forEach((reply, i) => {
    const found = decodeGet(reply)
    if (!found || found.state === 'dispatched') return
    const { state, score } = found
    const job = decodeRecord(found.record)
    jobs.push({
      id: shown[i]!,
      queue: job.queue,
      runAt: isoTime(score),
      ...(job.groupId ? { groupId: job.groupId } : {}),
      createdAt: isoTime(job.createdAtMs),
      payloadBytes: Buffer.byteLength(job.payloadJson),
      status: state === 'retrying' ? 'scheduled' : state,
      tags: job.tags ?? [],
    })
  })
  return { jobs, cursor: ids.length > limit ? shown[shown.length - 1]! : null }
}
