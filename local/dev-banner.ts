// What `npm run dev` prints once the stack is up (local/dev.ts): the addresses to use, the API's routes and who
// consumes which queue. The routes come from the API's own table (src/api/router.ts), so a route added there is listed
// here without anyone remembering to.
import { ROUTES } from '../src/api/router'

export interface BannerConsumer {
  /** The function's key in serverless.yml (`consumer`, `forwarder`). */
  function: string
  /** The target queue it reads. */
  queue: string
}

export interface BannerInput {
  readyInS: number
  apiUrl: string
  dashboardUrl: string
  schedulerUrl: string
  lambdaUrl: string
  sqsEndpoint: string
  redisUrl: string
  queues: Record<string, string>
  scanMode: string
  /** The SQS-triggered functions the stack polls for; empty with --no-example-consumer. */
  consumers: readonly BannerConsumer[]
  envFile: string
}

const INDENT = ' '.repeat(17)

// What each shipped consumer is, for the reader of the banner.
const ROLE_OF: Record<string, string> = {
  consumer: 'the example consumer, one [job] line per job',
  forwarder: 'the HTTP forwarder: calls each job’s URL, docs/http-targets.md',
}

/** The API's routes, one line per first path segment: `GET|POST|DELETE /jobs (?tag=T: by tag), POST /jobs/batch, …`. */
export function apiRouteLines(): string[] {
  const byPath = new Map<string, string[]>()
  for (const { key } of ROUTES) {
    const [method, path] = key.split(' ') as [string, string]
    byPath.set(path, [...(byPath.get(path) ?? []), method])
  }
  const families = new Map<string, string[]>()
  for (const [path, methods] of byPath) {
    const family = path.split('/')[1]!
    const shown = path
      .replace('/queues/{id}', '/queues/{queue}')
      .replace('/keys/{id}', '/keys/{key}')
      .replace('/tags/{id}', '/tags/{tag}')
    const tagQuery = path === '/jobs' || path === '/schedules' ? ' (GET|DELETE ?tag=T: by tag)' : ''
    families.set(family, [...(families.get(family) ?? []), `${methods.join('|')} ${shown}${tagQuery}`])
  }
  return [...families.values()].map((entries) => entries.join(', '))
}

export function devBanner(b: BannerInput): string {
  const target = Object.keys(b.queues)[0]!
  const consumers = b.consumers.length
    ? b.consumers
        .map((c) => `${c.function} reads "${c.queue}"${ROLE_OF[c.function] ? ` (${ROLE_OF[c.function]})` : ''}`)
        .join(`\n${INDENT}`)
    : 'none (--no-example-consumer): run sdq-poll in your service'
  const scan =
    b.scanMode === 'on-demand'
      ? 'on-demand: a tick every minute, and started by enqueues of jobs due soon'
      : 'a tick every minute, each run until the next takes over'
  return `
[dev] ready in ${b.readyInS.toFixed(1)} s
  API            ${b.apiUrl}   (docs/api.md)
${apiRouteLines()
  .map((line) => `${INDENT}${line}`)
  .join('\n')}
  dashboard      ${b.dashboardUrl}   (counts, due jobs, pending list, lateness, dead set, DLQs, schedules, look up)
  Scheduler API  ${b.schedulerUrl}   (@aws-sdk/client-scheduler's endpoint: docs/scheduler-api.md)
  Lambda         ${b.lambdaUrl}/2015-03-31/functions/<name>/invocations
  local SQS      ${b.sqsEndpoint}
  Redis          ${b.redisUrl}
  queues         ${Object.entries(b.queues)
    .map(([n, u]) => `${n} -> ${u}`)
    .join(`\n${INDENT}`)}
  scan           ${scan}
  consumers      ${consumers}
  addresses      ${b.envFile} (for other services: sdq-poll --env ${b.envFile})

Try it (${b.consumers.some((c) => c.queue === target) ? 'the example consumer prints the job about 3 s later' : 'your sdq-poll gets the job about 3 s later'}):
  curl -s -X POST ${b.apiUrl}/jobs -H 'content-type: application/json' \\
    -d '{"queue":"${target}","payload":{"hello":"world"},"delayMs":3000}'
  curl -s ${b.apiUrl}/stats

Ctrl-C stops everything.
`
}
