// lua/schedule-put.lua's whole contract on the TypeScript side: the call (KEYS and ARGV by name, in the header's
// order), its success codes (SchedulePutStatus) and the reply read into named fields (decodeSchedulePut).
import { ScriptErrorCode } from '../script-errors'
import type { JobLocation } from '../keys'
import type { ScriptCall } from '../scripts'
import { scheduleKeys } from './schedule-keys'

export interface SchedulePutParams {
  id: string
  specJson: string
  payloadJson: string
  queue: string
  groupId: string
  /** First occurrence (epoch ms), and the one after it; null for none. */
  first: number | null
  second: number | null
  /** Write only over this version (pause / resume); undefined for any. */
  expectedVersion?: number
  /** The schedule's tags: every occurrence carries them. */
  tags?: readonly string[]
}

/** lua/schedule-put.lua's success codes, the first element of its reply (0 or a negative one is a ScriptErrorCode). */
export enum SchedulePutStatus {
  Created = 1,
  Replaced = 2,
}

/**
 * lua/schedule-put.lua: { SchedulePutStatus, version, pendingMs | -1, runs, lastRunMs | -1, createdAtMs }, or { 0 } /
 * { -4 }. Read it with decodeSchedulePut.
 */
export type SchedulePutReply = number[]

/** A schedule-put reply, read: the schedule as written, or why an expected version refused it. */
export type DecodedSchedulePut =
  | {
      status: SchedulePutStatus
      version: number
      /** The pending occurrence's time, null for none. */
      pendingMs: number | null
      runs: number
      lastRunMs: number | null
      createdAtMs: number
    }
  | { status: 'refused'; code: ScriptErrorCode.ScheduleNotFound | ScriptErrorCode.ScheduleChanged }

export function schedulePutCall(at: JobLocation, p: SchedulePutParams): ScriptCall<SchedulePutReply> {
  if (p.queue.includes('\n') || p.groupId.includes('\n')) throw new Error('queue and groupId cannot hold "\\n"')
  return {
    script: 'sdqSchedulePut',
    keys: scheduleKeys(at),
    args: {
      id: p.id,
      bucketNo: at.bucketNo,
      spec: p.specJson,
      payload: p.payloadJson,
      queue: p.queue,
      groupId: p.groupId,
      first: p.first ?? -1,
      second: p.second ?? -1,
      wake: at.shard.wakeChannel,
      expected: p.expectedVersion ?? '',
      tags: (p.tags ?? []).join('\n'),
    },
  }
}

export function decodeSchedulePut(reply: SchedulePutReply): DecodedSchedulePut {
  const [code, version, pending, runs, lastRun, createdAt] = reply.map(Number) as number[]
  if (code === ScriptErrorCode.ScheduleNotFound || code === ScriptErrorCode.ScheduleChanged) {
    return { status: 'refused', code }
  }
  return {
    status: code as SchedulePutStatus,
    version: version!,
    pendingMs: pending! < 0 ? null : pending!,
    runs: runs!,
    lastRunMs: lastRun! < 0 ? null : lastRun!,
    createdAtMs: createdAt!,
  }
}
