// The shapes of the API's answers, as zod schemas for the OpenAPI document (tools/openapi/document.ts). Requests are
// described by the very schemas the API validates with; answers have TypeScript types only, so these restate them,
// and test/api/openapi-answers.ts checks every answer the API tests receive against the document built from them.
import { z } from 'zod'

const time = z.string().meta({ description: 'ISO-8601 UTC time', example: '2027-01-04T09:00:00.000Z' })

export const errorBody = z.object({
  code: z.string().meta({ example: 'ValidationError' }),
  message: z.string(),
  details: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
})

export const job = z.object({
  id: z.string(),
  queue: z.string(),
  runAt: time,
  status: z.enum(['scheduled', 'dispatching', 'dead', 'dispatched']),
  payload: z.unknown().optional(),
  groupId: z.string().optional(),
  flowKey: z.string().optional(),
  held: z
    .object({
      reason: z.enum(['paused', 'rate']),
      queue: z.string().optional(),
      flowKey: z.string().optional(),
      tag: z.string().optional(),
      dueAt: time.optional(),
      until: time.optional(),
    })
    .optional()
    .meta({
      description:
        'flow control holds this pending job (docs/flow-control.md): a pause of its queue, key or one of its tags (dueAt: its place in due order), or a rate (until: its send time)',
    }),
  tags: z.array(z.string()).optional(),
  createdAt: time.optional(),
  attempts: z.number().int().optional(),
  lastError: z.object({}).loose().optional(),
  dueAt: time.optional(),
  acceptedAt: time.optional(),
  messageId: z.string().optional(),
  delivery: z
    .object({
      outcome: z.enum(['delivered', 'retrying', 'dead-lettered']),
      status: z.number().int().optional(),
      excerpt: z.string().optional(),
      attempts: z.number().int(),
      reason: z.string().optional(),
      at: time,
    })
    .optional()
    .meta({ description: 'HTTP target queues: what the forwarder calls got (docs/http-targets.md)' }),
})

export const errorAnswer = z.object({
  error: errorBody,
  job: job.optional().meta({ description: '409 Conflict: the job holding the id' }),
})

export const batchAnswer = z.object({
  results: z.array(
    z.union([
      z.object({ id: z.string(), status: z.enum(['scheduled']) }).meta({ description: 'scheduled' }),
      z.object({ error: errorBody, job: job.optional() }).meta({ description: 'refused; 409 ones show the job' }),
    ]),
  ),
})

export const batchRequest = z.object({ jobs: z.array(z.unknown()).max(100) })

export const jobPage = z.object({
  jobs: z.array(
    z.object({
      id: z.string(),
      queue: z.string(),
      runAt: time,
      groupId: z.string().optional(),
      createdAt: time,
      payloadBytes: z.number().int(),
      status: z.enum(['scheduled', 'dispatching', 'dead']).optional().meta({ description: 'with tag= only' }),
      tags: z.array(z.string()).optional().meta({ description: 'with tag= only' }),
    }),
  ),
  cursor: z.string().nullable().meta({ description: 'pass it back for the next page; null at the end' }),
})

export const tagCancelAnswer = z.object({
  tag: z.string(),
  cancelled: z.number().int().meta({ description: 'jobs cancelled: none of them reaches SQS' }),
  inFlight: z.number().int().meta({ description: 'jobs being handed to SQS (or maybe in it): not cancelled' }),
  recurring: z.number().int().meta({
    description: 'pending occurrences of recurring schedules: left, the series goes on (delete the schedule)',
  }),
  done: z.boolean().meta({ description: 'false: the time budget ran out; call again to cancel the rest' }),
})

export const scheduleTagDeleteAnswer = z.object({
  tag: z.string(),
  deleted: z
    .number()
    .int()
    .meta({ description: 'schedules deleted: no occurrence of them is created after the answer' }),
  done: z.boolean().meta({ description: 'false: the time budget ran out; call again to delete the rest' }),
})

const counts = z.object({ pending: z.number().int(), dead: z.number().int(), dispatched: z.number().int() }).loose()

export const stats = z
  .object({
    queues: z.record(z.string(), counts),
    inflight: z.number().int(),
    dead: z.number().int(),
    nextDueAt: time.nullable(),
  })
  .loose()

export const schedule = z.object({
  id: z.string(),
  queue: z.string(),
  payload: z.unknown(),
  cron: z.string().optional(),
  everyMs: z.number().int().optional(),
  timezone: z.string(),
  startAt: time.optional(),
  endAt: time.optional(),
  paused: z.boolean(),
  groupId: z.string().optional(),
  tags: z.array(z.string()).optional(),
  nextRunAt: time.nullable(),
  lastRunAt: time.nullable(),
  runs: z.number().int(),
  createdAt: time,
})

export const schedulePage = z.object({ schedules: z.array(schedule), cursor: z.string().nullable() })

export const flowEntry = z.object({
  queue: z.string().optional().meta({ description: 'the target queue this setting is for' }),
  flowKey: z.string().optional().meta({ description: 'the flow key this setting is for' }),
  tag: z.string().optional().meta({ description: 'the tag this setting is for (pause only)' }),
  paused: z.boolean(),
  rate: z.number().optional().meta({ description: 'jobs per second' }),
  burst: z.number().int().optional().meta({ description: 'jobs that may leave at once after a quiet spell' }),
  resumed: z.number().int().optional().meta({ description: 'a resume: the held jobs it put back to leave' }),
})

export const flowSettings = z.object({ settings: z.array(flowEntry) })

export const runAnswer = z.object({
  id: z.string(),
  runAt: time.meta({ description: 'now: when the job is due' }),
  previousRunAt: time.meta({ description: 'when it was due before (equal to runAt when it was due already)' }),
})

export const runDueAnswer = z.object({
  promoted: z.number().int().meta({ description: 'jobs made due now by this call' }),
  inFlight: z.number().int().optional().meta({
    description: 'with tag only: jobs of the tag being handed to SQS (or waiting for a dispatch retry), not moved',
  }),
  cursor: z
    .string()
    .nullable()
    .meta({ description: 'where this call stopped: call again with it to go on; null when every shard was walked' }),
})
