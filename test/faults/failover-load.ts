// The failover case's client side: concurrent API-style writes (enqueues, and cancels of jobs due a little later)
// that remember exactly what was acknowledged, and when writes were acknowledged again after a fault.
import { sleep } from '../../devkit/sleep'
import type { SQSClient } from '@aws-sdk/client-sqs'
import type { Redis } from 'ioredis'
import { expect } from 'vitest'
import type { Engine } from '../../src/store/engine'
import { countIds, receiveAll } from '../support/sqs'
import { between } from './harness'

export interface LoadRecord {
  /** Enqueues answered as a success (and not cancelled later). */
  enqueued: Set<string>
  /** Cancels answered as a success: these jobs must never reach SQS. */
  cancelled: Set<string>
  /** Acknowledged jobs whose cancel then failed: it may or may not have happened, so neither outcome is wrong. */
  uncertain: Set<string>
  /** Writes answered with an error (503: unavailable or unconfirmed; or a retry's 409). */
  refused: number
  refusedUnconfirmed: number
  /** [sent, answered, job id] of each acknowledged write, to find the first one sent after a fault. */
  acks: [number, number, string][]
  /** [answered, job id] of each refused write. */
  refusals: [number, string][]
}

/**
 * `lanes` loops writing while `keepGoing()`: each turn enqueues a job due soon, and every third one cancels a later
 * job. `only`: the lanes write only the ids it takes (jobs on some shards), skipping the others.
 */
export async function writeLoad(
  engine: Engine,
  tag: string,
  lanes: number,
  keepGoing: (r: LoadRecord) => boolean,
  only: (id: string) => boolean = () => true,
): Promise<LoadRecord> {
  const record: LoadRecord = {
    enqueued: new Set(),
    cancelled: new Set(),
    uncertain: new Set(),
    refused: 0,
    refusedUnconfirmed: 0,
    acks: [],
    refusals: [],
  }
  const refuse = (e: unknown, id: string) => {
    record.refused++
    record.refusals.push([Date.now(), id])
    if ((e as { code?: string }).code === 'ReplicationUnconfirmed') record.refusedUnconfirmed++
  }
  const lane = async (l: number) => {
    for (let n = 0; keepGoing(record); n++) {
      const id = `${tag}-${l}-${n}`
      if (!only(id)) continue
      const cancelLater = n % 3 === 2
      let sent = Date.now()
      try {
        // Jobs to cancel are due later than the cancel comes, so a cancel that fails is a real failure.
        await engine.store.enqueue({
          id,
          queue: 'orders',
          payloadJson: '{"failover":true}',
          due: { delayMs: cancelLater ? between(1_500, 3_000) : between(0, 1_000) },
        })
        record.enqueued.add(id)
        record.acks.push([sent, Date.now(), id])
        if (cancelLater) {
          sent = Date.now()
          await engine.store.cancel(id)
          record.enqueued.delete(id)
          record.cancelled.add(id)
          record.acks.push([sent, Date.now(), id])
        }
      } catch (e) {
        if (record.enqueued.delete(id)) record.uncertain.add(id)
        refuse(e, id)
        await sleep(20)
      }
    }
  }
  await Promise.all(Array.from({ length: lanes }, (_, l) => lane(l)))
  return record
}

/**
 * Milliseconds from `faultAt` to the first acknowledgement of a write sent after it (null when none was); `only`:
 * counting the writes of these jobs only (those on some shards).
 */
export function recoveredAfterMs(
  record: LoadRecord,
  faultAt: number,
  only: (id: string) => boolean = () => true,
): number | null {
  let first = Infinity
  for (const [sent, answered, id] of record.acks) if (sent > faultAt && only(id)) first = Math.min(first, answered)
  return first === Infinity ? null : first - faultAt
}

/** The longest time between two acknowledgements (of the jobs `only` takes) from `from` to `to`. */
export function longestGapMs(record: LoadRecord, from: number, to: number, only: (id: string) => boolean): number {
  const times = record.acks
    .filter(([, answered, id]) => answered >= from && answered <= to && only(id))
    .map(([, answered]) => answered)
    .sort((a, b) => a - b)
  let gap = 0
  let last = from
  for (const t of [...times, to]) {
    gap = Math.max(gap, t - last)
    last = t
  }
  return gap
}

/**
 * Where the acknowledged writes ended, read after the drain (the stage's queue received, and the jobs Redis still
 * holds on every shard): acknowledged enqueues found in neither are lost, acknowledged cancels that reached SQS were
 * resurrected, and every extra copy SQS received counts as a duplicate.
 */
export async function tallyOutcome(
  stage: { engine: Engine; sqsClient: SQSClient; queueUrl: string },
  enqueued: string[],
  cancelled: string[],
): Promise<{ lost: string[]; resurrected: string[]; duplicated: number }> {
  const received = countIds(await receiveAll(stage.sqsClient, stage.queueUrl, 8))
  const inRedis = new Set<string>()
  for (const shard of stage.engine.keys.shards) {
    // a Cluster client answers hkeys the same way; the cast only picks one of the two client types
    for (const id of await (stage.engine.redis as Redis).hkeys(shard.jobs)) inRedis.add(id)
  }
  let duplicated = 0
  for (const n of received.values()) duplicated += n - 1
  return {
    lost: enqueued.filter((id) => !received.has(id) && !inRedis.has(id)),
    resurrected: cancelled.filter((id) => received.has(id)),
    duplicated,
  }
}

/**
 * What every failover case holds (Sentinel and Cluster): a replica was promoted, writes were acknowledged before and
 * again after, everything drained; with replicated writes nothing acknowledged is lost or resurrected, and without
 * them the cut case does lose writes (so the zeros are the replication's doing, not a blind test).
 */
export function expectFailoverOutcome(o: {
  fault: { promoted: boolean }
  record: LoadRecord
  tally: { lost: string[]; resurrected: string[] }
  recoveredMs: number | null
  drained: boolean
  replicated: boolean
  cutMs: number
  /** What a failure message should add (e.g. the promotions seen), to tell a limit of the setup from a loss. */
  context?: string
}): void {
  expect(o.fault.promoted).toBe(true)
  expect(o.record.enqueued.size).toBeGreaterThan(0)
  expect(o.recoveredMs).not.toBeNull()
  expect(o.drained).toBe(true)
  if (o.replicated) {
    expect(o.tally.lost, o.context).toEqual([])
    expect(o.tally.resurrected, o.context).toEqual([])
  } else if (o.cutMs > 0) {
    expect(o.tally.lost.length + o.tally.resurrected.length).toBeGreaterThan(0)
  }
}
