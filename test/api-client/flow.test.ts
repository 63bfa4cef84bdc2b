// The API client's flow control (client.flow): rate a flow key, pause and resume a queue, list the settings, a job
// carrying a flow key; signed, against the real API handler on loopback with a real Redis behind it.
import { describe, expect, it } from 'vitest'
import { DelayQueueApiClient, DelayQueueApiError } from '../../src/api-client'
import { servedApi } from '../api/api-helpers'

const credentials = { accessKeyId: 'AKIDLOCALTEST', secretAccessKey: 'local-secret' }
const served = servedApi()
const client = () => new DelayQueueApiClient({ url: served.api.url, region: 'eu-west-1', credentials })

describe('DelayQueueApiClient flow control', () => {
  it('rates a key with a slash in it, pauses and resumes a queue, and lists what is set', async () => {
    // prepare
    const c = client()
    // act
    const rated = await c.flow.setRate({ flowKey: 'mail/eu' }, { rate: 50, burst: 5 })
    const paused = await c.flow.pause({ queue: 'emails' })
    const listed = await c.flow.list()
    const resumed = await c.flow.resume({ queue: 'emails' })
    // assess
    expect(rated).toEqual({ flowKey: 'mail/eu', paused: false, rate: 50, burst: 5 })
    expect(paused).toEqual({ queue: 'emails', paused: true })
    expect(listed).toEqual([rated, paused])
    expect(resumed).toEqual({ queue: 'emails', paused: false, resumed: 0 })
  })

  it('schedules a job with its flow key, and refuses a bad rate naming the field', async () => {
    // prepare
    const c = client()
    // act
    await c.schedule({ id: 'cl-flow-1', queue: 'orders', payload: {}, delayMs: 60_000, flowKey: 'tenant-9' })
    const refused = await c.flow.setRate({ flowKey: 'k' }, { rate: -1 }).catch((e: unknown) => e)
    // assess
    expect(await c.get('cl-flow-1')).toMatchObject({ flowKey: 'tenant-9' })
    expect(refused).toBeInstanceOf(DelayQueueApiError)
    expect((refused as DelayQueueApiError).details?.[0]?.path).toBe('rate')
  })
})
