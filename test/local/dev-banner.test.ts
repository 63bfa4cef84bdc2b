// The `npm run dev` banner is where a new user learns the local API's routes and what consumes each queue: it lists
// every route the API answers (src/api/router.ts) and every consumer the stack polls for, the HTTP forwarder included.
import { describe, expect, it } from 'vitest'
import { apiRouteLines, devBanner, type BannerInput } from '../../local/dev-banner'
import { ROUTES } from '../../src/api/router'

const STACK: BannerInput = {
  readyInS: 4.2,
  apiUrl: 'http://127.0.0.1:3000',
  dashboardUrl: 'http://127.0.0.1:3003',
  schedulerUrl: 'http://127.0.0.1:40123',
  lambdaUrl: 'http://127.0.0.1:3002',
  sqsEndpoint: 'http://127.0.0.1:9324',
  redisUrl: 'redis://127.0.0.1:6379',
  queues: {
    orders: 'http://127.0.0.1:9324/000000000000/orders',
    emails: 'http://127.0.0.1:9324/000000000000/emails',
    webhooks: 'http://127.0.0.1:9324/000000000000/webhooks',
  },
  scanMode: 'continuous',
  consumers: [
    { function: 'consumer', queue: 'orders' },
    { function: 'forwarder', queue: 'webhooks' },
  ],
  envFile: '/repo/.dev/env',
}

/** "POST|GET /jobs (note), PUT /x/{queue}" -> ["POST /jobs", "GET /jobs", "PUT /x/{id}"], as the router keys them. */
function routeKeysOf(lines: readonly string[]): string[] {
  return lines.flatMap((line) =>
    line
      .replace(/ \([^)]*\)/g, '')
      .split(', ')
      .flatMap((entry) => {
        const [methods, path] = entry.split(' ') as [string, string]
        const keyed = path.replace(/\{(queue|key|tag)\}/, '{id}')
        return methods.split('|').map((method) => `${method} ${keyed}`)
      }),
  )
}

describe('the npm run dev banner', () => {
  it("lists every route of the API's table, and no other", () => {
    // act
    const listed = routeKeysOf(apiRouteLines())
    // assess
    expect([...listed].sort()).toEqual(ROUTES.map((r) => r.key).sort())
  })

  it('prints the route lines under the API, the tag query and the flow routes with readable names', () => {
    // act
    const banner = devBanner(STACK)
    // assess
    for (const line of apiRouteLines()) expect(banner).toContain(`\n                 ${line}\n`)
    expect(banner).toContain('GET|POST|DELETE /jobs (GET|DELETE ?tag=T: by tag)')
    expect(banner).toContain('PUT /flow/queues/{queue}, PUT /flow/keys/{key}')
  })

  it('names each consumer with its queue: the example consumer and the HTTP forwarder on webhooks', () => {
    // act
    const banner = devBanner(STACK)
    // assess
    expect(banner).toMatch(
      /consumers {6}consumer reads "orders" \(the example consumer[^)]*\)\n {17}forwarder reads "webhooks" \(the HTTP forwarder/,
    )
    expect(banner).toContain('the example consumer prints the job about 3 s later')
  })

  it('says that nothing consumes with --no-example-consumer, and who gets the first job then', () => {
    // act
    const banner = devBanner({ ...STACK, consumers: [] })
    // assess
    expect(banner).toContain('consumers      none (--no-example-consumer): run sdq-poll in your service')
    expect(banner).toContain('your sdq-poll gets the job about 3 s later')
  })
})
