// The seam between TypeScript and Lua: each call builder lists its script's KEYS and ARGV under the names and in the
// order of the script's header, and each script carries exactly the shared helpers it uses.
import { describe, expect, it } from 'vitest'
import { Keyspace, receiptSlot } from '../../src/store/keys'
import { claimCall } from '../../src/store/scripts/claim'
import { ackCall } from '../../src/store/scripts/ack'
import { relayHandBackCall } from '../../src/store/scripts/relay-hand-back'
import { releaseCall } from '../../src/store/scripts/release'
import { scannerAliveCall } from '../../src/store/scripts/scanner-alive'
import { scannerRetireCall } from '../../src/store/scripts/scanner-retire'
import { scanStartReleaseCall } from '../../src/store/scripts/scan-start-release'
import { scheduleAckCall } from '../../src/store/scripts/schedule-ack'
import { scheduleDeleteCall } from '../../src/store/scripts/schedule-delete'
import { schedulePutCall } from '../../src/store/scripts/schedule-put'
import { cancelCall } from '../../src/store/scripts/cancel'
import { enqueueCall } from '../../src/store/scripts/enqueue'
import { getCall } from '../../src/store/scripts/get'
import { reviveCall } from '../../src/store/scripts/revive'
import { recordHeadsCall } from '../../src/store/scripts/record-heads'
import { walkAdvanceCall } from '../../src/store/scripts/walk-advance'
import { walkStartCall } from '../../src/store/scripts/walk-start'
import { deepPageRateCall } from '../../src/store/scripts/deep-page-rate'
import { flowHoldCall } from '../../src/store/scripts/flow-hold'
import { flowResumeCall } from '../../src/store/scripts/flow-resume'
import { flowEpochCall } from '../../src/store/scripts/flow-epoch'
import { flowSetCall } from '../../src/store/scripts/flow-set'
import { flowTakeCall } from '../../src/store/scripts/flow-take'
import { promoteCall } from '../../src/store/scripts/promote'
import { promoteDueCall } from '../../src/store/scripts/promote-due'
import { tagCancelCall } from '../../src/store/scripts/tag-cancel'
import { tagPromoteCall } from '../../src/store/scripts/tag-promote'
import { lockReleaseCall } from '../../src/store/scripts/scheduler-lock-release'
import {
  composeScript,
  helperClosure,
  helpersOf,
  LUA_HELPERS,
  LUA_SCRIPTS,
  splitShebang,
  type ScriptCall,
  type ScriptName,
} from '../../src/store/scripts'

const keys = new Keyspace({ prefix: 'sc', shards: 2, buckets: 4 })
const at = keys.locate('job-1')
const shard = at.shard
const calls: Record<ScriptName, ScriptCall<unknown>> = {
  sdqEnqueue: enqueueCall(at, {
    id: 'job-1',
    mode: 'insert',
    queue: 'q',
    groupId: '',
    payloadJson: '{}',
    due: { delayMs: 5 },
  }),
  sdqGet: getCall(at, 'job-1', [1, 0]),
  sdqCancel: cancelCall(at, 'job-1'),
  sdqTagCancel: tagCancelCall(keys, shard, 'order:1', ['job-1'], 10),
  sdqTagPromote: tagPromoteCall(keys, shard, 'order:1', ['job-1'], { beforeMs: 5, next: 10 }),
  sdqRevive: reviveCall(at, 'job-1', 0),
  sdqPromote: promoteCall(at, 'job-1'),
  sdqPromoteDue: promoteDueCall(shard, { bucket: 1, from: 0, after: '' }, 3, { beforeMs: 5, queue: '' }),
  sdqClaim: claimCall(shard, {
    limit: 10,
    leaseMs: 1000,
    token: 't',
    maxAttempts: 3,
    hintCap: 10,
    lookaheadMs: 25,
    fullCount: 10,
    fullBy: 0,
    windowMs: 0,
    hints: ['0', '3'],
  }),
  sdqAck: ackCall(shard, [{ id: 'job-1', token: 't', receipt: '1:5:0:m:q' }], {
    ttlMs: 60_000,
    nowMs: 5,
  }),
  sdqRelease: releaseCall(shard, {
    maxAttempts: 3,
    refusals: [{ id: 'job-1', token: 't', error: 'e', jobsFault: true, retryAtMs: 100 }],
  }),
  sdqSchedulePut: schedulePutCall(at, {
    id: 'job-1',
    specJson: '{}',
    payloadJson: '{}',
    queue: 'q',
    groupId: '',
    first: 1,
    second: 2,
  }),
  sdqScheduleDelete: scheduleDeleteCall(at, 'job-1'),
  sdqSchedulerLockRelease: lockReleaseCall(keys.schedulerGroup('g').lock('s'), 't'),
  sdqRelayHandBack: relayHandBackCall(keys.scanRelayKey, 'run-b', 'run-a'),
  sdqRecordHeads: recordHeadsCall(shard.jobs, { headerLines: 4, previewBytes: 0, budgetBytes: 1, ids: ['job-1'] }),
  sdqWalkStart: walkStartCall(shard, {
    walk: 'w-a',
    position: 't|1:job-1',
    ttlMs: 1,
    maxWalks: 2,
    bytesPerBucket: 93,
    budgetBytes: 1_000,
    memoryPercent: 80,
    idleMs: 60_000,
    candidates: ['w-b'],
  }),
  sdqWalkAdvance: walkAdvanceCall(shard, {
    walk: 'w-a',
    held: 't|1:job-1',
    next: 't|2:job-2',
    ttlMs: 1,
    raise: [{ bucketNo: '3', bound: 2 }],
    forget: ['1'],
  }),
  sdqDeepPageRate: deepPageRateCall(keys, 'caller', 20),
  sdqScannerAlive: scannerAliveCall(shard, 'run-a', 5_000),
  sdqScannerRetire: scannerRetireCall(shard, { owner: 'run-a', horizonMs: 70_000, startToken: 'job-1' }),
  sdqScanStartRelease: scanStartReleaseCall(shard, 'job-1', 1_000),
  sdqFlowTake: flowTakeCall(keys, 'k:mail', { rate: 50, burst: 5 }, ['job-1']),
  sdqFlowHold: flowHoldCall(shard, '3', 60_000, []),
  sdqFlowResume: flowResumeCall(shard, 'q:q', '4'),
  sdqFlowSet: flowSetCall(keys, 'p:q:q', '1'),
  sdqFlowEpoch: flowEpochCall(shard, '4'),
  sdqScheduleAck: scheduleAckCall(shard, [
    {
      id: 'job-1@1',
      token: 't',
      scheduleId: 'job-1',
      atMs: 1,
      version: 1,
      nextAfterIt: 2,
      nextAfterNow: 2,
      bucketNo: 3,
    },
  ]),
}

/**
 * The names a header gives KEYS[n] / ARGV[n], in order: `KEYS[n] name`, `KEYS[n..] name` (a list that runs to the
 * end), or `KEYS[a..b] name, name, ...:` (a group of keys, such as the job side).
 */
function headerNames(lua: string, table: 'KEYS' | 'ARGV'): string[] {
  const header = lua.slice(0, lua.indexOf(']]'))
  const pattern = new RegExp(`^\\s*${table}\\[(\\d+)(?:\\.\\.(\\d*))?\\]\\s+(\\w+(?:, \\w+)*)`, 'gm')
  const names: string[] = []
  for (const [, from, to, list] of header.matchAll(pattern)) {
    expect(Number(from), `${table}[${from}] out of order`).toBe(names.length + 1)
    const group = list!.split(', ')
    if (to) expect(group, `${table}[${from}..${to}] names each key`).toHaveLength(Number(to) - Number(from) + 1)
    names.push(...group)
  }
  return names
}

/** Lua names called in a script's own text (after its header). */
function called(lua: string): Set<string> {
  return new Set([...lua.slice(lua.indexOf(']]')).matchAll(/\b(\w+)\(/g)].map((m) => m[1]!))
}

describe('script calls', () => {
  for (const [name, lua] of Object.entries(LUA_SCRIPTS) as [ScriptName, string][]) {
    it(`${name} is called with the KEYS and ARGV its header names, in that order`, () => {
      // prepare / act
      const call = calls[name]
      // assess
      expect(call.script).toBe(name)
      expect(Object.keys(call.keys)).toEqual(headerNames(lua, 'KEYS'))
      expect(Object.keys(call.args)).toEqual(headerNames(lua, 'ARGV'))
    })

    it(`${name} carries exactly the helpers it calls, each defined before the script`, () => {
      // prepare
      const uses = [...called(lua)].filter((fn) => fn in LUA_HELPERS)
      // act
      const composed = composeScript(lua)
      // assess
      const { shebang, body } = splitShebang(lua)
      expect(helpersOf(lua).sort()).toEqual(uses.sort())
      if (shebang) expect(composed.startsWith(`${shebang}\n`)).toBe(true)
      for (const helper of uses)
        expect(composed.indexOf(`local function ${helper}(`)).toBeLessThan(composed.indexOf(body))
      // Helpers may call helpers listed before them: those come along, and nothing else.
      const needed = helperClosure(uses)
      for (const helper of needed) expect(composed).toContain(`local function ${helper}(`)
      for (const helper of Object.keys(LUA_HELPERS).filter((h) => !needed.has(h))) {
        expect(composed).not.toContain(`local function ${helper}(`)
      }
    })
  }

  it('puts every key of a call in its shard, claim buckets included, and counts them', () => {
    // act
    const flat = Object.values(calls.sdqClaim.keys).flat()
    // assess
    expect(flat).toHaveLength(11)
    expect(flat.every((key) => key.startsWith(`${shard.tag}:`))).toBe(true)
    expect(flat.slice(9)).toEqual([shard.bucket('0'), shard.bucket('3')])
  })

  it("puts an occurrence ack's buckets in KEYS once each, and points each occurrence at its bucket", () => {
    // act
    const call = scheduleAckCall(shard, [
      { id: 'a@1', token: 't', scheduleId: 'a', atMs: 1, version: 1, nextAfterIt: 2, nextAfterNow: 2, bucketNo: 3 },
      {
        id: 'b@1',
        token: 't',
        scheduleId: 'b',
        atMs: 1,
        version: 1,
        nextAfterIt: null,
        nextAfterNow: null,
        bucketNo: 1,
      },
      { id: 'c@1', token: 't', scheduleId: 'c', atMs: 1, version: 1, nextAfterIt: 5, nextAfterNow: 5, bucketNo: 3 },
    ])
    // assess
    const flat = Object.values(call.keys).flat()
    expect(flat.slice(8)).toEqual([shard.bucket(3), shard.bucket(1)])
    const groups = call.args.occurrences as (string | number)[]
    expect([groups[8], groups[19], groups[30]]).toEqual([9, 10, 9])
    expect(groups.slice(11, 22)).toEqual(['b@1', 't', 'b', 1, 1, -1, -1, 1, 10, 0, ''])
  })

  it("puts an occurrence ack's receipt hashes in KEYS after its buckets, and points each occurrence at its hash", () => {
    // prepare / act: two occurrences of one schedule, with receipts on
    const occurrence = { token: 't', scheduleId: 'a', version: 1, nextAfterIt: null, nextAfterNow: null, bucketNo: 3 }
    const call = scheduleAckCall(
      shard,
      [
        { ...occurrence, id: 'a@1', atMs: 1, receipt: '1:1:0:m:q' },
        { ...occurrence, id: 'a@2', atMs: 2, receipt: '1:2:0:n:q' },
      ],
      0,
      { ttlMs: 60_000, nowMs: 7_200_000 },
    )
    // assess: KEYS[9] the bucket, then the hour's hashes of each id; each group names its hash by its KEYS index
    const flat = Object.values(call.keys).flat()
    const hashes = [...new Set(['a@1', 'a@2'].map((id) => shard.receipts(2, receiptSlot(id))))]
    expect(flat.slice(8)).toEqual([shard.bucket(3), ...hashes])
    const groups = call.args.occurrences as (string | number)[]
    expect(flat[Number(groups[9]) - 1]).toBe(shard.receipts(2, receiptSlot('a@1')))
    expect(flat[Number(groups[20]) - 1]).toBe(shard.receipts(2, receiptSlot('a@2')))
    expect([groups[10], groups[21]]).toEqual(['1:1:0:m:q', '1:2:0:n:q'])
    expect(call.args.expireAt).toBe(3 * 3_600_000 + 60_000)
  })

  it('never passes release.lua a retry time that is not a finite number (its ZADD would fail mid-loop)', () => {
    // prepare: refusals whose retry time is NaN (a clock not measured yet) or Infinity, beside good ones
    const refusal = { token: 't', error: 'e', jobsFault: true }
    const refusals = [
      { ...refusal, id: 'a', retryAtMs: 100 },
      { ...refusal, id: 'b', retryAtMs: Number.NaN },
      { ...refusal, id: 'c', retryAtMs: Number.POSITIVE_INFINITY, retryInMs: 250.4 },
      { ...refusal, id: 'd', retryInMs: Number.NaN },
      { ...refusal, id: 'e', retryInMs: 40 },
    ]
    // act
    const call = releaseCall(shard, { maxAttempts: 3, refusals })
    // assess: each retry field (the 5th of a sextuple) is absolute and finite, or "+<whole ms>"
    const fields = refusals.map((_, i) => (call.args.refusals as (string | number)[])[i * 6 + 4])
    expect(fields).toEqual([100, '+0', '+250', '+0', '+40'])
  })

  it('refuses a helper the prelude does not have', () => {
    expect(() => composeScript('--[[\n  Helpers: noSuchHelper\n]]\nreturn 1')).toThrow(/noSuchHelper/)
  })
})
