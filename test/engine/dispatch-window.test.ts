// DISPATCH_WINDOW_MS: the scan may hold a due job for the jobs due just after it, so they share one SendMessageBatch
// (one SQS request, one claim, one ack), and no job waits longer than the window for it.
import { sleep } from '../../devkit/sleep'
import { afterAll, describe, expect, it } from 'vitest'
import { expectWholeNumberSetting } from '../support/config-setting'
import { job } from '../support/engine'
import { pendingCount } from '../support/scanner'
import { countIds, receiveAll, sqsClient } from '../support/sqs'
import { windowStage } from '../support/window-stage'

const sqs = sqsClient()
afterAll(() => sqs.destroy())

const stage = (queueName: string, dispatchWindowMs: number | undefined, otherQueues?: string[]) =>
  windowStage(sqs, queueName, { dispatchWindowMs, otherQueues })

/**
 * Jobs due `gapMs` apart, the first one `firstInMs` (1 s) from now, in one enqueueMany: five, w1 to w5, unless `ids`
 * names them. Most tests enqueue once the scan is up (startScan), so that the lead counts from a running scan.
 */
async function enqueueStream(
  st: Awaited<ReturnType<typeof stage>>,
  gapMs: number,
  { ids = ['w1', 'w2', 'w3', 'w4', 'w5'], firstInMs = 1_000 } = {},
): Promise<string[]> {
  const first = Date.now() + firstInMs
  await st.t.store.enqueueMany(ids.map((id, i) => job({ id, due: { atMs: first + i * gapMs } })))
  return ids
}

/** `count` job ids: `prefix` and a two-digit number from 00, so that they sort in the order they fall due. */
const numbered = (prefix: string, count: number) =>
  Array.from({ length: count }, (_, i) => `${prefix}${String(i).padStart(2, '0')}`)

// The tests of this file run side by side (each its own key prefix and queues): they wait on real time, not the CPU.
describe.concurrent('dispatch window', () => {
  it('sends jobs due within the window of the first one in one SendMessageBatch, none later than the window', async () => {
    // prepare: a 1 s window; five jobs due 150 ms apart (600 ms from the first to the last)
    const st = await stage('window-one-request', 1_000)
    const scan = await st.startScan(15_000)
    const ids = await enqueueStream(st, 150)
    // act
    const report = await scan.until(async () => (await pendingCount(st.t.store)) === 0)
    // assess: one request of five (the run's report counts it); the first job waited for the others (timers never
    // fire early), the last one hardly at all, and none past the window (plus slack for a loaded machine, where a
    // claim or a send stalled up to 700 ms; the claim after the window would otherwise be the poll's, 30 s away)
    expect(st.sends).toEqual([5])
    expect(report).toMatchObject({ dispatched: 5, sqsRequests: 1 })
    expect(st.late.get('w1')).toBeGreaterThanOrEqual(950)
    expect(st.late.get('w5')).toBeLessThan(st.late.get('w1')! - 500)
    for (const id of ids) expect(st.late.get(id)).toBeLessThan(1_000 + 2_000)
    expect([...countIds(await receiveAll(sqs, st.q.url))].sort()).toEqual(ids.map((id) => [id, 1]))
    await st.close()
  })

  it('without a window (the default), sends each job of a stream the moment it is due, one request each', async () => {
    // prepare: five jobs due 1 s apart (150 ms as above: on a loaded machine a claim stalled past the next due time
    // now and then, and took both, [1, 1, 2, 1] or [1, 4], as it must)
    const st = await stage('window-none', undefined)
    const scan = await st.startScan(15_000)
    const ids = await enqueueStream(st, 1_000)
    // act
    await scan.until(async () => (await pendingCount(st.t.store)) === 0)
    // assess: one request each (jobs held for one another would share one), none held for a poll (30 s; a loaded
    // machine made one 1,015 ms late)
    expect(st.sends).toEqual([1, 1, 1, 1, 1])
    for (const id of ids) expect(st.late.get(id)).toBeLessThan(5_000)
    await st.close()
  })

  it.each([
    ['1 s', 1_000],
    ['5 s, beyond the look-ahead of an idle claim,', 5_000],
  ])(
    'sends a request as soon as ten jobs are due instead of holding them for the whole window (first due in %s)',
    async (_, firstInMs) => {
      // prepare: a 2 s window; 25 jobs due 20 ms apart (480 ms from the first to the last)
      const st = await stage(`window-full-request-${firstInMs}`, 2_000)
      const scan = await st.startScan(15_000)
      const ids = await enqueueStream(st, 20, { ids: numbered('f', 25), firstInMs })
      // act
      const report = await scan.until(async () => (await pendingCount(st.t.store)) === 0)
      // assess: two full requests, each sent once its tenth job fell due (so its first job waited ~180 ms, not the
      // 2 s window), and the last five held for the window of the first of them as before
      expect(st.sends).toEqual([10, 10, 5])
      expect(report).toMatchObject({ dispatched: 25, sqsRequests: 3 })
      expect(st.late.get('f00')).toBeGreaterThanOrEqual(170)
      // (a job held for the window would be 2 s late: the bounds leave a loaded machine room below that)
      expect(st.late.get('f00')).toBeLessThan(1_500)
      expect(st.late.get('f09')).toBeLessThan(1_500)
      expect(st.late.get('f10')).toBeLessThan(1_500)
      expect(st.late.get('f20')).toBeGreaterThanOrEqual(1_950)
      expect([...countIds(await receiveAll(sqs, st.q.url))].sort()).toEqual(ids.map((id) => [id, 1]))
      await st.close()
    },
  )

  it('with fewer due buckets than ten, ten due jobs still make a full request (DUE_BUCKETS=4)', async () => {
    // prepare: a 2 s window; 25 jobs due 20 ms apart in a shard of four due buckets, so a bucket holds several of
    // the ten earliest. Enqueued before the scan starts, whose first claim reads every bucket (a claim woken by the
    // enqueue's signal knows the signalled bucket only, and counts one job for each of the others); the first due in
    // 3 s, as the start took over a second on a loaded machine (it then found jobs due and sent them at once: [5, 10,
    // 10])
    const st = await windowStage(sqs, 'window-few-buckets', { dispatchWindowMs: 2_000, buckets: 4 })
    const ids = await enqueueStream(st, 20, { ids: numbered('k', 25), firstInMs: 3_000 })
    // act
    await st.s.runUntil(async () => (await pendingCount(st.t.store)) === 0, 15_000)
    // assess: as with one job a bucket, two full requests leave as their tenth job falls due, not one of 25 at the
    // end of the first job's window
    expect(st.sends).toEqual([10, 10, 5])
    expect(st.late.get('k00')).toBeLessThan(1_500)
    expect(st.late.get('k10')).toBeLessThan(1_500)
    expect([...countIds(await receiveAll(sqs, st.q.url))].sort()).toEqual(ids.map((id) => [id, 1]))
    await st.close()
  })

  it('a full request stops at its tenth job: the jobs due while its claim was on the way wait for the next one', async () => {
    // prepare: a 2 s window; 30 jobs due 2 ms apart, so a job or two falls due between the tenth and its claim
    const st = await stage('window-full-cut', 2_000)
    const scan = await st.startScan(15_000)
    const ids = await enqueueStream(st, 2, { ids: numbered('c', 30) })
    // act
    await scan.until(async () => (await pendingCount(st.t.store)) === 0)
    // assess: three full requests, not 10 + 1 or 11 split over two, none held for the window (its first job would be
    // 2 s late; a loaded machine made one 1.7 s late)
    expect(st.sends).toEqual([10, 10, 10])
    for (const id of ids) expect(st.late.get(id)).toBeLessThan(1_950)
    expect([...countIds(await receiveAll(sqs, st.q.url))].sort()).toEqual(ids.map((id) => [id, 1]))
    await st.close()
  })

  it("a slow call before the run's first claim does not skew the clock: the full request still waits for its tenth job", async () => {
    // prepare: as above, but the hint seeding before a claim without hints (the run's first, and the one the enqueue
    // wakes) takes 40 ms (a loaded machine or a slow network); the clock sample of that claim must not count it, or the scanner, taking Redis's clock to be ~20 ms
    // behind, wakes that much early and sends the jobs due by then
    const st = await stage('window-slow-seed', 2_000)
    const seedHints = st.s.leases.seedHints.bind(st.s.leases)
    st.s.leases.seedHints = async (...args) => {
      await sleep(40)
      return seedHints(...args)
    }
    const scan = await st.startScan(15_000)
    const ids = await enqueueStream(st, 2, { ids: numbered('d', 30) })
    // act
    await scan.until(async () => (await pendingCount(st.t.store)) === 0)
    // assess
    expect(st.sends).toEqual([10, 10, 10])
    expect([...countIds(await receiveAll(sqs, st.q.url))].sort()).toEqual(ids.map((id) => [id, 1]))
    await st.close()
  })

  it("ten jobs due for two target queues are not a full request: each queue's jobs still share its requests", async () => {
    // prepare: a 2 s window; 20 jobs due 20 ms apart (380 ms from the first to the last), alternating between two
    // queues: ten for each, so one request each fills it, as it did before full requests
    const st = await stage('window-two-queues', 2_000, ['refunds'])
    const scan = await st.startScan(15_000)
    const first = Date.now() + 1_000
    const ids = numbered('q', 20)
    await st.t.store.enqueueMany(
      ids.map((id, i) => job({ id, queue: i % 2 ? 'refunds' : 'orders', due: { atMs: first + i * 20 } })),
    )
    // act
    const report = await scan.until(async () => (await pendingCount(st.t.store)) === 0)
    // assess: two requests of ten, not four of five (the tenth job due in the shard filled no request: five of them
    // go to each queue)
    expect(report).toMatchObject({ dispatched: 20, sqsRequests: 2 })
    expect(st.sends).toEqual([10, 10])
    // none held past the window: the claim after it would be the poll's, 30 s away (a loaded machine made one 2.6 s
    // late, its claim or send stalled 600 ms: 2 s beyond the window leave room for that)
    for (const id of ids) expect(st.late.get(id)).toBeLessThan(2_000 + 2_000)
    await st.close()
  })

  it('a job enqueued due sooner than what the scan sleeps for wakes it, and is held for its own window only', async () => {
    // prepare: the scan sleeps until a job due in 20 s (+ the 300 ms window), its poll 30 s away: the job due in
    // 200 ms arrives once its first claim has answered (a fixed pause before it raced the scan's start on a loaded
    // machine: a claim that came after the enqueue found the job without any wake)
    const st = await stage('window-wake', 300)
    await st.t.store.enqueue(job({ id: 'far', due: { delayMs: 20_000 } }))
    const scan = await st.startScan(15_000)
    // act
    await st.t.store.enqueue(job({ id: 'soon', due: { delayMs: 200 } }))
    await scan.until(() => st.late.has('soon'))
    // assess: sent one window after its due time, not before (held for its own window), and long before anything
    // but the wake could have sent it: the sleep's end (the far job, 20 s), the poll (30 s), the run's end (15 s).
    // 5 s leaves a loaded machine room for the wake, the claim and the send.
    expect(st.late.get('soon')).toBeGreaterThanOrEqual(280)
    expect(st.late.get('soon')).toBeLessThan(5_000)
    expect(st.late.has('far')).toBe(false)
    await st.close()
  })

  it('DISPATCH_WINDOW_MS defaults to 0, and a value outside 0-30000 is refused naming the setting', () => {
    expectWholeNumberSetting('DISPATCH_WINDOW_MS', (c) => c.dispatchWindowMs, { byDefault: 0, min: 0, max: 30_000 })
  })
})
