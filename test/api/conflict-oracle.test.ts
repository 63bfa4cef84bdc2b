// A 409 is no oracle: a caller allowed only to create jobs, posting a taken id with guessed payloads, gets the same
// answer for the right guess as for every wrong one (it once carried `samePayload`, which recovered a stored 4-digit
// code in 49 batches). Only a request carrying the job's own Idempotency-Key learns that it repeats the stored write.
import { afterAll, describe, expect, it } from 'vitest'
import { bodyOf, redisSnapshot, request, testApi } from './api-helpers'

const api = testApi()
afterAll(() => api.close())

/** The 10,000 guesses of a 4-digit code, in 100 batches of 100 (the API's largest batch). */
const guesses = Array.from({ length: 10_000 }, (_, n) => String(n).padStart(4, '0'))
const batches = Array.from({ length: 100 }, (_, b) => guesses.slice(b * 100, b * 100 + 100))

describe('the answer to a create of a taken id', () => {
  it('guessing with 100 batches learns nothing: the answers are identical for the right guess and every wrong one', async () => {
    // prepare: the owner stores a one-time code under an id the attacker knows, with the owner's own key
    const id = `otp-${Date.now()}`
    const owner = { 'idempotency-key': `owner-key-${Date.now()}` }
    const stored = { id, queue: 'orders', payload: { otp: '4821' }, delayMs: 300_000 }
    expect((await api.call(request('POST', '/jobs', { body: stored, headers: owner }))).statusCode).toBe(201)
    const before = await redisSnapshot(api.engine)
    // act: every possible code, 100 batches of 100, half of them with a key of the attacker's own
    const answers: string[] = []
    for (const [b, batch] of batches.entries()) {
      const jobs = batch.map((otp) => ({ id, queue: 'orders', payload: { otp }, delayMs: 300_000 }))
      const headers = b % 2 ? { 'idempotency-key': `attacker-${b}-${Date.now()}` } : undefined
      const res = await api.call(request('POST', '/jobs/batch', { body: { jobs }, headers }))
      expect(res.statusCode).toBe(200)
      for (const r of bodyOf(res).results) answers.push(JSON.stringify(r))
    }
    const right = await api.call(request('POST', '/jobs', { body: stored }))
    const wrong = await api.call(request('POST', '/jobs', { body: { ...stored, payload: { otp: '0000' } } }))
    // assess: one answer for all 10,000 guesses (the right one among them), the same for single creates; nothing
    // changed
    expect(answers).toHaveLength(10_000)
    expect(new Set(answers).size).toBe(1)
    expect(JSON.parse(answers[0]!)).toEqual({
      error: { code: 'Conflict', message: `a job with id "${id}" exists already` },
      job: { id, queue: 'orders', status: 'scheduled', runAt: expect.any(String), createdAt: expect.any(String) },
    })
    expect(right.statusCode).toBe(409)
    expect(bodyOf(right)).toEqual(bodyOf(wrong))
    expect(await redisSnapshot(api.engine)).toEqual(before)
  })

  it("answers a create sent again with the job's own key as a replay: the owner's retry needs no comparison", async () => {
    // prepare
    const id = `otp-own-${Date.now()}`
    const owner = { 'idempotency-key': `owner-key-${Date.now()}` }
    const stored = { id, queue: 'orders', payload: { otp: '1234' }, delayMs: 300_000 }
    const first = await api.call(request('POST', '/jobs', { body: stored, headers: owner }))
    // act
    const again = await api.call(request('POST', '/jobs', { body: stored, headers: owner }))
    // assess
    expect(again.statusCode).toBe(201)
    expect(again.headers['idempotent-replayed']).toBe('true')
    expect(bodyOf(again)).toEqual(bodyOf(first))
  })
})
