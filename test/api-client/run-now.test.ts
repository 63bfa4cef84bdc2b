// The API client's run now: one job (runNow) and the jobs due before a time (runDue, a share per call with a cursor),
// signed, against the real API handler on loopback with a real Redis behind it.
import { describe, expect, it } from 'vitest'
import { DelayQueueApiClient } from '../../src/api-client'
import { servedApi } from '../api/api-helpers'

const credentials = { accessKeyId: 'AKIDLOCALTEST', secretAccessKey: 'local-secret' }
const served = servedApi()
const client = () => new DelayQueueApiClient({ url: served.api.url, region: 'eu-west-1', credentials })
const HOUR = 3_600_000

describe('DelayQueueApiClient run now', () => {
  it('runs one job now, keeping it the same job', async () => {
    // prepare
    const c = client()
    const job = await c.schedule({ id: 'cl-run-1', queue: 'orders', payload: { k: 1 }, delayMs: HOUR })
    // act
    const answer = await c.runNow('cl-run-1')
    // assess
    expect(answer.previousRunAt).toBe(job.runAt)
    expect(await c.get('cl-run-1')).toMatchObject({ runAt: answer.runAt, createdAt: job.createdAt, payload: { k: 1 } })
    expect(Date.parse(answer.runAt)).toBeLessThanOrEqual(Date.now())
  })

  it('runs the jobs due before a time, following the cursor to the end', async () => {
    // prepare
    const c = client()
    for (const id of ['cl-due-1', 'cl-due-2']) await c.schedule({ id, queue: 'emails', payload: null, delayMs: HOUR })
    await c.schedule({ id: 'cl-due-late', queue: 'emails', payload: null, delayMs: 5 * HOUR })
    // act
    let promoted = 0
    let cursor: string | null | undefined
    do {
      const r = await c.runDue({
        before: new Date(Date.now() + 2 * HOUR).toISOString(),
        queue: 'emails',
        ...(cursor ? { cursor } : {}),
      })
      promoted += r.promoted
      cursor = r.cursor
    } while (cursor)
    // assess
    expect(promoted).toBe(2)
    expect(Date.parse((await c.get('cl-due-late'))!.runAt)).toBeGreaterThan(Date.now() + 4 * HOUR)
  })

  it('runs the jobs with a tag now, and the types carry the tag and the in-flight count', async () => {
    // prepare
    const c = client()
    await c.schedule({ id: 'cl-tag-1', queue: 'emails', payload: null, delayMs: 5 * HOUR, tags: ['user:31'] })
    // act
    const r = await c.runDue({ tag: 'user:31' })
    // assess
    expect(r).toEqual({ promoted: 1, inFlight: 0, cursor: null })
    expect(Date.parse((await c.get('cl-tag-1'))!.runAt)).toBeLessThanOrEqual(Date.now())
  })
})
