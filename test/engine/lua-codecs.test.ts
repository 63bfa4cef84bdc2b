// The Lua codecs in lua/includes/ (the job record, the occurrence id) run inside a real Redis and agree with their
// TypeScript side (src/store/record.ts, src/schedule/occurrence-id.ts): what one side writes, the other reads.
import { afterAll, describe, expect, it } from 'vitest'
import { occurrenceId, parseOccurrenceId } from '../../src/schedule/occurrence-id'
import { decodeRecord } from '../../src/store/record'
import { composeScript } from '../../src/store/scripts'
import { testStore } from '../support/engine'

const t = testStore({ shards: 1, buckets: 4 })
afterAll(() => t.close())

/** Run `body` with the helpers it names, no keys, string arguments (composed as the scripts are). */
async function lua(helpers: string, body: string, ...args: (string | number)[]): Promise<unknown> {
  return t.redis.eval(composeScript(`--[[\n  Helpers: ${helpers}\n]]\n${body}`), 0, ...args)
}

const jobs = [
  { queue: 'orders', createdAtMs: 1_795_648_056_156, version: 0, groupId: '', payloadJson: '{"n":1}' },
  { queue: 'a|b.fifo', createdAtMs: 0, version: 17, groupId: 'g@1:x', payloadJson: '"line\\nbreak @ 1"' },
  { queue: 'q', createdAtMs: 32_503_680_000_000, version: 3, groupId: 'grp', payloadJson: '' },
]

describe('the job record codec (lua/includes/encodeRecord.lua, decodeRecord.lua)', () => {
  it.each(jobs)('writes a record for queue $queue that src/store/record.ts reads back field for field', async (job) => {
    // act
    const record = (await lua(
      'encodeRecord',
      'return encodeRecord(ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4], ARGV[5])',
      job.queue,
      job.createdAtMs,
      job.version,
      job.groupId,
      job.payloadJson,
    )) as string
    // assess
    const { groupId, ...rest } = job
    expect(decodeRecord(record)).toEqual({ ...rest, ...(groupId ? { groupId } : {}) })
  })

  it.each(jobs)('reads back in Lua what it wrote for queue $queue', async (job) => {
    // act
    const fields = await lua(
      'encodeRecord, decodeRecord',
      'return { decodeRecord(encodeRecord(ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4], ARGV[5])) }',
      job.queue,
      job.createdAtMs,
      job.version,
      job.groupId,
      job.payloadJson,
    )
    // assess
    expect(fields).toEqual([job.queue, job.createdAtMs, job.version, job.groupId, job.payloadJson])
  })

  it('reads the record enqueue stored, and nothing from a text that is not a record', async () => {
    // prepare
    await t.store.enqueue({
      id: 'codec-1',
      queue: 'orders',
      groupId: 'g',
      payloadJson: '{"a":1}',
      schedule: { delayMs: 60_000 },
    })
    const stored = (await t.redis.hget(t.keys.shards[0]!.jobs, 'codec-1'))!
    // act
    const fields = await lua('decodeRecord', 'return { decodeRecord(ARGV[1]) }', stored)
    const notARecord = await lua('decodeRecord', 'return { decodeRecord(ARGV[1]) }', 'orders\n1\n0')
    // assess
    const job = decodeRecord(stored)
    expect(fields).toEqual([job.queue, job.createdAtMs, job.version, 'g', '{"a":1}'])
    expect(notARecord).toEqual([])
  })
})

describe('the occurrence id codec (lua/includes/occurrenceId.lua, parseOccurrenceId.lua)', () => {
  it.each([
    ['daily', 1_795_648_056_156],
    ['a.b:c-d_e', 0],
    ['x', 32_503_679_999_999],
  ])('builds the id of %s at %d as src/schedule/occurrence-id.ts does, and both read it back', async (sid, atMs) => {
    // act
    const id = await lua('occurrenceId', 'return occurrenceId(ARGV[1], ARGV[2])', sid, String(atMs))
    const parsed = await lua('occurrenceId, parseOccurrenceId', 'return { parseOccurrenceId(ARGV[1]) }', String(id))
    // assess
    expect(id).toBe(occurrenceId(sid, atMs))
    expect(parsed).toEqual([sid, String(atMs)])
    expect(parseOccurrenceId(String(id))).toEqual({ scheduleId: sid, atMs })
  })

  it('reads no schedule from an ordinary job id, on either side', async () => {
    // act
    const parsed = await lua('parseOccurrenceId', 'return { parseOccurrenceId(ARGV[1]) }', 'order-17')
    // assess
    expect(parsed).toEqual([])
    expect(parseOccurrenceId('order-17')).toBeNull()
  })
})
