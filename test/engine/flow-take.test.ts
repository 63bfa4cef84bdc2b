import { afterAll, describe, expect, it } from 'vitest'
import { takeFlowTokens } from '../../src/flow/flow-take'
import { testStore } from '../support/engine'
import { untilRedisMs } from '../support/pace-claims'

const t = testStore({ shards: 3 })
afterAll(() => t.close())

const ids = (tag: string, n: number) => Array.from({ length: n }, (_, i) => `${tag}-${i}`)

/** Waits until Redis's clock reads `ms` or later. */
const sleepUntilRedis = (ms: number) => untilRedisMs(t.redis, ms)

describe('a flow key token bucket', () => {
  it('lets a burst leave at once and gives the rest send times one interval apart, in the order asked', async () => {
    // prepare: 10 jobs a second (100 ms apart), bursts of 4; a fresh key
    const rate = { rate: 10, burst: 4 }
    // act
    const r = await takeFlowTokens(t.redis, t.keys, 'k:spaced', rate, ids('a', 10))
    // assess: 4 now, then 100 ms apart after the asking moment
    expect(r.sendAtMs.slice(0, 4)).toEqual([0, 0, 0, 0])
    const later = r.sendAtMs.slice(4)
    expect(later[0]).toBe(r.redisNowMs + 100)
    expect(later.slice(1).map((at, i) => at - later[i]!)).toEqual([100, 100, 100, 100, 100])
  })

  it('gives jobs asking later the times after those given already', async () => {
    // prepare: 5 jobs asked for with a burst of 1 at 20/s (50 ms apart)
    const rate = { rate: 20, burst: 1 }
    const first = await takeFlowTokens(t.redis, t.keys, 'k:queued', rate, ids('b', 5))
    // act: 3 more right after
    const second = await takeFlowTokens(t.redis, t.keys, 'k:queued', rate, ids('c', 3))
    // assess: they line up behind the first five
    const lastOfFirst = first.sendAtMs[4]!
    expect(second.sendAtMs[0]).toBeGreaterThanOrEqual(lastOfFirst + 50)
    expect(second.sendAtMs[2]! - second.sendAtMs[0]!).toBe(100)
  })

  it('lets a held job leave without a new time when it comes back for the time it was given', async () => {
    // prepare: the bucket is empty (burst 1 used); "d-1" is given a time
    const rate = { rate: 5, burst: 1 }
    const held = await takeFlowTokens(t.redis, t.keys, 'k:reserved', rate, ['d-0', 'd-1'])
    expect(held.sendAtMs[1]).toBeGreaterThan(0)
    await sleepUntilRedis(held.sendAtMs[1]!)
    // act: it asks again (a scanner took it again at its time)
    const back = await takeFlowTokens(t.redis, t.keys, 'k:reserved', rate, ['d-1', 'd-2'])
    // assess: it leaves; the next job gets the time after it
    expect(back.sendAtMs[0]).toBe(0)
    expect(back.sendAtMs[1]).toBe(held.sendAtMs[1]! + 200)
  })

  it('holds jobs that come back late together to the rate: only a burst leaves at once', async () => {
    // prepare: 20/s in bursts of 2; 6 jobs given times 50 ms apart, that all come back together 400 ms later (their
    // scanner was slow)
    const rate = { rate: 20, burst: 2 }
    const given = await takeFlowTokens(t.redis, t.keys, 'k:late', rate, ids('l', 6))
    await sleepUntilRedis(given.sendAtMs[5]! + 150)
    // act
    const back = await takeFlowTokens(t.redis, t.keys, 'k:late', rate, ids('l', 6).slice(2))
    // assess: of the 4 that come back, 2 leave (the burst), the others are held again 50 ms apart after them
    expect(back.sendAtMs.slice(0, 2)).toEqual([0, 0])
    const again = back.sendAtMs.slice(2)
    expect(again[0]).toBeGreaterThan(back.redisNowMs)
    expect(again[1]! - again[0]!).toBe(50)
  })

  it('gives a job whose time lapsed long ago (held for a pause since) a new time', async () => {
    // prepare: a reservation of "e-1" from a minute ago, as a job held for a pause since would have
    const rate = { rate: 5, burst: 1 }
    await takeFlowTokens(t.redis, t.keys, 'k:lapsed', rate, ['e-0'])
    const { slots } = t.keys.rateShard('k:lapsed').rateBucket('k:lapsed')
    await t.redis.zadd(slots, Date.now() - 60_000, 'e-1')
    // act
    const r = await takeFlowTokens(t.redis, t.keys, 'k:lapsed', rate, ['e-1'])
    // assess: not let through beside the jobs given times since; it queues behind e-0's burst
    expect(r.sendAtMs[0]).toBeGreaterThan(0)
  })
})
