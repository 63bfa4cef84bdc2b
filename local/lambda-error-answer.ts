// serverless-offline answers an HTTP API (payload 2.0) request whose invocation failed (the function's timeout, a
// thrown error, a worker that died) with 200 and its error object as the body: its payload-2.0 path wraps any result
// without a statusCode as a 200, its own error result included (serverless-offline 14.x, HttpServer.js). Under load
// a burst's DELETEs got 200 `{"errorMessage":"[504] - Lambda timeout.","errorType":"LambdaTimeoutError",...}`, which
// the api-client reads as "cancelled". Our handler always answers with a statusCode (src/api/response.ts), so that
// shape is a failed invocation, and the API gate (local/api-gate.ts) answers it as a failure.

export interface FailedInvocation {
  status: number
  body: string
}

/**
 * The answer for an upstream 200 that is serverless-offline's error object, or null for any other answer. Its status
 * is the one serverless-offline gives a failed invocation on its other event types: the `[NNN]` in the error's
 * message (504 for its timeout), else 502.
 */
export function failedInvocation(status: number, body: Buffer): FailedInvocation | null {
  if (status !== 200 || body[0] !== 0x7b /* { */) return null
  let error: unknown
  try {
    error = JSON.parse(body.toString('utf8'))
  } catch {
    return null
  }
  if (!isLambdaError(error)) return null
  const coded = /\[(5\d\d)]/.exec(error.errorMessage)
  const message = `the API function failed (${error.errorType}): ${error.errorMessage}`
  return {
    status: coded ? Number(coded[1]) : 502,
    body: JSON.stringify({ error: { code: 'InternalError', message } }),
  }
}

function isLambdaError(value: unknown): value is { errorMessage: string; errorType: string } {
  if (typeof value !== 'object' || value === null) return false
  const { errorMessage, errorType, stackTrace } = value as Record<string, unknown>
  return typeof errorMessage === 'string' && typeof errorType === 'string' && Array.isArray(stackTrace)
}
