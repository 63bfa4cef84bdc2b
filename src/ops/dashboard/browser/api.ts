// The dashboard's JSON API, as the page calls it (src/ops/dashboard/server.ts). This file runs in the browser and must
// not pull server code into the bundle: its types come from files that hold only types and import nothing: the
// contract (src/contract/: the job view, the pending page, a dispatch error), ScanWindow, and the overview's rows.
import type { DispatchError, JobView } from '../../../contract/job'
import type { PendingJob } from '../../../contract/page'
import type { ScheduleListPage, ScheduleView } from '../../../contract/schedule'
import type { TaggedJob } from '../../../contract/tag'
import type { ScanWindow } from '../../../scan/observe/scan-window'
import type { DueTimeline, QueueRow, ScheduleRow } from '../overview-rows'

export type { JobView, ScheduleView }

export type { DueTimeline, QueueRow, ScanWindow, ScheduleRow }

export interface DeadJob {
  id: string
  queue: string
  /** The payload's JSON text, cut after its first 256 bytes ("…" then). */
  payloadPreview: string
  payloadBytes: number
  diedAt: string
  lastError?: DispatchError
}

export interface Overview {
  at: string
  queues: Record<string, QueueRow>
  timeline: DueTimeline
  windows: ScanWindow[]
  dead: DeadJob[]
  /** Recurring schedules, the first 50 by id: the page shows them when there are some. */
  schedules?: ScheduleRow[]
}

export interface DlqView {
  queue: string
  /** Messages in the DLQ, those being received (inFlight) included. */
  depth: number
  inFlight: number
  oldestSentAt: string | null
  messages: { messageId: string; jobId?: string; receives: number; sentAt: string; bodyPreview: string }[]
  error?: string
}

export type DlqReport = { available: false; reason: string } | { available: true; dlqs: DlqView[] }

export interface PendingPage {
  /** Filtered by a tag: each row has the job's status and tags too. */
  jobs: (PendingJob & Partial<Pick<TaggedJob, 'status' | 'tags'>>)[]
  cursor: string | null
}

export interface TagCancelAnswer {
  tag: string
  cancelled: number
  inFlight: number
  /** Pending occurrences of recurring schedules: left, their series goes on. */
  recurring?: number
}

export class ApiError extends Error {}

async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(path, {
    method,
    headers: method === 'GET' ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  if (res.status === 204) return undefined as T
  const data = (await res.json().catch(() => ({}))) as { error?: { message?: string } }
  if (!res.ok) throw new ApiError(data?.error?.message ?? `HTTP ${res.status}`)
  return data as T
}

const job = (id: string) => `/api/jobs/${encodeURIComponent(id)}`

export const api = {
  overview: () => call<Overview>('GET', '/api/overview'),
  getJob: (id: string) => call<JobView>('GET', job(id)),
  pending: (queue: string, cursor: string, limit: number, tag = '') =>
    call<PendingPage>(
      'GET',
      `/api/pending?${new URLSearchParams({ queue, cursor, limit: String(limit), ...(tag ? { tag } : {}) })}`,
    ),
  tagCount: (tag: string) =>
    call<{ jobs: number; schedules: number }>('GET', `/api/tags/count?${new URLSearchParams({ tag })}`),
  cancelTag: (tag: string) => call<TagCancelAnswer>('DELETE', `/api/pending?${new URLSearchParams({ tag })}`),
  taggedSchedules: (tag: string) => call<ScheduleListPage>('GET', `/api/schedules?${new URLSearchParams({ tag })}`),
  deleteTaggedSchedules: (tag: string) =>
    call<{ tag: string; deleted: number; done: boolean }>('DELETE', `/api/schedules?${new URLSearchParams({ tag })}`),
  cancel: (id: string) => call<void>('DELETE', job(id)),
  runNow: (id: string) => call<{ id: string; runAt: string; previousRunAt: string }>('POST', `${job(id)}/run`, {}),
  /** The first step sends `withinMs` (counted on Redis's clock), the next ones the `before` it answered. */
  runDue: (when: { withinMs: number } | { before: number }, queue: string, cursor: string | null) =>
    call<{ promoted: number; cursor: string | null; before: number }>('POST', '/api/run-due', {
      ...when,
      ...(queue ? { queue } : {}),
      ...(cursor ? { cursor } : {}),
    }),
  runTag: (tag: string, cursor: string | null) =>
    call<{ promoted: number; inFlight?: number; cursor: string | null }>('POST', '/api/run-due', {
      tag,
      ...(cursor ? { cursor } : {}),
    }),
  reschedule: (id: string, delayMs: number) => call<JobView>('POST', `${job(id)}/reschedule`, { delayMs }),
  retryDead: (id: string) =>
    call<{ id: string; runAt: string }>('POST', `/api/dead/${encodeURIComponent(id)}/retry`, {}),
  pauseSchedule: (id: string, paused: boolean) =>
    call<unknown>('POST', `/api/schedules/${encodeURIComponent(id)}/${paused ? 'pause' : 'resume'}`, {}),
  deleteSchedule: (id: string) => call<void>('DELETE', `/api/schedules/${encodeURIComponent(id)}`),
  dlqs: () => call<DlqReport>('GET', '/api/dlqs'),
  peekDlqs: () => call<DlqReport>('POST', '/api/dlqs/peek', {}),
  redriveDlq: (queue: string) =>
    call<{ moved: number; skipped: { jobId?: string; reason: string }[] }>(
      'POST',
      `/api/dlqs/${encodeURIComponent(queue)}/redrive`,
      {},
    ),
  deleteDead: (id: string) => call<void>('DELETE', `/api/dead/${encodeURIComponent(id)}`),
}
