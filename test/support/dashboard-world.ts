// A dashboard over the suite's redis-server for a browser test file: its engine (queue "orders" on an SQS address
// nothing answers), a DelayQueue on it, the dashboard server and, where Debian's Chromium is installed, a headless
// browser. Started before the file's tests, stopped after them (also when one fails).
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, inject } from 'vitest'
import { loadConfig } from '../../src/config'
import { DelayQueue } from '../../src/direct/delay-queue'
import { startDashboard, type Dashboard } from '../../src/ops/dashboard/server'
import { createEngine, type Engine } from '../../src/store/engine'
import { HAVE_CHROMIUM, launchChromium } from './chromium'
import { uniquePrefix } from './engine'

export interface DashboardWorld {
  engine: Engine
  dashboard: Dashboard
  queue: DelayQueue
  browser?: Browser
}

/** Sets the world up for the file (keys under a prefix named after `name`); `ready` gets it once it runs. */
export function dashboardWorld(name: string, ready: (world: DashboardWorld) => void): void {
  const world: Partial<DashboardWorld> = {}
  beforeAll(async () => {
    world.engine = createEngine(
      loadConfig({
        REDIS_URL: inject('redisUrl'),
        QUEUES: 'orders=http://127.0.0.1:9/000000000000/orders',
        KEY_PREFIX: uniquePrefix(name),
        SHARDS: '2',
      }),
    )
    world.queue = new DelayQueue(world.engine)
    world.dashboard = await startDashboard(world.engine)
    if (HAVE_CHROMIUM) world.browser = await launchChromium([])
    ready(world as DashboardWorld)
  }, 60_000)
  afterAll(async () => {
    await world.browser?.close()
    await world.dashboard?.close()
    await world.engine?.close()
  })
}
