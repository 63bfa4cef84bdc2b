// The Scheduler-compatible front door as a Lambda handler (API Gateway HTTP API or Function URL, payload v2): checks
// the signature's scope, reads the restJson1 request, runs the operation, answers in restJson1. It translates and
// validates; what it keeps lives in the engine's Redis (definition-store.ts) and the engine's jobs.
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda'
import { DelayQueue } from '../direct/delay-queue'
import type { Engine } from '../store/engine'
import { defaultLog, type Log } from '../logger'
import { DefinitionStore } from './definition-store'
import { type HttpAnswer, asSchedulerError, errorAnswer } from './error-answer'
import { SchedulerInternalError, SchedulerValidationError } from './errors'
import { ScheduleGroups } from './groups'
import { Schedules } from './schedules'
import { type Parts, runOperation } from './operations'
import { checkSignature, type SignedBy } from './signature'

export interface SchedulerHandlerOptions {
  /** A path prefix the API may sit under (the HTTP API's "/scheduler"), taken off when present. Default: none. */
  basePath?: string
  /** The SigV4 service names a request may be signed for (default: "scheduler"). */
  acceptedServices?: readonly string[]
  /**
   * Deployed: a request whose event says IAM authorization verified its caller (`requestContext.authorizer.iam`, set
   * by a Function URL or an HTTP API route with AWS_IAM) is taken as signed, in the function's region, whether or not
   * the front door passed the Authorization header on. Never locally: there nothing verified it.
   */
  trustFrontDoorIam?: boolean
  /** The account in ARNs when the request does not tell (locally). */
  account?: string
  logger?: Log
}

export type SchedulerHandler = (event: APIGatewayProxyEventV2, context?: Context) => Promise<HttpAnswer>

/** The handler over an engine (its Redis keeps the definitions; its jobs and schedules fire them). */
export function createSchedulerHandler(engine: Engine, options: SchedulerHandlerOptions = {}): SchedulerHandler {
  const store = new DefinitionStore(engine.redis, engine.keys, engine.replication)
  const schedules = new Schedules(new DelayQueue(engine, {}, { schedulerFrontDoor: true }), store)
  const parts: Parts = { store, schedules, groups: new ScheduleGroups(store, schedules) }
  const log = options.logger ?? defaultLog()
  const base = (options.basePath ?? '').replace(/\/$/, '')
  return async (event) => {
    try {
      const headers = lowerCased(event.headers)
      const signed = verifiedByFrontDoor(event, options) ?? checkSignature(headers, options.acceptedServices)
      const path = base && event.rawPath.startsWith(`${base}/`) ? event.rawPath.slice(base.length) : event.rawPath
      const output = await runOperation(
        {
          method: event.requestContext.http.method.toUpperCase(),
          segments: path.split('/').filter(Boolean).map(decodeURIComponent),
          query: new URLSearchParams(event.rawQueryString ?? ''),
          body: readBody(event),
          scope: {
            region: signed.region,
            account: event.requestContext.accountId || options.account || '000000000000',
          },
        },
        parts,
      )
      if (!output)
        throw new SchedulerValidationError(`No operation answers ${event.requestContext.http.method} ${path}.`)
      return { statusCode: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(await output) }
    } catch (e) {
      const error = asSchedulerError(e)
      if (error instanceof SchedulerInternalError) log.error('scheduler API request failed', { error: String(e) })
      return errorAnswer(error)
    }
  }
}

function verifiedByFrontDoor(event: APIGatewayProxyEventV2, options: SchedulerHandlerOptions): SignedBy | undefined {
  if (!options.trustFrontDoorIam) return undefined
  const authorizer = (event.requestContext as { authorizer?: { iam?: unknown } }).authorizer
  if (!authorizer?.iam) return undefined
  return { region: process.env.AWS_REGION ?? 'us-east-1', service: 'iam' }
}

function lowerCased(headers: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]))
}

function readBody(event: APIGatewayProxyEventV2): Record<string, unknown> {
  if (!event.body) return {}
  const text = event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString() : event.body
  try {
    const body = JSON.parse(text) as unknown
    if (body && typeof body === 'object' && !Array.isArray(body)) return body as Record<string, unknown>
  } catch {}
  throw new SchedulerValidationError('The request body is not a JSON object.')
}
