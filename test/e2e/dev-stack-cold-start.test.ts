// A cold start longer than the API function's timeout (10 s) on the local stack: the request waits for it and gets
// the API's answer, as on Lambda, whose init phase does not count toward the function's timeout. serverless-offline's
// own timeout ran from before the worker thread started, so on a loaded machine a burst's first requests timed out
// and, through its payload-2.0 path, answered 200 to DELETEs of jobs that never existed.
import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { devStackForFile } from '../support/dev-stack'
import { uniquePrefix } from '../support/engine'

const COLD_START_MS = 12_000
const dev = devStackForFile({
  env: {
    KEY_PREFIX: uniquePrefix('e2e-cold'),
    // Every worker thread serverless-offline starts waits 12 s before it loads its handler.
    NODE_OPTIONS: `--require ${resolve(__dirname, '../support/slow-worker-start.cjs')}`,
    SDQ_SLOW_WORKER_START_MS: String(COLD_START_MS),
  },
  exampleConsumer: false,
  scanTickMs: 0,
})

describe('npm run dev with a cold start longer than the API timeout', () => {
  it('answers a DELETE of a job that never existed 404 once the cold start is over, not a Lambda timeout', async () => {
    // act
    const started = Date.now()
    const answer = await fetch(`${dev.stack.apiUrl}/jobs/never-created`, { method: 'DELETE' })
    const body = await answer.text()
    // assess: the API's own answer, after the cold start (the worker did wait)
    expect(`${answer.status} ${body}`).toMatch(/^404 \{"error":\{"code":"NotFound"/)
    expect(Date.now() - started).toBeGreaterThanOrEqual(COLD_START_MS - 1_000)
  }, 120_000)
})
