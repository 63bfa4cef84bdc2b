// Delete, pause and replace settle the occurrence a scanner is sending at that moment: if SQS refuses that send
// (for now, or for good), the occurrence is retired, not retried after the answer and not left dead or pending.
// The SQS fault proxy (test/support/sqs-fault-proxy.ts) holds each send 600 ms and refuses every entry until told not to.
import { afterAll, describe, expect, inject, it } from 'vitest'
import { startSqsFaultProxy } from '../support/sqs-fault-proxy'
import { eventually } from '../support/eventually'
import { pendingCount } from '../support/scanner'
import { occurrencesOf } from '../support/schedules'
import { seriesStage, wholeSecond } from '../support/series-stage'
import { sqsClient } from '../support/sqs'

const sqs = sqsClient()
afterAll(() => sqs.destroy())

const MINUTE = 60_000
type Operation = 'delete' | 'pause' | 'replace'

/** `fault`: SQS refuses the send for now (server) or for good (sender). */
async function refusedInFlight(operation: Operation, fault: 'server' | 'sender') {
  const senderFault = fault === 'sender'
  const name = `settle-${operation}-${fault}`
  const stage = await seriesStage(sqs, name)
  const proxy = await startSqsFaultProxy({ target: inject('sqsEndpoint'), refuseRate: 1 })
  try {
    proxy.setSenderFault(senderFault)
    proxy.setBatchDelay(600)
    const { t, q } = stage
    const start = wholeSecond()
    await q.putSchedule(name, { queue: 'orders', payload: 'old', everyMs: MINUTE, startAt: start })
    // A refusal for good dead-letters at once (maxAttempts 1); one for now is retried after 20-200 ms.
    const scanner = stage.scanner({ sqsEndpoint: proxy.url, maxAttempts: senderFault ? 1 : 10 })
    const run = scanner.runUntil(() => false, start + 4_000 - Date.now())
    // the first occurrence is being sent: its SendMessageBatch has reached SQS (held there 600 ms)
    await eventually(() => proxy.stats.batchesArrived >= 1)
    // act: answered while the send is in flight; from then on SQS would take it
    if (operation === 'delete') await q.deleteSchedule(name)
    if (operation === 'pause') await q.pauseSchedule(name)
    if (operation === 'replace') await q.putSchedule(name, { queue: 'orders', payload: 'new', everyMs: MINUTE })
    proxy.setRefuseRate(0)
    proxy.setBatchDelay(0)
    await run // 2-3 s more, enough for several retries
    return {
      received: (await stage.received()).map((m) => m.id),
      occurrences: await occurrencesOf(t, name),
      pending: await pendingCount(t.store),
      dead: (await t.store.stats()).queues.orders?.dead ?? 0,
      view: await q.getSchedule(name),
      refused: proxy.stats.entriesRefused,
    }
  } finally {
    await proxy.close()
    await stage.close()
  }
}

describe('an in-flight occurrence that SQS refuses after a delete, pause or replace', () => {
  it.concurrent.each([
    ['delete', 'server'],
    ['delete', 'sender'],
    ['pause', 'server'],
    ['pause', 'sender'],
  ] as const)('%s, refused (%s fault): never sent after the answer, nothing left behind', async (operation, fault) => {
    const { received, occurrences, pending, dead, refused } = await refusedInFlight(operation, fault)
    expect(refused).toBeGreaterThanOrEqual(1)
    expect(received).toEqual([])
    expect(occurrences).toEqual([])
    expect(pending).toBe(0)
    expect(dead).toBe(0)
  })

  it.concurrent.each(['server', 'sender'] as const)(
    'replace, refused (%s fault): exactly one occurrence job, of the new rule',
    async (fault) => {
      const { received, occurrences, pending, dead, view } = await refusedInFlight('replace', fault)
      expect(received).toEqual([])
      expect(occurrences).toEqual([`${view!.id}@${Date.parse(view!.nextRunAt!)}`])
      expect(pending).toBe(1)
      expect(dead).toBe(0)
      expect(view).toMatchObject({ payload: 'new', runs: 0 })
    },
  )
})
