// A direct invocation through serverless-offline's Lambda endpoint (the Lambda Invoke API): how sdq-poll hands a
// batch to a function served by another service's serverless-offline, and how the local stack plays EventBridge.

/** Thrown when the handler failed (serverless-offline answers 200 with X-Amz-Function-Error, like Lambda). */
export class FunctionInvokeError extends Error {}

/** A synchronous (RequestResponse) invocation: resolves with the handler's return value. */
export async function invokeFunction(
  lambdaUrl: string,
  functionName: string,
  event: unknown,
  signal?: AbortSignal,
): Promise<unknown> {
  const res = await fetch(`${lambdaUrl}/2015-03-31/functions/${encodeURIComponent(functionName)}/invocations`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-amz-invocation-type': 'RequestResponse' },
    body: JSON.stringify(event),
    signal,
  })
  const text = await res.text()
  if (res.status !== 200 || res.headers.get('x-amz-function-error')) {
    throw new FunctionInvokeError(`${functionName} failed (${res.status}): ${text.slice(0, 2000)}`)
  }
  return text ? JSON.parse(text) : undefined
}
