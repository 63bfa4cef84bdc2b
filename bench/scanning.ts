// A scanner in the bench process: its parts built on a flushed Redis as the scan function builds them, and its
// teardown, in order: the run drains before the clients it uses close, and the bench's queue goes last.
import type { SQSClient } from '@aws-sdk/client-sqs'
import type { Config } from '../src/config'
import { createScanner, type CreateScannerOptions } from '../src/scan/create-scanner'
import { createSqsClient } from '../src/sqs/sqs-client'
import { createEngine, type Engine } from '../src/store/engine'
import { flush, type BenchEnv } from './env'

export interface ScanParts {
  engine: Engine
  sqs: SQSClient
  queue: { url: string; remove(): Promise<void> }
}

/** A flushed Redis, a fresh queue, and the engine and SQS client the scan function builds for it. */
export async function scanParts(
  env: BenchEnv,
  queueName: string,
  settings: Partial<Config> = {},
): Promise<ScanParts & { config: Config }> {
  await flush(env.admin)
  const queue = await env.queue(queueName)
  const config = { ...env.config(queue.url), ...settings }
  return { queue, config, engine: createEngine(config), sqs: createSqsClient(config) }
}

/**
 * Starts a scanner run until `untilMs`; `stop()` ends it and releases the engine, the SQS client and the queue (with
 * `keepParts`, only the scanner: the next run uses them again, as the scan function keeps its engine and SQS client
 * from one invocation to the next).
 */
export function startScanning(parts: ScanParts, untilMs: number, options?: CreateScannerOptions, keepParts = false) {
  const { scanner, close } = createScanner(parts.engine, parts.sqs, options)
  const run = scanner.run(untilMs)
  return {
    async stop(): Promise<void> {
      scanner.stop()
      await run
      await close()
      if (keepParts) return
      parts.sqs.destroy()
      await parts.engine.close()
      await parts.queue.remove()
    },
  }
}
