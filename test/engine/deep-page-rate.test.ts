// The count of deep pages per caller (lua/deep-page-rate.lua) at the edge of its window: a count whose window ends
// while the script runs (its PTTL answers 0) starts a new window, never an error.
import { describe, expect, it } from 'vitest'
import { deepPageRateCall } from '../../src/store/scripts/deep-page-rate'
import { queueScript, runScript, type ScriptedPipeline } from '../../src/store/scripts'
import { testStore } from '../support/engine'

describe('the deep-page count at the end of its window', () => {
  it('starts a new window when the count expires while the script reads it (PTTL 0), not an error', async () => {
    // prepare: the script loaded; a count whose window ends 2 ms after it is written, so large a number (32 MB of
    // zeros, then 1) that reading it in the script takes longer than that: the script, which sees the count as it
    // was when it started, reads its PTTL after its window ended (0)
    const t = testStore()
    const call = deepPageRateCall(t.keys, 'caller-at-the-edge', 20)
    await runScript(t.redis, deepPageRateCall(t.keys, 'another caller', 20))
    const count = call.keys.count as string
    // act: the count and the script in one transaction (nothing runs between them)
    const multi = t.redis.multi().set(count, `${'0'.repeat(32 * 1024 * 1024)}1`, 'PX', 2)
    const replies = (await queueScript(multi as unknown as ScriptedPipeline, call).exec()) ?? []
    // assess: the page is allowed, in a new window of a minute
    const [error, answer] = replies[1] ?? [new Error('no reply'), null]
    expect(error).toBeNull()
    expect(answer).toEqual([1, 60_000])
    expect(await t.redis.get(count)).toBe('1')
    await t.close()
  })
})
