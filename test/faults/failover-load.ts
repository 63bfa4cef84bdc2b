// The failover case's client side: concurrent API-style writes (enqueues, and cancels of jobs due a little later)
// that remember exactly what was acknowledged, and when writes were acknowledged again after a fault.
import type { Engine } from '../../src/store/engine'
import { between, sleep } from './harness'

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
  /** [sent, answered] local times of each acknowledged write, to find the first one sent after a fault. */
  acks: [number, number][]
}

/** `lanes` loops writing while `keepGoing()`: each turn enqueues a job due soon, and every third one cancels a later job. */
export async function writeLoad(
  engine: Engine,
  tag: string,
  lanes: number,
  keepGoing: (r: LoadRecord) => boolean,
): Promise<LoadRecord> {
  const record: LoadRecord = {
    enqueued: new Set(),
    cancelled: new Set(),
    uncertain: new Set(),
    refused: 0,
    refusedUnconfirmed: 0,
    acks: [],
  }
  const refuse = (e: unknown) => {
    record.refused++
    if ((e as { code?: string }).code === 'ReplicationUnconfirmed') record.refusedUnconfirmed++
  }
  const lane = async (l: number) => {
    for (let n = 0; keepGoing(record); n++) {
      const id = `${tag}-${l}-${n}`
      const cancelLater = n % 3 === 2
      let sent = Date.now()
      try {
        // Jobs to cancel are due later than the cancel comes, so a cancel that fails is a real failure.
        await engine.store.enqueue({
          id,
          queue: 'orders',
          payloadJson: '{"failover":true}',
          schedule: { delayMs: cancelLater ? between(1_500, 3_000) : between(0, 1_000) },
        })
        record.enqueued.add(id)
        record.acks.push([sent, Date.now()])
        if (cancelLater) {
          sent = Date.now()
          await engine.store.cancel(id)
          record.enqueued.delete(id)
          record.cancelled.add(id)
          record.acks.push([sent, Date.now()])
        }
      } catch (e) {
        if (record.enqueued.delete(id)) record.uncertain.add(id)
        refuse(e)
        await sleep(20)
      }
    }
  }
  await Promise.all(Array.from({ length: lanes }, (_, l) => lane(l)))
  return record
}

/** Milliseconds from `faultAt` to the first acknowledgement of a write sent after it (null when none was). */
export function recoveredAfterMs(record: LoadRecord, faultAt: number): number | null {
  let first = Infinity
  for (const [sent, answered] of record.acks) if (sent > faultAt) first = Math.min(first, answered)
  return first === Infinity ? null : first - faultAt
}
