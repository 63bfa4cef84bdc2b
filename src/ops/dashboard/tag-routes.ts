// The dashboard's tag routes: the pending list filtered by a tag, how many jobs hold a tag (what the page's
// confirmation shows before it cancels them), and cancel them all. The dashboard is a local tool: its cancel runs
// until done, step by bounded step (src/store/tag-cancel.ts), with no time budget.
import type { IncomingMessage } from 'node:http'
import type { DelayQueue } from '../../direct/delay-queue'
import { validateTag } from '../../direct/tag-rules'
import type { Engine } from '../../store/engine'
import { tagCount } from '../../store/tag-index'

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
        const counts = await Promise.all(engine.keys.shards.map((s) => tagCount(engine.redis, s, tag)))
        return [200, { tag, jobs: counts.reduce((a, b) => a + b, 0) }]
      },
    ],
    ['DELETE', /^\/api\/pending$/, async (req) => [200, { tag: tagOf(req), ...(await queue.cancelByTag(tagOf(req))) }]],
  ]
}
