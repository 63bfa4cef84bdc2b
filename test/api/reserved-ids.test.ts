// Ids starting with "scheduler:" belong to the Scheduler-compatible API (docs/scheduler-api.md): the HTTP API and
// DelayQueue refuse to write one with a 400 naming the field and the rule, and store nothing; the Scheduler front
// door's own queue writes them.
import { afterAll, describe, expect, it } from 'vitest'
import { DelayQueue } from '../../src/direct/delay-queue'
import { RESERVED_ID_RULE } from '../../src/direct/id-rules'
import { ValidationError } from '../../src/errors'
import { bodyOf, request, testApi } from './api-helpers'

const api = testApi()
afterAll(() => api.close())
const refusal = (path: string) => ({ path, message: RESERVED_ID_RULE })
const job = { queue: 'orders', payload: { n: 1 }, delayMs: 60_000 }

describe('ids reserved for the Scheduler-compatible API', () => {
  it('refuses PUT /jobs/{id}, POST /jobs and PUT /schedules/{id} of a "scheduler:" id with a 400 naming id', async () => {
    // prepare
    const id = `scheduler:default:taken-${Date.now()}`
    // act
    const put = await api.call(request('PUT', `/jobs/${id}`, { body: job }))
    const post = await api.call(request('POST', '/jobs', { body: { ...job, id } }))
    const schedule = await api.call(
      request('PUT', `/schedules/${id}`, { body: { queue: 'orders', payload: 1, cron: '0 9 * * *' } }),
    )
    // assess: each refused, naming the field and the rule, and nothing stored
    for (const res of [put, post, schedule]) {
      expect(res.statusCode).toBe(400)
      expect(bodyOf(res).error.details).toEqual([refusal('id')])
    }
    expect((await api.call(request('GET', `/jobs/${id}`))).statusCode).toBe(404)
    expect((await api.call(request('GET', `/schedules/${id}`))).statusCode).toBe(404)
  })

  it('refuses such an item of POST /jobs/batch on its own, naming its id, and stores the others', async () => {
    // prepare
    const ok = `plain-${Date.now()}`
    // act
    const res = await api.call(
      request('POST', '/jobs/batch', {
        body: {
          jobs: [
            { ...job, id: 'scheduler:default:x' },
            { ...job, id: ok },
          ],
        },
      }),
    )
    // assess
    expect(res.statusCode).toBe(200)
    const [refused, stored] = bodyOf(res).results
    expect(refused.error.details).toEqual([refusal('id')])
    expect(stored).toEqual({ id: ok, status: 'scheduled' })
    expect((await api.call(request('GET', '/jobs/scheduler:default:x'))).statusCode).toBe(404)
  })

  it('refuses them in DelayQueue too, and lets the Scheduler front door write them', async () => {
    // prepare
    const id = `scheduler:default:direct-${Date.now()}`
    const anyone = new DelayQueue(api.engine)
    const frontDoor = new DelayQueue(api.engine, {}, { schedulerFrontDoor: true })
    // act
    const refused = await anyone.reschedule(id, job).catch((e: unknown) => e)
    const written = await frontDoor.reschedule(id, job)
    // assess
    expect(refused).toBeInstanceOf(ValidationError)
    expect((refused as ValidationError).details).toEqual([refusal('id')])
    expect(written).toMatchObject({ id, created: true })
    await frontDoor.cancel(id)
  })
})
