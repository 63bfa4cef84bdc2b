// Ids made only of dots: "." and ".." are path segments HTTP clients and proxies resolve away (GET /jobs/.. arrives
// as GET /), so a job or schedule under such an id could be written and never read or cancelled over HTTP again. The
// HTTP API and DelayQueue refuse them, and "...", with a 400 naming `id` and the rule, and store nothing; ids that
// only hold dots among other characters stay valid.
import { afterAll, describe, expect, it } from 'vitest'
import { JOB_ID_RULE, SCHEDULE_ID_RULE } from '../../src/contract/ids'
import { DelayQueue } from '../../src/direct/delay-queue'
import { ValidationError } from '../../src/errors'
import { bodyOf, redisSnapshot, request, testApi } from './api-helpers'

const api = testApi()
afterAll(() => api.close())
const DOT_IDS = ['.', '..', '...']
const job = { queue: 'orders', payload: { n: 1 }, delayMs: 60_000 }
const schedule = { queue: 'orders', payload: 1, cron: '0 9 * * *' }

describe('ids made only of dots', () => {
  it.each(DOT_IDS)(
    'the HTTP API answers 400 naming id for %j on every job and schedule route, and stores nothing',
    async (id) => {
      // prepare
      const before = await redisSnapshot(api.engine)
      // act
      const jobAnswers = [
        await api.call(request('POST', '/jobs', { body: { ...job, id } })),
        await api.call(request('PUT', `/jobs/${id}`, { body: job })),
        await api.call(request('GET', `/jobs/${id}`)),
        await api.call(request('DELETE', `/jobs/${id}`)),
      ]
      const scheduleAnswers = [
        await api.call(request('PUT', `/schedules/${id}`, { body: schedule })),
        await api.call(request('GET', `/schedules/${id}`)),
      ]
      // assess: each refused with the field and the rule, and Redis as it was
      for (const [answers, rule] of [
        [jobAnswers, JOB_ID_RULE],
        [scheduleAnswers, SCHEDULE_ID_RULE],
      ] as const) {
        for (const res of answers) {
          expect(res.statusCode).toBe(400)
          expect(bodyOf(res).error).toMatchObject({ code: 'ValidationError', details: [{ path: 'id', message: rule }] })
        }
      }
      expect(JOB_ID_RULE).toMatch(/not only dots/)
      expect(await redisSnapshot(api.engine)).toEqual(before)
    },
  )

  it('refuses such an item of POST /jobs/batch on its own and stores the others', async () => {
    // act
    const res = await api.call(
      request('POST', '/jobs/batch', {
        body: {
          jobs: [
            { ...job, id: '..' },
            { ...job, id: 'batch.ok' },
          ],
        },
      }),
    )
    // assess
    expect(res.statusCode).toBe(200)
    const [refused, stored] = bodyOf(res).results
    expect(refused.error.details).toEqual([{ path: 'id', message: JOB_ID_RULE }])
    expect(stored).toEqual({ id: 'batch.ok', status: 'scheduled' })
  })

  it('DelayQueue refuses them too, naming id', async () => {
    // prepare
    const queue = new DelayQueue(api.engine)
    // act
    const refusals = await Promise.all(
      DOT_IDS.flatMap((id) => [
        queue.schedule({ ...job, id }).catch((e: unknown) => e),
        queue.reschedule(id, job).catch((e: unknown) => e),
        queue.putSchedule(id, schedule).catch((e: unknown) => e),
      ]),
    )
    // assess
    for (const refused of refusals) {
      expect(refused).toBeInstanceOf(ValidationError)
      expect((refused as ValidationError).details[0]).toMatchObject({
        path: 'id',
        message: expect.stringMatching(/not only dots/),
      })
    }
  })

  it('keeps ids that hold dots beside other characters', async () => {
    // act
    const answers = await Promise.all(
      ['.a', 'a..b', '..x..', 'v1.2.3'].map((id) => api.call(request('PUT', `/jobs/${id}`, { body: job }))),
    )
    // assess
    expect(answers.map((res) => res.statusCode)).toEqual([201, 201, 201, 201])
  })
})
