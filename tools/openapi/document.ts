// The OpenAPI 3.1 document of the HTTP API (docs/openapi.yaml), built from the zod schemas the API validates requests
// with (src/direct/validation.ts, schedule-validation.ts) and the answer shapes of tools/openapi/answers.ts. Paths
// come from the router's own table, so a route added there without a description here fails the build.
import { z } from 'zod'
import { scheduleInputSchema } from '../../src/direct/schedule-validation'
import { jobInputSchema } from '../../src/direct/validation'
import { flowSettingInputSchema } from '../../src/flow/flow-names'
import { runDueInputSchema } from '../../src/direct/run-now'
import { httpRequestSchema } from '../../src/http-target/request-spec'
import { ROUTES, type RouteName } from '../../src/api/router'
import { JOB_ID_PATTERN, JOB_ID_RULE, SCHEDULE_ID_PATTERN, SCHEDULE_ID_RULE } from '../../src/contract/ids'
import * as answers from './answers'
import { ERRORS, OPERATIONS, type Operation } from './operations'

const registry = z.registry<{ id: string }>()
registry.add(jobInputSchema, { id: 'JobInput' })
registry.add(scheduleInputSchema, { id: 'ScheduleInput' })
registry.add(flowSettingInputSchema, { id: 'FlowSettingInput' })
registry.add(runDueInputSchema, { id: 'RunDueInput' })
registry.add(httpRequestSchema, { id: 'HttpRequest' })
for (const [name, schema] of Object.entries(answers))
  registry.add(schema, { id: name[0]!.toUpperCase() + name.slice(1) })

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })
const header = (description: string, schema: object = { type: 'string' }) => ({ description, schema })

export const HEADERS = {
  Location: header('where the job or schedule can be looked up', { type: 'string', example: '/jobs/order-42:close' }),
  IdempotentReplayed: header('"true" when this answers again a write an earlier attempt with this key applied', {
    type: 'string',
    enum: ['true'],
  }),
  ReplayWindow: header(
    'how long (ms) a job write sent again with its Idempotency-Key is answered from the job dispatch receipt',
    { type: 'string', pattern: '^\\d+$' },
  ),
  RetryAfter: header('seconds to wait before trying again', { type: 'string', pattern: '^\\d+$' }),
}

function response(op: Operation, status: number): object {
  if (status === 204) return { description: 'done; no body' }
  const error = ERRORS[status]
  const headers: Record<string, object> = {}
  if (error?.retryAfter) headers['retry-after'] = { ...HEADERS.RetryAfter, required: true }
  if (status === 201) headers.location = { ...HEADERS.Location, required: true }
  if (op.jobWrite) headers['idempotency-replay-window-ms'] = HEADERS.ReplayWindow
  if (op.jobWrite && status < 300 && op.name !== 'createBatch')
    headers['idempotent-replayed'] = HEADERS.IdempotentReplayed
  const body = error
    ? { schema: ref('ErrorAnswer'), example: { error: { code: error.code, message: error.example } } }
    : { schema: ref(op.answer!), ...(op.example ? { example: op.example } : {}) }
  return {
    description: error?.description ?? 'success',
    ...(Object.keys(headers).length ? { headers } : {}),
    content: { 'application/json': body },
  }
}

function operation(name: RouteName, path: string): object {
  const op = OPERATIONS[name]
  const parameters: object[] = []
  if (path.includes('{id}')) parameters.push(pathId(path))
  parameters.push(...(op.query ?? []))
  if (op.jobWrite) {
    parameters.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description: 'one per logical write, the same on every attempt: a write sent again is answered as the first was',
      schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{8,64}$', example: 'order-42-close-1' },
    })
  }
  return {
    operationId: name,
    summary: op.summary,
    ...(parameters.length ? { parameters } : {}),
    ...(op.body
      ? {
          requestBody: {
            required: true,
            content: {
              'application/json': { schema: ref(op.body), ...(op.bodyExample ? { example: op.bodyExample } : {}) },
            },
          },
        }
      : {}),
    responses: Object.fromEntries(op.statuses.map((s) => [String(s), response(op, s)])),
  }
}

/** A refusal's rule as a description: "must be 1-128 ..." reads "1-128 ...". */
const ruleText = (rule: string) => rule.replace(/^must be /, '')

/** The {id} of a path: a job id, a schedule id, a target queue, a flow key or a tag (percent-encoded). */
function pathId(path: string): object {
  const [description, pattern] = path.startsWith('/jobs')
    ? [`job id: ${ruleText(JOB_ID_RULE)}`, JOB_ID_PATTERN.source]
    : path.startsWith('/schedules')
      ? [`schedule id: ${ruleText(SCHEDULE_ID_RULE)}`, SCHEDULE_ID_PATTERN.source]
      : path.startsWith('/flow/queues')
        ? ['a target queue configured in QUEUES', '^.+$']
        : path.startsWith('/flow/tags')
          ? ['tag: 1-64 of [A-Za-z0-9_.:=@/+-], percent-encoded', '^.+$']
          : ['flow key: 1-128 printable ASCII characters without spaces, percent-encoded', '^.+$']
  return { name: 'id', in: 'path', required: true, description, schema: { type: 'string', pattern } }
}

export function openApiDocument(): Record<string, unknown> {
  const paths: Record<string, Record<string, object>> = {}
  for (const { key, name } of ROUTES) {
    const [method, path] = key.split(' ') as [string, string]
    paths[path] = { ...paths[path], [method.toLowerCase()]: operation(name, path) }
  }
  const { schemas } = z.toJSONSchema(registry, {
    target: 'draft-2020-12',
    io: 'input',
    uri: (id) => `#/components/schemas/${id}`,
  }) as { schemas: Record<string, Record<string, unknown>> }
  for (const schema of Object.values(schemas)) {
    delete schema.$schema
    delete schema.$id
  }
  delete schemas.__shared
  return {
    openapi: '3.1.0',
    info: {
      title: 'serverless-delay-queue HTTP API',
      version: '0.1.0',
      description: 'Generated by `npm run openapi` from the zod schemas the API validates with; see docs/api.md.',
    },
    paths,
    // Sorted: the order the registry hands them out in depends on how the module was loaded (bundled or not).
    components: { schemas: Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b))) },
  }
}
