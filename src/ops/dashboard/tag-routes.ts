// The dashboard's tag routes: the pending list filtered by a tag, how many jobs and schedules hold a tag (what the
// page's confirmations show before it cancels or deletes them), cancel the jobs, and list and delete the recurring
// schedules with the tag. The dashboard is a local tool: its cancel and delete run until done, step by bounded step
// (src/store/tag-cancel.ts, src/store/schedule-tag-delete.ts), with no time budget.
import type { IncomingMessage } from 'node:http'
import type { DelayQueue } from '../../direct/delay-queue'
import { validateTag } from '../../direct/tag-rules'
import type { Engine } from '../../store/engine'
import { tagCount } from '../../store/tag-index'
import { scheduleTagCount } from '../../store/schedule-tag-delete'

type Handler = (req: IncomingMessage, match: RegExpMatchArray) => Promise<[number, unknown?]>

const tagOf = (req: IncomingMessage) => validateTag(new URL(req.url ?? '/', 'http://dashboard').searchParams.get('tag'))

/** GET /api/pending?tag=&cursor=&limit=: a page of the jobs with a tag (src/store/tag-page.ts). */
export function taggedPage(queue: DelayQueue, req: IncomingMessage): Promise<unknown> {
  const query = new URL(req.url ?? '/', 'http://dashboard').searchParams
  return queue.listByTag(tagOf(req), { limit: Number(query.get('limit') ?? '20'), cursor: query.get('cursor') || null })
}

export function tagRoutes(queue: DelayQueue, engine: Engine): [string, RegExp, Handler][] {
  return [
    [
      'GET',
      /^\/api\/tags\/count$/,
      async (req) => {
        const tag = tagOf(req)
        const { shards } = engine.keys
        const [jobs, schedules] = await Promise.all([
          Promise.all(shards.map((s) => tagCount(engine.redis, s, tag))),
          Promise.all(shards.map((s) => scheduleTagCount(engine.redis, s, tag))),
        ])
        return [200, { tag, jobs: sum(jobs), schedules: sum(schedules) }]
      },
    ],
    ['DELETE', /^\/api\/pending$/, async (req) => [200, { tag: tagOf(req), ...(await queue.cancelByTag(tagOf(req))) }]],
    // The first schedules of the tag, by id (the page shows them under the filter), and delete them all.
    ['GET', /^\/api\/schedules$/, async (req) => [200, await queue.listSchedules({ tag: tagOf(req), limit: 20 })]],
    [
      'DELETE',
      /^\/api\/schedules$/,
      async (req) => [200, { tag: tagOf(req), ...(await queue.deleteSchedulesByTag(tagOf(req))) }],
    ],
  ]
}

const sum = (counts: number[]) => counts.reduce((a, b) => a + b, 0)
