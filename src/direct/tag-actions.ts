// What DelayQueue does by tag: a page of the jobs with a tag, and cancel them all (src/store/tag-page.ts,
// src/store/tag-cancel.ts), with the tag, the limit and the cursor checked first.
import type { JobStore } from '../store/job-store'
import { guard } from '../store/redis/redis-errors'
import { cancelByTag as cancelInStore, type TagCancelOptions, type TagCancelResult } from '../store/tag-cancel'
import { readTagPage, type TagPage } from '../store/tag-page'
import { validateJobId } from './id-rules'
import { validateLimit } from './page-rules'
import { validateTag } from './tag-rules'

export interface TagPageOptions {
  limit?: number
  cursor?: string | null
}

export async function listByTag(store: JobStore, tag: string, options: TagPageOptions): Promise<TagPage> {
  const limit = validateLimit(options.limit ?? 50)
  const cursor = options.cursor ? validateJobId(options.cursor, 'cursor') : null
  validateTag(tag)
  await store.ready()
  return guard(readTagPage(store, tag, { limit, cursor }))
}

export async function cancelByTag(store: JobStore, tag: string, options: TagCancelOptions): Promise<TagCancelResult> {
  validateTag(tag)
  await store.ready()
  return guard(cancelInStore(store.redis, store.keys, store.replication, tag, options))
}
