// Pure unit tests of the job input rules (src/direct/validation.ts): no Redis involved.
import { describe, expect, it } from 'vitest'
import { PayloadTooLargeError, ValidationError } from '../../src/errors'
import { expectedMessageBytes, messageBody, messageBytes } from '../../src/sqs/envelope'
import { validateJobId } from '../../src/direct/id-rules'
import { parseIsoWithZone, validateBatch, validateJob } from '../../src/direct/validation'
import { refusalOf } from '../support/validation'

const DAY = 86_400_000
const config = {
  queues: { orders: 'http://q/orders', 'events.fifo': 'http://q/events.fifo' } as Record<string, string>,
  maxHorizonMs: 400 * DAY,
  maxMessageBytes: 4096,
}
const NOW = Date.parse('2027-01-01T00:00:00Z')

/** The details of the ValidationError validateJob throws for `input`. */
const detailsOf = (input: unknown, options = {}) =>
  refusalOf(() => validateJob(input, config, { nowMs: NOW, ...options }))

describe('job input validation', () => {
  it('turns a minimal job into a NewJob due now with a generated time-ordered id', () => {
    const job = validateJob({ queue: 'orders', payload: { orderId: 42 } }, config)
    expect(job).toMatchObject({ queue: 'orders', payloadJson: '{"orderId":42}', due: { delayMs: 0 } })
    expect(job.id).toMatch(/^[0-9A-Z]{26}$/)
    expect(job.groupId).toBeUndefined()
  })

  it('keeps delayMs relative (Redis adds its own clock) and runAt absolute', () => {
    expect(validateJob({ queue: 'orders', payload: 1, delayMs: 900_000 }, config).due).toEqual({
      delayMs: 900_000,
    })
    const at = validateJob({ queue: 'orders', payload: 1, runAt: '2027-01-04T09:00:00Z' }, config, { nowMs: NOW })
    expect(at.due).toEqual({ atMs: Date.parse('2027-01-04T09:00:00Z') })
    expect(validateJob({ queue: 'orders', payload: 1, runAt: NOW + 5 }, config, { nowMs: NOW }).due).toEqual({
      atMs: NOW + 5,
    })
  })

  it('accepts a runAt in the past (it means now) and any JSON payload, null included', () => {
    expect(validateJob({ queue: 'orders', payload: null, runAt: '2001-01-01T00:00:00Z' }, config).due).toEqual({
      atMs: Date.parse('2001-01-01T00:00:00Z'),
    })
    for (const payload of [null, 0, 'text', [1, 'a'], { deep: { er: [true] } }]) {
      expect(validateJob({ queue: 'orders', payload }, config).payloadJson).toBe(JSON.stringify(payload))
    }
  })

  it('requires queue and payload', () => {
    expect(detailsOf({})).toEqual([
      { path: 'queue', message: 'is required' },
      { path: 'payload', message: 'is required (any JSON value, null included)' },
    ])
  })

  it('names the known queues when the queue is unknown, and never takes Object.prototype names as queues', () => {
    expect(detailsOf({ queue: 'order', payload: 1 })).toEqual([
      { path: 'queue', message: 'must be one of the configured queues: "orders", "events.fifo"' },
    ])
    for (const queue of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      expect(detailsOf({ queue, payload: 1 })[0]!.path).toBe('queue')
    }
    expect(detailsOf({ queue: 7, payload: 1 })).toEqual([
      { path: 'queue', message: 'must be a string naming a configured queue' },
    ])
  })

  it('rejects unknown fields, one detail each, with a hint for typos', () => {
    const details = detailsOf({ queue: 'orders', payload: 1, delay_ms: 5, runat: 1, priority: 3 })
    expect(details.map((d) => d.path)).toEqual(['delay_ms', 'runat', 'priority'])
    expect(details[0]!.message).toContain('did you mean "delayMs"?')
    expect(details[1]!.message).toContain('did you mean "runAt"?')
    expect(details[2]!.message).toMatch(
      /^is not a known field; known: queue, payload, delayMs, runAt, id, groupId, flowKey, tags, onConflict, maxWaitMs$/,
    )
  })

  it('echoes at most 10 unknown fields, each cut to 64 characters', () => {
    const input: Record<string, unknown> = { queue: 'orders', payload: 1, ['k'.repeat(10_000)]: 1 }
    for (let i = 0; i < 50; i++) input[`extra${i}`] = i
    const details = detailsOf(input)
    expect(details).toHaveLength(11)
    expect(details[0]!.path).toBe(`${'k'.repeat(64)}...`)
    expect(details[10]).toEqual({ path: '', message: 'has 41 more unknown fields' })
  })

  it('rejects __proto__ and constructor keys at the top level as unknown fields without touching prototypes', () => {
    const input = JSON.parse(
      '{"queue":"orders","payload":1,"__proto__":{"polluted":true},"constructor":{"prototype":{}}}',
    )
    expect(detailsOf(input).map((d) => d.path)).toEqual(['__proto__', 'constructor'])
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  it('rejects __proto__ and constructor.prototype keys anywhere in the payload', () => {
    const payload = JSON.parse(
      '{"a":[{"__proto__":{"x":1}}],"b":{"constructor":{"prototype":{"y":1}}},"c":{"constructor":"Bob"}}',
    )
    expect(detailsOf({ queue: 'orders', payload })).toEqual([
      { path: 'payload.b.constructor.prototype', message: 'is not allowed (prototype pollution guard)' },
      { path: 'payload.a[0].__proto__', message: 'is not allowed (prototype pollution guard)' },
    ])
  })

  it('rejects payloads JSON cannot carry faithfully: non-finite numbers, BigInt, cycles, functions', () => {
    expect(detailsOf({ queue: 'orders', payload: { n: [1, Infinity] } })).toEqual([
      { path: 'payload.n[1]', message: 'must be a finite number' },
    ])
    expect(detailsOf({ queue: 'orders', payload: NaN })).toEqual([
      { path: 'payload', message: 'must be a finite number' },
    ])
    expect(detailsOf({ queue: 'orders', payload: 10n })[0]!.message).toMatch(/^must be a JSON value \(.*BigInt/)
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    expect(detailsOf({ queue: 'orders', payload: cyclic })[0]!.path).toBe('payload')
    expect(detailsOf({ queue: 'orders', payload: () => 1 })).toEqual([
      { path: 'payload', message: 'must be a JSON value' },
    ])
  })

  it('takes payloads nested up to 100 levels and refuses deeper ones, however deep, without a stack overflow', () => {
    const nested = (levels: number) => JSON.parse('['.repeat(levels) + ']'.repeat(levels))
    expect(validateJob({ queue: 'orders', payload: nested(100) }, config).payloadJson).toHaveLength(200)
    const tooDeep = [{ path: 'payload', message: 'must not nest deeper than 100 levels' }]
    expect(detailsOf({ queue: 'orders', payload: nested(101) })).toEqual(tooDeep)
    expect(detailsOf({ queue: 'orders', payload: nested(1_000_000) })).toEqual(tooDeep)
  })

  it('delayMs must be an integer >= 0 and within the horizon', () => {
    for (const delayMs of [-1, 1.5, '1000', Infinity, Number.NaN, null, true]) {
      expect(detailsOf({ queue: 'orders', payload: 1, delayMs })).toEqual([
        { path: 'delayMs', message: 'must be an integer >= 0' },
      ])
    }
    expect(detailsOf({ queue: 'orders', payload: 1, delayMs: 400 * DAY + 1 })).toEqual([
      { path: 'delayMs', message: `must be at most ${400 * DAY} (the 400-day horizon)` },
    ])
    expect(detailsOf({ queue: 'orders', payload: 1, delayMs: 1e300 })[0]!.path).toBe('delayMs')
    expect(validateJob({ queue: 'orders', payload: 1, delayMs: 400 * DAY }, config).due).toEqual({
      delayMs: 400 * DAY,
    })
    expect(
      Object.is(
        (validateJob({ queue: 'orders', payload: 1, delayMs: -0 }, config).due as { delayMs: number }).delayMs,
        0,
      ),
    ).toBe(true)
  })

  it('runAt must carry a zone, be a real time, or be an integer epoch ms, within the horizon', () => {
    const bad = ['2027-01-04T09:00:00', '2027-01-04', 'tomorrow', '2027-02-30T09:00:00Z', '2027-01-04T25:00:00Z', '']
    for (const runAt of bad)
      expect(detailsOf({ queue: 'orders', payload: 1, runAt })[0]!.message).toMatch(
        /^must be an ISO-8601 time with a zone/,
      )
    expect(detailsOf({ queue: 'orders', payload: 1, runAt: Infinity })[0]!.path).toBe('runAt')
    for (const runAt of [1.5, -1, 1e300]) {
      expect(detailsOf({ queue: 'orders', payload: 1, runAt })).toEqual([
        { path: 'runAt', message: 'must be an integer epoch ms >= 0' },
      ])
    }
    expect(detailsOf({ queue: 'orders', payload: 1, runAt: { at: 1 } })[0]!.path).toBe('runAt')
    expect(detailsOf({ queue: 'orders', payload: 1, runAt: NOW + 400 * DAY + 1 })[0]!.message).toMatch(
      /^must be within the 400-day horizon/,
    )
    expect(detailsOf({ queue: 'orders', payload: 1, runAt: '2099-01-01T00:00:00Z' })[0]!.path).toBe('runAt')
  })

  it('reads ISO-8601 zones and fractions exactly', () => {
    expect(parseIsoWithZone('2027-01-04T10:00:00+01:00')).toBe(Date.parse('2027-01-04T09:00:00Z'))
    expect(parseIsoWithZone('2027-01-04T04:30:00-0430')).toBe(Date.parse('2027-01-04T09:00:00Z'))
    expect(parseIsoWithZone('2027-01-04T09:00Z')).toBe(Date.parse('2027-01-04T09:00:00Z'))
    expect(parseIsoWithZone('2027-01-04T09:00:00.123456789Z')).toBe(Date.parse('2027-01-04T09:00:00.123Z'))
    expect(parseIsoWithZone('2028-02-29T00:00:00Z')).toBe(Date.parse('2028-02-29T00:00:00Z'))
    expect(parseIsoWithZone('2027-02-29T00:00:00Z')).toBeUndefined()
    expect(parseIsoWithZone('2027-01-04T09:00:00+19:00')).toBeUndefined()
  })

  it('refuses a runAt in epoch seconds, naming the unit, and still takes 0 and any millisecond time as given', () => {
    expect(detailsOf({ queue: 'orders', payload: 1, runAt: 1_798_000_000 })).toEqual([
      {
        path: 'runAt',
        message: 'looks like epoch seconds: runAt takes epoch milliseconds (1798000000 s would be 1798000000000)',
      },
    ])
    expect(validateJob({ queue: 'orders', payload: 1, runAt: 0 }, config, { nowMs: NOW }).due).toEqual({ atMs: 0 })
    expect(validateJob({ queue: 'orders', payload: 1, runAt: 1e11 }, config, { nowMs: NOW }).due).toEqual({
      atMs: 1e11,
    })
  })

  it('takes at most one of delayMs and runAt', () => {
    expect(detailsOf({ queue: 'orders', payload: 1, delayMs: 5, runAt: NOW })).toEqual([
      { path: 'runAt', message: 'cannot be combined with delayMs: give one of them, or neither to run now' },
    ])
  })

  it('id: 1-128 characters of [A-Za-z0-9_.:-], kept as given', () => {
    expect(validateJob({ queue: 'orders', payload: 1, id: 'order-42:close.v_1' }, config).id).toBe('order-42:close.v_1')
    expect(validateJob({ queue: 'orders', payload: 1, id: 'x'.repeat(128) }, config).id).toHaveLength(128)
    for (const id of ['', 'x'.repeat(129), 'has space', 'slash/id', 'ünï', 'new\nline', 42]) {
      expect(detailsOf({ queue: 'orders', payload: 1, id })).toEqual([
        { path: 'id', message: 'must be 1-128 characters of [A-Za-z0-9_.:-], not only dots' },
      ])
    }
    expect(() => validateJobId('bad id')).toThrow(ValidationError)
  })

  it('an id in the body must match the one in the path', () => {
    expect(validateJob({ queue: 'orders', payload: 1, id: 'a' }, config, { id: 'a' }).id).toBe('a')
    expect(validateJob({ queue: 'orders', payload: 1 }, config, { id: 'a' }).id).toBe('a')
    expect(detailsOf({ queue: 'orders', payload: 1, id: 'b' }, { id: 'a' })).toEqual([
      { path: 'id', message: 'must match the id in the path ("a") or be left out' },
    ])
  })

  it('groupId follows SQS MessageGroupId rules and is only for FIFO queues', () => {
    expect(validateJob({ queue: 'events.fifo', payload: 1, groupId: 'order-42!' }, config).groupId).toBe('order-42!')
    for (const groupId of ['', 'g'.repeat(129), 'a\nb', 'with space', 'ümlaut', 5]) {
      expect(detailsOf({ queue: 'events.fifo', payload: 1, groupId })[0]!.path).toBe('groupId')
    }
    expect(detailsOf({ queue: 'orders', payload: 1, groupId: 'g' })).toEqual([
      {
        path: 'groupId',
        message: 'is only allowed for FIFO queues (names ending in .fifo); "orders" is a standard queue',
      },
    ])
  })

  it('reports every bad field at once', () => {
    expect(detailsOf({ queue: 'nope', payload: 1, delayMs: 5, runAt: 6, id: 'bad id' }).map((d) => d.path)).toEqual([
      'id',
    ])
    expect(detailsOf({ queue: 'nope', payload: { x: Infinity }, delayMs: 400 * DAY + 1 }).map((d) => d.path)).toEqual([
      'queue',
      'delayMs',
      'payload.x',
    ])
  })

  it('must be an object', () => {
    for (const input of [null, [], 'job', 3])
      expect(detailsOf(input)).toEqual([{ path: '', message: expect.stringMatching(/^must be a JSON object/) }])
  })

  it('refuses a job whose SQS message would exceed the configured size with PayloadTooLargeError', () => {
    const fits = 'x'.repeat(4096 - expectedMessageBytes('id-1', 'orders', '""'))
    expect(validateJob({ queue: 'orders', payload: fits, id: 'id-1' }, config).payloadJson).toHaveLength(
      fits.length + 2,
    )
    const error = (() => {
      try {
        validateJob({ queue: 'orders', payload: `${fits}x`, id: 'id-1' }, config)
      } catch (e) {
        return e
      }
    })()
    expect(error).toBeInstanceOf(PayloadTooLargeError)
    expect(error).toMatchObject({ bytes: 4097, limit: 4096 })
  })

  it('counts the tags and the flow key toward the SQS message size: the message carries them', () => {
    // prepare: a payload that fits the limit exactly in the message of a job without tags or flow key
    const fits = 'x'.repeat(4096 - expectedMessageBytes('id-1', 'orders', '""'))
    const labels = { tags: ['order:42'], flowKey: 'k' }
    // act
    let error: unknown
    try {
      validateJob({ queue: 'orders', payload: fits, id: 'id-1', ...labels }, config)
    } catch (e) {
      error = e
    }
    // assess: refused by the bytes its real message has
    const source = { id: 'id-1', queue: 'orders', payloadJson: JSON.stringify(fits), dueMs: 0, createdAtMs: 0 }
    const body = messageBody({ ...source, ...labels }, 0)
    expect(error).toBeInstanceOf(PayloadTooLargeError)
    expect(error).toMatchObject({ bytes: messageBytes(body, 'id-1'), limit: 4096 })
  })

  it('a batch is { jobs: [...] } with at most 100 jobs', () => {
    expect(validateBatch({ jobs: [1, 2] })).toEqual([1, 2])
    expect(validateBatch({ jobs: [] })).toEqual([])
    const err = (body: unknown) => refusalOf(() => validateBatch(body))
    expect(err([{ queue: 'orders' }])).toEqual([{ path: '', message: 'must be an object: { "jobs": [ ... ] }' }])
    expect(err({})).toEqual([{ path: 'jobs', message: 'is required' }])
    expect(err({ jobs: {} })).toEqual([{ path: 'jobs', message: 'must be an array of jobs' }])
    expect(err({ jobs: [], job: [] })).toEqual([
      { path: 'job', message: 'is not a known field (known: jobs); a single job goes to POST /jobs' },
    ])
    expect(err({ queue: 'orders', payload: 1 })!.map((d) => d.path)).toEqual(['queue', 'payload', 'jobs'])
    expect(err({ jobs: new Array(101).fill({}) })).toEqual([
      { path: 'jobs', message: 'must hold at most 100 jobs, got 101' },
    ])
  })
})
