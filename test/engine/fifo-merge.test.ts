// The rule that keeps a FIFO group in order across shards (src/scan/fifo-merge.ts), on its own: a held job goes once
// every shard has been claimed up to its due time, in (due time, id) order.
import { describe, expect, it } from 'vitest'
import { FifoMerge } from '../../src/scan/fifo-merge'
import type { ClaimedJob } from '../../src/scan/leases'

const job = (id: string, dueMs: number, attempt = 1): ClaimedJob => ({
  id,
  queue: 'q.fifo',
  groupId: 'g',
  payloadJson: '{}',
  createdAtMs: 0,
  version: 0,
  dueMs,
  claimedAtMs: dueMs,
  attempt,
  token: 't',
  shard: 0,
  leaseDeadline: Infinity,
})
const claim = (jobs: ClaimedJob[], o: { dueByMs: number; nextDueMs?: number | null; again?: boolean }) => ({
  jobs,
  dueByMs: o.dueByMs,
  nextDueMs: o.nextDueMs ?? null,
  again: o.again ?? false,
})
const ids = (jobs: ClaimedJob[]) => jobs.map((j) => j.id)

describe('FIFO merge across shards', () => {
  it('holds a job until every shard is claimed up to its due time, then sends in due-time order', () => {
    // prepare
    const merge = new FifoMerge(2)
    // act: shard 1 brings a job due at 105 before shard 0 is claimed that far; shard 0 then brings one due at 103
    const first = merge.claimed(1, claim([job('b', 105)], { dueByMs: 106 }), [job('b', 105)])
    const lagging = merge.lags(0)
    const second = merge.claimed(0, claim([job('a', 103)], { dueByMs: 107 }), [job('a', 103)])
    // assess
    expect(first).toEqual([])
    expect(lagging).toBe(true)
    expect(ids(second)).toEqual(['a', 'b'])
    expect(merge.lags(0)).toBe(false)
  })

  it('counts a claim cut short by its limit only up to just before the last job it took, and ties go by id', () => {
    // prepare: shard 1 reached 200; shard 0's claim stopped at its limit with two jobs due at 100 and a retry
    const merge = new FifoMerge(2)
    merge.claimed(1, claim([], { dueByMs: 200 }), [])
    const cut = [job('retry', 150, 2), job('y', 100), job('x', 90)]
    // act
    const out = merge.claimed(0, claim(cut, { dueByMs: 200, again: true }), cut)
    const rest = merge.claimed(0, claim([job('w', 100)], { dueByMs: 201, nextDueMs: 500 }), [job('w', 100)])
    // assess: the retry (due 150) and the job due at 100 wait, since more of millisecond 100 may be left
    expect(ids(out)).toEqual(['x'])
    expect(ids(rest)).toEqual(['w', 'y', 'retry'])
  })

  it('stops short of a job a full request left in its shard, and gives every held job back at the end', () => {
    // prepare
    const merge = new FifoMerge(2)
    merge.claimed(1, claim([], { dueByMs: 300 }), [])
    // act: shard 0's claim took jobs due by 300 but left one due at 250 (its next due time)
    const out = merge.claimed(0, claim([job('p', 240), job('q', 260)], { dueByMs: 300, nextDueMs: 250 }), [
      job('p', 240),
      job('q', 260),
    ])
    const left = merge.takeAll()
    // assess
    expect(ids(out)).toEqual(['p'])
    expect(ids(left)).toEqual(['q'])
    expect(merge.size).toBe(0)
  })
})
