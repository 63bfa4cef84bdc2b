// On-demand scan mode, the enqueuer's side: when the enqueue script says a job is due before the next scheduled scan
// and no scanner runs, start the scan function with an asynchronous invoke (InvocationType Event: the caller waits
// for Lambda to queue the event, ~tens of ms, never for the scan). A failed start never fails the enqueue: the job is
// stored, and the next scheduled scan takes it.
import type { LambdaClient } from '@aws-sdk/client-lambda'
import type { Config } from '../config'
import { defaultLog, type Log } from '../logger'
import type { EnqueueResult, JobStore } from '../store/job-store'
import { releaseScanStart, takeScanStart, takeScanStartUnlessAlive } from '../store/scan-start'

/** Starts the scan function once, asynchronously. */
export interface ScanInvoker {
  invoke(): Promise<void>
}

/** The event a started scan function receives (a scheduled one gets EventBridge's). */
export const SCAN_START_EVENT = { source: 'sdq.enqueue', 'detail-type': 'Scan Start' } as const

/**
 * Lambda's Invoke API; locally, serverless-offline's Lambda endpoint (LAMBDA_ENDPOINT). The SDK client is loaded
 * when this is built, in the background: it doubles the API's module load time (measured: docs/cost.md), which
 * only on-demand mode should pay.
 */
export function lambdaInvoker(config: Pick<Config, 'region' | 'lambdaEndpoint'>, functionName: string): ScanInvoker {
  const sdk = import('@aws-sdk/client-lambda')
  const client: Promise<LambdaClient> = sdk.then(
    ({ LambdaClient }) =>
      new LambdaClient({
        region: config.region,
        endpoint: config.lambdaEndpoint,
        // The API answers within its own timeout even when Lambda is slow: one retry, then give up (the tick remains).
        maxAttempts: 2,
        requestHandler: { connectionTimeout: 1_000, requestTimeout: 3_000 },
      }),
  )
  client.catch(() => {}) // reported by the first invoke()
  const payload = new TextEncoder().encode(JSON.stringify(SCAN_START_EVENT))
  return {
    async invoke() {
      const { InvokeCommand } = await sdk
      await (await client).send(
        new InvokeCommand({ FunctionName: functionName, InvocationType: 'Event', Payload: payload }),
      )
    },
  }
}

export class ScanStarter {
  constructor(
    private readonly store: JobStore,
    private readonly invoker: ScanInvoker,
    /** ON_DEMAND_HORIZON_MS: a job due sooner than this needs a running scanner. */
    private readonly horizonMs: number,
    private readonly logger: Log = defaultLog(),
  ) {}

  /** Starts a scanner if one of these enqueues asked for it (at most one start per call). */
  async afterEnqueue(results: readonly (EnqueueResult | unknown)[]): Promise<void> {
    const asked = results.find((r): r is EnqueueResult => (r as EnqueueResult | undefined)?.startScanner === true)
    if (!asked) return
    const { redis, keys } = this.store
    const shard = keys.locate(asked.id).shard.shard
    let taken = false
    try {
      taken = await takeScanStart(redis, keys, shard)
      if (taken) await this.invoker.invoke()
    } catch (error) {
      if (!taken) return this.logger.warn('scan start guard failed', { jobId: asked.id, error: String(error) })
      this.logger.warn('scan start failed; the next scheduled scan takes the job', {
        jobId: asked.id,
        error: String(error),
      })
      await releaseScanStart(redis, keys, shard).catch(() => {})
    }
  }

  /** After a schedule was created, replaced or resumed: starts a scanner if its next occurrence is due soon. */
  async afterSchedule(id: string, nextRunMs: number | null): Promise<void> {
    if (nextRunMs === null || nextRunMs >= Date.now() + this.horizonMs) return
    const { redis, keys } = this.store
    let taken = false
    try {
      taken = await takeScanStartUnlessAlive(redis, keys)
      if (taken) await this.invoker.invoke()
    } catch (error) {
      this.logger.warn('scan start failed; the next scheduled scan takes the occurrence', {
        scheduleId: id,
        error: String(error),
      })
      if (taken) await releaseScanStart(redis, keys, 0).catch(() => {})
    }
  }
}
