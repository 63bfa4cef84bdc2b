// The Lua codecs in lua/includes/ (the job record, the occurrence id) run inside a real Redis and agree with their
// TypeScript side (src/store/record.ts, src/recurrence/occurrence-id.ts): what one side writes, the other reads.
import { afterAll, describe, expect, it } from 'vitest'
import { occurrenceId, parseOccurrenceId } from '../../src/recurrence/occurrence-id'
import { decodeRecord } from '../../src/store/record'
import { decodeReceipt, encodeReceipt, writeTokenDigest, type DispatchReceipt } from '../../src/store/receipt'
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
  // stored by a write that sent a write token (an Idempotency-Key)
  {
    queue: 'orders',
    createdAtMs: 1_795_648_056_156,
    version: 2,
    groupId: '',
    payloadJson: '{"n":2}',
    writeToken: 'Zx_9-AbCdEfGhIjKlMnOpQ',
    requestDigest: '0af3c2d1',
  },
  // with tags: after the payload, one a line
  {
    queue: 'orders',
    createdAtMs: 1_795_648_056_156,
    version: 1,
    groupId: '',
    payloadJson: '{"n":3}',
    tags: ['order:42', 'user=7'],
  },
]

type Job = (typeof jobs)[number]
/**
 * A job's fields in the order encodeRecord takes them and decodeRecord answers them: the token and its request digest,
 * then the tags ("\n"-separated), '' for none.
 */
const recordFields = (job: Job) =>
  [
    job.queue,
    job.createdAtMs,
    job.version,
    job.groupId,
    job.payloadJson,
    job.writeToken ?? '',
    job.requestDigest ?? '',
    (job.tags ?? []).join('\n'),
  ] as const
const encodeCall =
  'encodeRecord(ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4], ARGV[5], ARGV[6], ARGV[7], ARGV[8])'

describe('the job record codec (lua/includes/encodeRecord.lua, decodeRecord.lua)', () => {
  it.each(jobs)('writes a record for queue $queue that src/store/record.ts reads back field for field', async (job) => {
    // act
    const record = (await lua('encodeRecord', `return ${encodeCall}`, ...recordFields(job))) as string
    // assess
    const { groupId, ...rest } = job
    expect(decodeRecord(record)).toEqual({ ...rest, ...(groupId ? { groupId } : {}) })
  })

  it.each(jobs)('reads back in Lua what it wrote for queue $queue', async (job) => {
    // act
    const fields = await lua(
      'encodeRecord, decodeRecord',
      `return { decodeRecord(${encodeCall}) }`,
      ...recordFields(job),
    )
    // assess: the token and its request digest, then the tags, '' for none
    expect(fields).toEqual(recordFields(job))
  })

  it('reads the record enqueue stored, and nothing from a text that is not a record', async () => {
    // prepare
    await t.store.enqueue({
      id: 'codec-1',
      queue: 'orders',
      groupId: 'g',
      payloadJson: '{"a":1}',
      due: { delayMs: 60_000 },
    })
    const stored = (await t.redis.hget(t.keys.shards[0]!.jobs, 'codec-1'))!
    // act
    const fields = await lua('decodeRecord', 'return { decodeRecord(ARGV[1]) }', stored)
    const notARecord = await lua('decodeRecord', 'return { decodeRecord(ARGV[1]) }', 'orders\n1\n0')
    // assess
    const job = decodeRecord(stored)
    expect(fields).toEqual([job.queue, job.createdAtMs, job.version, 'g', '{"a":1}', '', '', ''])
    expect(notARecord).toEqual([])
  })
})

describe('the write token digest in a dispatch receipt (src/store/receipt.ts, lua/includes/receiptToken.lua)', () => {
  const base: DispatchReceipt = {
    attempts: 2,
    dueMs: 1_795_648_056_156,
    acceptedAtMs: 1_795_648_056_190,
    messageId: '0b6a4ad6-2c1a-4bd3-9a2c-6f1f3d4b5e6f',
    queue: 'orders',
    createdAtMs: 1_795_648_000_000,
  }
  const written = (version: number) => ({ version, tokenDigest: writeTokenDigest('k-1_AbCdEfGh') })
  const cases: [string, DispatchReceipt, boolean][] = [
    ['a receipt of a job created with a token', { ...base, written: written(0) }, true],
    ['a receipt of a job replaced 37 times, the last with a token', { ...base, written: written(37) }, true],
    ['a receipt of a job written without one', base, false],
  ]

  it.each(cases)('reads back %s on both sides, the digest as Lua makes it', async (_, receipt, hasToken) => {
    // act
    const text = encodeReceipt(receipt)
    const inLua = await lua('receiptToken', 'return receiptToken(ARGV[1]) or false', text)
    const luaDigest = await lua('none', 'return string.sub(redis.sha1hex(ARGV[1]), 1, 8)', 'k-1_AbCdEfGh')
    // assess
    expect(decodeReceipt(text)).toEqual(receipt)
    expect(inLua ?? null).toBe(hasToken ? luaDigest : null)
  })

  // The longest queue name whose receipts stay within hash-max-listpack-value (64 bytes), measured on encodeReceipt's
  // output: docs/cluster.md's receipt-size paragraph states these figures. Common: one attempt, accepted within 1.3 s
  // of its due time, a delay under 16 hours, never replaced; long: 9 attempts, accepted up to 46 s late, a delay of up
  // to a year, replaced up to 35 times. Due in 2026 (8 base-36 digits until 2059), message ids UUIDs (SQS's).
  type Shape = { attempts: number; lateMs: number; delayMs: number; version: number }
  const shapes: [string, Shape, number, number][] = [
    ['common', { attempts: 1, lateMs: 1_295, delayMs: 16 * 3_600_000, version: 0 }, 21, 11],
    ['long', { attempts: 9, lateMs: 46_655, delayMs: 365 * 86_400_000, version: 35 }, 18, 8],
  ]
  it.each(shapes)(
    'keeps a %s receipt compact up to a measured queue name length, without and with a write token',
    (_, c, plain, keyed) => {
      // prepare
      const dueMs = Date.parse('2026-11-26T07:00:00Z')
      const receipt = (queue: string, key: boolean) =>
        encodeReceipt({
          attempts: c.attempts,
          dueMs,
          acceptedAtMs: dueMs + c.lateMs,
          messageId: base.messageId,
          queue,
          createdAtMs: dueMs - c.delayMs,
          ...(key ? { written: { version: c.version, tokenDigest: writeTokenDigest('k-1_AbCdEfGh') } } : {}),
        })
      // act: the longest name that fits
      const longest = (key: boolean) => {
        let n = 0
        while (Buffer.byteLength(receipt('q'.repeat(n + 1), key)) <= 64) n++
        return n
      }
      // assess
      expect([longest(false), longest(true)]).toEqual([plain, keyed])
      expect(Buffer.byteLength(receipt('', true)) - Buffer.byteLength(receipt('', false))).toBe(10)
    },
  )

  it('stays within the 64 bytes a compact receipt hash allows, for a common queue name and a year-long delay', () => {
    // (hash-max-listpack-value: one longer value turns the whole hash into a table, ~140 bytes a receipt)
    const longest = encodeReceipt({
      attempts: 10,
      dueMs: 32_503_680_000_000,
      acceptedAtMs: 32_503_680_000_000 + 36 ** 3 - 1,
      messageId: base.messageId,
      queue: 'orders',
      createdAtMs: 32_503_680_000_000 - 400 * 86_400_000,
      written: { version: 35, tokenDigest: writeTokenDigest('k') },
    })
    expect(Buffer.byteLength(longest)).toBeLessThanOrEqual(64)
  })
})

describe('the occurrence id codec (lua/includes/occurrenceId.lua, parseOccurrenceId.lua)', () => {
  it.each([
    ['daily', 1_795_648_056_156],
    ['a.b:c-d_e', 0],
    ['x', 32_503_679_999_999],
  ])('builds the id of %s at %d as src/recurrence/occurrence-id.ts does, and both read it back', async (sid, atMs) => {
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
