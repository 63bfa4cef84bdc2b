// What each route answers (statuses, body, query) and what each error status means, for tools/openapi/document.ts.
// The error codes and statuses are those of src/api/error-response.ts.
import type { RouteName } from '../../src/api/router'

export interface Operation {
  name: RouteName
  summary: string
  statuses: number[]
  /** Component schema of the success body. */
  answer?: string
  example?: unknown
  body?: string
  bodyExample?: unknown
  query?: object[]
  /** Takes Idempotency-Key and answers with the replay window header. */
  jobWrite?: boolean
}

export const ERRORS: Record<number, { code: string; description: string; example: string; retryAfter?: boolean }> = {
  400: {
    code: 'ValidationError',
    description: 'bad input; details name each field and rule',
    example: 'invalid request',
  },
  404: { code: 'NotFound', description: 'no such job or schedule', example: 'job "order-42" not found' },
  409: {
    code: 'Conflict',
    description:
      'the id is taken (the body shows the job holding it), the job is being sent or (run now) is dead (Conflict), or SQS may have it (JobMaybeDispatched)',
    example: 'a job with id "order-42" exists already',
  },
  413: {
    code: 'PayloadTooLarge',
    description: 'the job or the batch is too large',
    example: 'the message is too large',
  },
  415: { code: 'UnsupportedMediaType', description: 'the body is not JSON', example: 'the body must be JSON' },
  422: {
    code: 'IdempotencyKeyReused',
    description: 'the Idempotency-Key was used for another request',
    example: 'the Idempotency-Key was used for another write',
  },
  429: {
    code: 'TooManyRequests',
    description: 'too many deep pages of GET /jobs from one caller',
    example: 'too many deep pages',
    retryAfter: true,
  },
  500: { code: 'InternalError', description: 'an unexpected error; it has been logged', example: 'internal error' },
  503: {
    code: 'ServiceUnavailable',
    description: 'the job store is unavailable, or a write was not confirmed by replicas (ReplicationUnconfirmed)',
    example: 'the job store is unavailable',
    retryAfter: true,
  },
  507: { code: 'StoreFull', description: 'the job store is full', example: 'the job store is full', retryAfter: true },
}

const READ = [400, 500, 503]
const WRITE = [400, 413, 415, 500, 503, 507]
const JOB = {
  id: 'order-42:close',
  queue: 'orders',
  status: 'scheduled',
  runAt: '2027-01-04T09:00:00.000Z',
  createdAt: '2026-12-01T10:00:00.000Z',
}
const JOB_INPUT = { queue: 'orders', payload: { orderId: 42 }, delayMs: 900000 }
const SCHEDULE_INPUT = { queue: 'orders', payload: { report: 'daily' }, cron: '0 9 * * *', timezone: 'Europe/Berlin' }
const page = (description: string) => [
  {
    name: 'limit',
    in: 'query',
    required: false,
    description: 'page size, 1-100 (default 50)',
    schema: { type: 'string', pattern: '^\\d{1,3}$' },
  },
  { name: 'cursor', in: 'query', required: false, description, schema: { type: 'string' } },
]
const TAG = { name: 'tag', in: 'query', schema: { type: 'string', pattern: '^[A-Za-z0-9_.:=@/+-]{1,64}$' } }
const op = (name: RouteName, o: Omit<Operation, 'name'>): Operation => ({ name, ...o })

export const OPERATIONS: Record<RouteName, Operation> = {
  createJob: op('createJob', {
    summary: 'Schedule a job (200: onConflict sent the write to the job stored under its id)',
    statuses: [200, 201, ...WRITE, 409, 422].sort(),
    answer: 'Job',
    example: JOB,
    body: 'JobInput',
    bodyExample: JOB_INPUT,
    jobWrite: true,
  }),
  createBatch: op('createBatch', {
    summary: 'Schedule up to 100 jobs; each answered on its own',
    statuses: [200, ...WRITE, 422].sort(),
    answer: 'BatchAnswer',
    body: 'BatchRequest',
    bodyExample: { jobs: [JOB_INPUT] },
    jobWrite: true,
  }),
  listJobs: op('listJobs', {
    summary: 'List pending jobs, earliest first',
    statuses: [200, ...READ, 429].sort(),
    answer: 'JobPage',
    query: [
      { name: 'queue', in: 'query', required: false, description: 'only this queue', schema: { type: 'string' } },
      { ...TAG, required: false, description: 'only jobs with this tag, in id order, with status and tags' },
      ...page('from the previous page'),
    ],
  }),
  getJob: op('getJob', { summary: 'Look up a job', statuses: [200, ...READ, 404].sort(), answer: 'Job', example: JOB }),
  putJob: op('putJob', {
    summary: 'Create or replace a job under its id',
    statuses: [200, 201, ...WRITE, 409, 422].sort(),
    answer: 'Job',
    example: JOB,
    body: 'JobInput',
    bodyExample: JOB_INPUT,
    jobWrite: true,
  }),
  deleteJob: op('deleteJob', { summary: 'Cancel a job', statuses: [204, ...READ, 404, 409].sort() }),
  cancelByTag: op('cancelByTag', {
    summary: 'Cancel every job with a tag; done false: call again for the rest',
    statuses: [200, ...READ].sort(),
    answer: 'TagCancelAnswer',
    example: { tag: 'order:42', cancelled: 3, inFlight: 0, recurring: 0, done: true },
    query: [{ ...TAG, required: true, description: 'the tag' }],
  }),
  runJob: op('runJob', {
    summary: 'Run a pending job now (the same job, due now); 409 while it is being sent, or when it is dead',
    statuses: [200, ...READ, 404, 409].sort(),
    answer: 'RunAnswer',
    example: { id: 'order-42:close', runAt: '2027-01-04T09:00:00.000Z', previousRunAt: '2027-01-05T09:00:00.000Z' },
  }),
  runDueJobs: op('runDueJobs', {
    summary:
      'Run now the pending jobs due before a time (of one queue, or all) or with a tag (due before a time, or all), in bounded steps: call again with the cursor until it is null',
    statuses: [200, ...READ, 415].sort(),
    answer: 'RunDueAnswer',
    example: { promoted: 1200, cursor: null },
    body: 'RunDueInput',
    bodyExample: { before: '2027-01-04T12:00:00Z', queue: 'orders' },
  }),
  stats: op('stats', { summary: 'Counts per queue', statuses: [200, 500, 503], answer: 'Stats' }),
  listSchedules: op('listSchedules', {
    summary: 'List recurring schedules',
    statuses: [200, ...READ],
    answer: 'SchedulePage',
    query: [
      ...page('from the previous page'),
      { ...TAG, required: false, description: 'only the schedules with this tag, in id order' },
    ],
  }),
  getSchedule: op('getSchedule', {
    summary: 'Look up a schedule',
    statuses: [200, ...READ, 404].sort(),
    answer: 'Schedule',
  }),
  putSchedule: op('putSchedule', {
    summary: 'Create or replace a recurring schedule',
    statuses: [200, 201, ...WRITE].sort(),
    answer: 'Schedule',
    body: 'ScheduleInput',
    bodyExample: SCHEDULE_INPUT,
  }),
  deleteSchedule: op('deleteSchedule', { summary: 'Delete a schedule', statuses: [204, ...READ, 404].sort() }),
  deleteSchedulesByTag: op('deleteSchedulesByTag', {
    summary: 'Delete every recurring schedule with a tag; done false: call again for the rest',
    statuses: [200, ...READ].sort(),
    answer: 'ScheduleTagDeleteAnswer',
    example: { tag: 'order:42', deleted: 2, done: true },
    query: [{ ...TAG, required: true, description: 'the tag' }],
  }),
  pauseSchedule: op('pauseSchedule', {
    summary: 'Pause a schedule',
    // 409: the schedule kept changing under the read-then-write (ScheduleChangedError after a few tries)
    statuses: [200, ...READ, 404, 409, 507].sort(),
    answer: 'Schedule',
  }),
  resumeSchedule: op('resumeSchedule', {
    summary: 'Resume a schedule',
    // 409: the schedule kept changing under the read-then-write (ScheduleChangedError after a few tries)
    statuses: [200, ...READ, 404, 409, 507].sort(),
    answer: 'Schedule',
  }),
  listFlow: op('listFlow', {
    summary: 'Flow control: the queues, flow keys and tags paused or given a rate',
    statuses: [200, 500, 503],
    answer: 'FlowSettings',
  }),
  putQueueFlow: op('putQueueFlow', {
    summary: 'Pause, resume or limit the rate of a target queue',
    statuses: [200, ...WRITE].sort(),
    answer: 'FlowEntry',
    example: { queue: 'orders', paused: true },
    body: 'FlowSettingInput',
    bodyExample: { paused: true },
  }),
  putKeyFlow: op('putKeyFlow', {
    summary: 'Pause, resume or limit the rate of a flow key',
    statuses: [200, ...WRITE].sort(),
    answer: 'FlowEntry',
    example: { flowKey: 'mail-provider', paused: false, rate: 50, burst: 5 },
    body: 'FlowSettingInput',
    bodyExample: { rate: 50, burst: 5 },
  }),
  putTagFlow: op('putTagFlow', {
    summary: 'Pause or resume the jobs with a tag (no rate)',
    statuses: [200, ...WRITE].sort(),
    answer: 'FlowEntry',
    example: { tag: 'order:42', paused: true },
    body: 'FlowSettingInput',
    bodyExample: { paused: true },
  }),
}
