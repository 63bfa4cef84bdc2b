// Which route a request is for: API Gateway's routeKey ("POST /jobs") when it names one of ours, else the method
// and path (a catch-all route, or a stage name in the path).
import type { APIGatewayProxyEventV2 } from 'aws-lambda'
import { ValidationError } from '../errors'
import { RouteNotFoundError } from './errors'

export type RouteName =
  | 'createJob'
  | 'createBatch'
  | 'listJobs'
  | 'getJob'
  | 'putJob'
  | 'deleteJob'
  | 'cancelByTag'
  | 'stats'
  | 'listSchedules'
  | 'getSchedule'
  | 'putSchedule'
  | 'deleteSchedule'
  | 'deleteSchedulesByTag'
  | 'pauseSchedule'
  | 'resumeSchedule'
  | 'listFlow'
  | 'putQueueFlow'
  | 'putKeyFlow'
  | 'putTagFlow'
  | 'runJob'
  | 'runDueJobs'

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE'

// Each path with the route of each of its methods. Literal paths before parameters: POST /jobs/batch is the batch
// route, not a job called "batch".
const PATHS: Record<string, Partial<Record<Method, RouteName>>> = {
  '/jobs': { GET: 'listJobs', POST: 'createJob', DELETE: 'cancelByTag' },
  '/jobs/batch': { POST: 'createBatch' },
  '/jobs/run-due': { POST: 'runDueJobs' },
  '/stats': { GET: 'stats' },
  '/jobs/{id}': { GET: 'getJob', PUT: 'putJob', DELETE: 'deleteJob' },
  '/jobs/{id}/run': { POST: 'runJob' },
  '/schedules': { GET: 'listSchedules', DELETE: 'deleteSchedulesByTag' },
  '/schedules/{id}': { GET: 'getSchedule', PUT: 'putSchedule', DELETE: 'deleteSchedule' },
  '/schedules/{id}/pause': { POST: 'pauseSchedule' },
  '/schedules/{id}/resume': { POST: 'resumeSchedule' },
  '/flow': { GET: 'listFlow' },
  '/flow/queues/{id}': { PUT: 'putQueueFlow' },
  '/flow/keys/{id}': { PUT: 'putKeyFlow' },
  '/flow/tags/{id}': { PUT: 'putTagFlow' },
}

/** Every route as API Gateway keys it ("GET /jobs/{id}"), in matching order. */
export const ROUTES: readonly { key: string; name: RouteName }[] = Object.entries(PATHS).flatMap(([path, methods]) =>
  Object.entries(methods).map(([method, name]) => ({ key: `${method} ${path}`, name })),
)

export interface MatchedRoute {
  name: RouteName
  /** The job or schedule id from the path, as given (validated by the route). */
  id?: string
}

export function matchRoute(event: APIGatewayProxyEventV2): MatchedRoute {
  const byKey = ROUTES.find((r) => r.key === event.routeKey)
  if (byKey) {
    if (!byKey.key.includes('{id}')) return { name: byKey.name }
    const id = event.pathParameters?.id
    // "%" is never part of an id: a still-encoded parameter ("order-42%3Aclose") is decoded here.
    const pattern = byKey.key.split(' ')[1]!
    return {
      name: byKey.name,
      id: id === undefined ? idFromPath(event, pattern) : id.includes('%') ? decodeSegment(id) : id,
    }
  }
  const method = (event.requestContext?.http?.method ?? '').toUpperCase()
  const path = requestPath(event)
  for (const route of ROUTES) {
    const [routeMethod, pattern] = route.key.split(' ') as [string, string]
    if (routeMethod !== method) continue
    const id = matchPath(pattern, path)
    if (id === undefined) continue
    return id === '' ? { name: route.name } : { name: route.name, id }
  }
  throw new RouteNotFoundError(method || '?', path)
}

/** The path without a stage prefix and trailing slash: "/prod/jobs/" -> "/jobs". */
function requestPath(event: APIGatewayProxyEventV2): string {
  let path = event.rawPath ?? event.requestContext?.http?.path ?? '/'
  const stage = event.requestContext?.stage
  if (stage && stage !== '$default' && path.startsWith(`/${stage}/`)) path = path.slice(stage.length + 1)
  return path.length > 1 ? path.replace(/\/+$/, '') : path
}

function idFromPath(event: APIGatewayProxyEventV2, pattern: string): string | undefined {
  const id = matchPath(pattern, requestPath(event))
  return id || undefined
}

/** undefined: no match; '': match without a parameter; else the decoded {id}. */
function matchPath(pattern: string, path: string): string | undefined {
  const want = pattern.split('/')
  const got = path.split('/')
  if (want.length !== got.length) return undefined
  let id = ''
  for (let i = 0; i < want.length; i++) {
    if (want[i] === '{id}') {
      if (!got[i]) return undefined
      id = decodeSegment(got[i]!)
    } else if (want[i] !== got[i]) return undefined
  }
  return id
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment)
  } catch {
    throw new ValidationError([{ path: 'id', message: 'is not a valid URL-encoded path segment' }])
  }
}
