// Flow control's settings in Redis (src/flow/flow-settings.ts): a change bumps the epoch and every shard learns it;
// an epoch told late (two changes at once) never moves a shard back; a resume tells a shard once its jobs are back.
// Runs on one Redis and, in the "cluster" project, on the Redis Cluster (the settings on shard 0's slot).
import { afterAll, describe, expect, it } from 'vitest'
import { announceEpoch } from '../../src/flow/flow-set'
import { pauseFlow, readFlowSettings, resumeFlow, setFlowRate } from '../../src/flow/flow-settings'
import { testStore } from '../support/engine'

const t = testStore({ shards: 3 })
afterAll(() => t.close())

const epochs = () => Promise.all(t.keys.shards.map((s) => t.redis.get(s.flowEpoch)))

describe('flow control settings', () => {
  it('bumps the epoch with each change and tells every shard; a late, older epoch moves none back', async () => {
    // act
    await pauseFlow(t.redis, t.keys, { queue: 'orders' })
    await setFlowRate(t.redis, t.keys, { flowKey: 'mail' }, { rate: 50, burst: 5 })
    const settings = await readFlowSettings(t.redis, t.keys)
    await announceEpoch(t.redis, t.keys, '1')
    // assess
    expect(settings).toEqual({
      epoch: '2',
      paused: new Set(['q:orders']),
      rates: new Map([['k:mail', { rate: 50, burst: 5 }]]),
    })
    expect(await epochs()).toEqual(['2', '2', '2'])
  })

  it('lifts a pause with its resume and tells every shard the new epoch', async () => {
    // act
    const moved = await resumeFlow(t.redis, t.keys, { queue: 'orders' })
    // assess
    const settings = await readFlowSettings(t.redis, t.keys)
    expect(moved).toBe(0)
    expect(settings.paused.size).toBe(0)
    expect(await epochs()).toEqual([settings.epoch, settings.epoch, settings.epoch])
  })
})
