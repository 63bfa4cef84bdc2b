// On-demand scan mode: how the enqueuer starts the scan function. An asynchronous invoke (InvocationType Event):
// Lambda queues the event and answers 202, ~tens of ms, never waiting for the scan.
import type { LambdaClient } from '@aws-sdk/client-lambda'
import type { Config } from '../../config'
import type { ScanStartEvent } from './scan-start'

/**
 * Starts the scan function once, asynchronously; rejects when Lambda refused, failed or did not answer in time. The
 * API sends an enqueue's start (ScanStartEvent); a scan run sends its workers' events (src/scan/run/fan-out.ts).
 */
export interface ScanInvoker<E extends object = ScanStartEvent> {
  invoke(event: E): Promise<void>
}

/**
 * The most one invoke may take, connection included: then it fails, and the starter decides (src/direct/
 * scan-starter.ts). Lambda's Invoke API answers an asynchronous invoke in tens of ms; a call still open after this
 * is hanging.
 */
export const INVOKE_TIMEOUT_MS = 1_500

/**
 * Lambda's Invoke API; locally, serverless-offline's Lambda endpoint (LAMBDA_ENDPOINT). The SDK client is loaded
 * when this is built, in the background: it doubles the API's module load time (measured: docs/cost.md), which
 * only on-demand mode should pay.
 */
export function lambdaInvoker<E extends object = ScanStartEvent>(
  config: Pick<Config, 'region' | 'lambdaEndpoint'>,
  functionName: string,
  timeoutMs = INVOKE_TIMEOUT_MS,
): ScanInvoker<E> {
  const sdk = import('@aws-sdk/client-lambda')
  const client: Promise<LambdaClient> = sdk.then(
    ({ LambdaClient }) =>
      new LambdaClient({
        region: config.region,
        endpoint: config.lambdaEndpoint,
        // One attempt per invoke: the starter retries itself, with its own backoff and deadline, and knows when a
        // scanner came up meanwhile (the SDK's retries would not).
        maxAttempts: 1,
        requestHandler: {
          connectionTimeout: Math.min(1_000, timeoutMs),
          requestTimeout: timeoutMs,
          // Without it a request past requestTimeout only logs a warning and keeps waiting, for ever on a silent
          // endpoint.
          throwOnRequestTimeout: true,
        },
      }),
  )
  client.catch(() => {}) // reported by the first invoke()
  // Warm-up: a DryRun invoke (Lambda checks the call and the right, runs nothing, bills nothing) as soon as the SDK
  // is loaded, at the API's cold start. The first start of a process otherwise pays the SDK's first-use code paths
  // and the connection (measured: 13-23 ms on loopback, a TLS handshake more in AWS), longer than the write's answer
  // waits for it: a Lambda environment frozen after that answer would hold the invoke unsent (bench/start-freeze.ts).
  void client
    .then((c) =>
      sdk.then(({ InvokeCommand }) =>
        c.send(new InvokeCommand({ FunctionName: functionName, InvocationType: 'DryRun' }), {
          abortSignal: AbortSignal.timeout(timeoutMs),
        }),
      ),
    )
    .catch(() => {}) // serverless-offline answers DryRun with a 400; the connection is open all the same
  return {
    async invoke(event) {
      const { InvokeCommand } = await sdk
      const payload = new TextEncoder().encode(JSON.stringify(event))
      // The abort bounds the whole call (credentials, signing, a connection that is accepted and then stalls).
      await (await client).send(
        new InvokeCommand({ FunctionName: functionName, InvocationType: 'Event', Payload: payload }),
        { abortSignal: AbortSignal.timeout(timeoutMs) },
      )
    },
  }
}
