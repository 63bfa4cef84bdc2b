// Cancel is honest after an ambiguous send: when SendMessageBatch fails in a way SQS may still have accepted (the
// endpoint took the messages, then the answer was lost), the job waits for its retry marked "maybe sent", and a cancel
// or a replace answers 409 JobMaybeDispatched instead of a 204 that would promise it never runs. A send SQS plainly
// refused, or that never reached it, leaves the job cancellable as before. Real parts: Redis, fauxqs, the fault proxy.
import { afterAll, describe, expect, inject, it } from 'vitest'
import { startSqsFaultProxy } from '../support/sqs-fault-proxy'
import { errorResponse } from '../../src/api/error-response'
import { JobMaybeDispatchedError } from '../../src/errors'
import { mayHaveArrived } from '../../src/sqs/arrival'
import { AnswerCutError } from '../../src/sqs/batch-answer'
import { SendTimeoutError } from '../../src/sqs/prebuilt-body'
import { job, testStore } from '../support/engine'
import { eventually } from '../support/eventually'
import { testScanner } from '../support/scanner'
import { countIds, createQueue, receiveAll, sqsClient } from '../support/sqs'

const sqs = sqsClient()
afterAll(() => sqs.destroy())

async function stage(name: string) {
  const t = testStore({ shards: 1 })
  const queue = await createQueue(sqs, name)
  const proxy = await startSqsFaultProxy({ target: inject('sqsEndpoint') })
  // A long backoff: the job waits for its retry while the test looks at it.
  const scanner = testScanner(t, {
    queues: { orders: queue.url },
    sqsEndpoint: proxy.url,
    backoffBaseMs: 60_000,
    backoffMaxMs: 60_000,
  })
  const close = async () => {
    await scanner.close()
    await proxy.close()
    await t.close()
  }
  return { t, queue, proxy, scanner, close }
}

// The tests of this file run side by side (each its own key prefix and queues): they wait on real time, not the CPU.
describe.concurrent('a job whose send may have reached SQS', () => {
  it('refuses cancel and replace with JobMaybeDispatched while it waits for its retry (the answer was lost)', async () => {
    // prepare: every SendMessageBatch is carried out by the endpoint, and its answer lost (both SDK attempts)
    const s = await stage('maybe-sent')
    try {
      s.proxy.dropAnswers(100)
      await s.t.store.enqueue(job({ id: 'lost-answer' }))
      // act
      await s.scanner.runUntil(async () => (await s.t.store.get('lost-answer'))?.lastError !== undefined, 15_000)
      const view = await s.t.store.get('lost-answer')
      const cancel = await s.t.store.cancel('lost-answer').catch((e: unknown) => e)
      const replace = await s.t.store.upsert(job({ id: 'lost-answer', payloadJson: '"new"' })).catch((e: unknown) => e)
      // assess: SQS has it (as many copies as the SDK sent), and the store does not pretend otherwise
      expect(s.proxy.stats.answersDropped).toBeGreaterThanOrEqual(1)
      expect(view).toMatchObject({ status: 'scheduled', lastError: { maybeSent: true } })
      expect(cancel).toBeInstanceOf(JobMaybeDispatchedError)
      expect(replace).toBeInstanceOf(JobMaybeDispatchedError)
      const answer = errorResponse(cancel, { info() {}, warn() {}, error() {} })
      expect(answer.statusCode).toBe(409)
      expect(JSON.parse(answer.body!).error.code).toBe('JobMaybeDispatched')
      expect(countIds(await receiveAll(sqs, s.queue.url)).get('lost-answer')).toBeGreaterThanOrEqual(1)
    } finally {
      await s.close()
    }
  })

  it('leaves a job cancellable when SQS refused its send outright', async () => {
    // prepare: every entry refused in SQS's answer (Failed, not the job's fault)
    const s = await stage('refused-send')
    try {
      s.proxy.setRefuseRate(1)
      await s.t.store.enqueue(job({ id: 'refused' }))
      // act
      await s.scanner.runUntil(async () => s.proxy.stats.entriesRefused >= 1, 15_000)
      await eventually(async () => (await s.t.store.get('refused'))?.lastError !== undefined)
      const view = await s.t.store.get('refused')
      await s.t.store.cancel('refused')
      // assess
      expect(view!.lastError).not.toHaveProperty('maybeSent')
      expect(await s.t.store.get('refused')).toBeNull()
      expect(countIds(await receiveAll(sqs, s.queue.url)).get('refused')).toBeUndefined()
    } finally {
      await s.close()
    }
  })

  it('tells a send that may have arrived from one that cannot have', () => {
    const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })
    const timeout = Object.assign(new Error('timed out'), { name: 'TimeoutError' })
    const serverError = { name: 'InternalError', $fault: 'server', $metadata: { httpStatusCode: 500 } }
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })
    const throttled = { name: 'ThrottlingException', $metadata: { httpStatusCode: 400 } }
    const denied = { name: 'AccessDenied', $fault: 'client', $metadata: { httpStatusCode: 403 } }
    // A send past its bound (an answer that stalled after its headers) and an answer cut before its end.
    const stalled = new SendTimeoutError(2_500)
    const cut = new AnswerCutError()
    expect([reset, timeout, serverError, stalled, cut].map(mayHaveArrived)).toEqual([true, true, true, true, true])
    expect([refused, throttled, denied].map(mayHaveArrived)).toEqual([false, false, false])
  })

  it('takes a refusal after an earlier attempt of the SDK for a send that may have arrived', () => {
    // The SDK's first attempt lost its connection after SQS took the request; its retry met a refused connection.
    const refusedOnRetry = Object.assign(new Error('connect ECONNREFUSED'), {
      code: 'ECONNREFUSED',
      $metadata: { attempts: 2 },
    })
    const refusedAtOnce = Object.assign(new Error('connect ECONNREFUSED'), {
      code: 'ECONNREFUSED',
      $metadata: { attempts: 1 },
    })
    expect([refusedOnRetry, refusedAtOnce].map(mayHaveArrived)).toEqual([true, false])
  })
})
