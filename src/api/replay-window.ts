// Every answer of a job write (POST /jobs, POST /jobs/batch, PUT /jobs/{id}), errors included, tells the caller for how
// long this API answers a write sent again with its Idempotency-Key from the job's dispatch receipt once the job has
// left for SQS (DISPATCH_RECEIPT_TTL_MS): `Idempotency-Replay-Window-Ms`. Absent when receipts are off (0): a key is
// then honoured only while the job is stored, and a write whose answer was lost is not safe to send again blindly (its
// job may have been dispatched meanwhile, and would be created again). An API from before keys were honoured never
// sends it. The api-client retries a PUT that got no answer only once it has seen this header
// (src/api-client/replays.ts).
import type { MiddlewareObj, Request } from '@middy/core'
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda'
import type { ApiResponse } from './response'
import { matchRoute, type RouteName } from './router'

export const REPLAY_WINDOW_HEADER = 'idempotency-replay-window-ms'

const JOB_WRITES: ReadonlySet<RouteName> = new Set(['createJob', 'createBatch', 'putJob'])

function isJobWrite(event: APIGatewayProxyEventV2): boolean {
  try {
    return JOB_WRITES.has(matchRoute(event).name)
  } catch {
    return false
  }
}

/** Adds the header to job writes' answers, after the error mapper has made an error its answer. */
export function replayWindow(receiptTtlMs: number): MiddlewareObj<APIGatewayProxyEventV2, ApiResponse, Error, Context> {
  const add = (request: Request<APIGatewayProxyEventV2, ApiResponse, Error, Context>) => {
    if (receiptTtlMs <= 0 || !request.response || !isJobWrite(request.event)) return
    request.response.headers = { ...request.response.headers, [REPLAY_WINDOW_HEADER]: String(receiptTtlMs) }
  }
  return { name: 'sdq-replay-window', after: add, onError: add }
}
