// The rule that keeps a FIFO group in order across shards (src/scan/loop/fifo-merge.ts), on its own: a held job goes once
// every other shard has been claimed far enough; order: due time, then shard, then claim order.
import { describe, expect, it } from 'vitest'
import { FifoMerge } from '../../src/scan/loop/fifo-merge'
import type { ClaimedJob } from '../../src/scan/claims/claimed-job'
import { claimedJob } from '../support/claimed-job'

/** `orderMs`: its place in the group's order (a retry's: the retry time it was released for). */
const job = (id: string, dueMs: number, shard = 0, attempt = 1, orderMs = dueMs) =>
  claimedJob(id, { dueMs, orderMs, claimedAtMs: dueMs, attempt, shard, leaseDeadline: Infinity })
const claim = (jobs: ClaimedJob[], o: { dueByMs: number; nextDueMs?: number | null; again?: boolean }) => ({
  jobs,
  dueByMs: o.dueByMs,
  nextDueMs: o.nextDueMs ?? null,
  again: o.again ?? false,
})
const ids = (jobs: ClaimedJob[]) => jobs.map((j) => j.id)

describe('FIFO merge across shards', () => {
  it('holds a job until the other shards are claimed up to its due time, then sends in due-time order', () => {
    // prepare
    const merge = new FifoMerge(2)
    const b = job('b', 105, 1)
    const a = job('a', 103, 0)
    // act: shard 1 brings a job due at 105 before shard 0 is claimed that far; shard 0 then brings one due at 103
    const first = merge.claimed(1, claim([b], { dueByMs: 106 }), [b])
    const lagging = merge.lags(0)
    const second = merge.claimed(0, claim([a], { dueByMs: 107 }), [a])
    // assess
    expect(first).toEqual([])
    expect(lagging).toBe(true)
    expect(ids(second)).toEqual(['a', 'b'])
    expect(merge.lags(0)).toBe(false)
  })

  it('counts a claim cut short by its limit up to just before its last job, and holds a retry due later', () => {
    // prepare: shard 1 reached 200; shard 0's claim stopped at its limit (a retry first, then jobs due at 90 and 100)
    const merge = new FifoMerge(2)
    merge.claimed(1, claim([], { dueByMs: 200 }), [])
    const cut = [job('retry', 150, 0, 2), job('x', 90), job('y', 100)]
    const w = job('w', 100)
    // act
    const out = merge.claimed(0, claim(cut, { dueByMs: 200, again: true }), cut)
    const lagging = merge.lags(0)
    const rest = merge.claimed(0, claim([w], { dueByMs: 201, nextDueMs: 500 }), [w])
    // assess: the retry (due 150) waits until its shard is claimed past the jobs due before it
    expect(ids(out)).toEqual(['x', 'y'])
    expect(lagging).toBe(true)
    expect(ids(rest)).toEqual(['w', 'retry'])
  })

  it('sends retries of a group by their retry times: a shard whose retry comes later but is claimed first waits', () => {
    // prepare: a and b (due at 100, shards 0 and 3) were refused in one call and released for retries at 1,000 and
    // 1,001 (b right behind a); shard 0's last claim came before a's retry (its next due: 1,000), shards 1 and 2 were
    // claimed up to 1,001
    const merge = new FifoMerge(4)
    merge.claimed(0, claim([], { dueByMs: 990, nextDueMs: 1_000 }), [])
    merge.claimed(1, claim([], { dueByMs: 1_001, nextDueMs: 2_000 }), [])
    merge.claimed(2, claim([], { dueByMs: 1_001, nextDueMs: 2_000 }), [])
    const b = job('b', 100, 3, 2, 1_001)
    const a = job('a', 100, 0, 2, 1_000)
    // act: shard 3's claim at 1,001 takes b before shard 0's claim takes a (the shards' claims race)
    const first = merge.claimed(3, claim([b], { dueByMs: 1_001, nextDueMs: 2_000 }), [b])
    const shard0Lags = merge.lags(0)
    const second = merge.claimed(0, claim([a], { dueByMs: 1_001, nextDueMs: 2_000 }), [a])
    // assess: b waits for a (by due time alone, b would go at once and overtake it)
    expect(first).toEqual([])
    expect(shard0Lags).toBe(true)
    expect(ids(second)).toEqual(['a', 'b'])
  })

  it('sends a millisecond shard by shard: the lower shard streams while the higher one waits for it', () => {
    // prepare: everything due at 100; each shard's claims are cut short by their limit
    const merge = new FifoMerge(2)
    const s1 = [job('s1-a', 100, 1), job('s1-b', 100, 1)]
    const s0 = [job('s0-a', 100, 0), job('s0-b', 100, 0)]
    // act
    const fromShard1 = merge.claimed(1, claim(s1, { dueByMs: 300, again: true }), s1)
    const fromShard0 = merge.claimed(0, claim(s0, { dueByMs: 300, again: true }), s0)
    const shard0Lags = merge.lags(0)
    const last = merge.claimed(0, claim([], { dueByMs: 301, nextDueMs: null }), [])
    // assess
    expect(fromShard1).toEqual([])
    expect(ids(fromShard0)).toEqual(['s0-a', 's0-b'])
    expect(shard0Lags).toBe(true)
    expect(ids(last)).toEqual(['s1-a', 's1-b'])
  })

  it('stops short of a job a full request left in its shard, and gives every held job back at the end', () => {
    // prepare
    const merge = new FifoMerge(2)
    merge.claimed(1, claim([], { dueByMs: 300 }), [])
    const jobs = [job('p', 240), job('q', 260)]
    // act: shard 0's claim took jobs due by 300 but left one due at 250 (its next due time)
    const out = merge.claimed(0, claim(jobs, { dueByMs: 300, nextDueMs: 250 }), jobs)
    const left = merge.takeAll()
    // assess
    expect(ids(out)).toEqual(['p'])
    expect(ids(left)).toEqual(['q'])
    expect(merge.size).toBe(0)
  })

  it('holds the later jobs of a group behind a retry on its way to its shard, though a claim reports that shard past it', () => {
    // prepare: shard 0 was claimed up to 1,000; c (shard 1) is being released for a retry at 1,005 (its place behind
    // a refused job of its group, fixed earlier), and is still leased: shard 1's claims find none of it
    const merge = new FifoMerge(2)
    merge.claimed(0, claim([], { dueByMs: 1_000, nextDueMs: 2_000 }), [])
    const answered = merge.releasing(1, 1_005)
    // act: claims of shard 1 that ran before the release report it claimed up to 1,010, then 1,020; shard 0 brings d, retried
    // at 1,006 (right behind c); then the release answers, and shard 1's next claim takes c
    merge.claimed(1, claim([], { dueByMs: 1_010, nextDueMs: 2_000 }), [])
    const d = job('d', 100, 0, 2, 1_006)
    const whileReleasing = merge.claimed(0, claim([d], { dueByMs: 1_020, nextDueMs: 2_000 }), [d])
    merge.claimed(1, claim([], { dueByMs: 1_020, nextDueMs: 2_000 }), [])
    answered()
    const shard1Lags = merge.lags(1)
    const c = job('c', 100, 1, 2, 1_005)
    const afterClaim = merge.claimed(1, claim([c], { dueByMs: 1_030, nextDueMs: 2_000 }), [c])
    // assess: d waited for c (shard 1's reach as claimed said nothing of c was left there)
    expect(whileReleasing).toEqual([])
    expect(shard1Lags).toBe(true)
    expect(ids(afterClaim)).toEqual(['c', 'd'])
  })
})
