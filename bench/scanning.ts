// A scanner running in the bench process, wired as the scan function wires it, and its teardown: the run drains
// before the clients it uses close, and the bench's queue goes last.
import type { SQSClient } from '@aws-sdk/client-sqs'
import { createScanner, type CreateScannerOptions } from '../src/scan/engine'
import type { Engine } from '../src/store/engine'

export interface ScanParts {
  engine: Engine
  sqs: SQSClient
  queue: { remove(): Promise<void> }
}

/** Starts a scanner run until `untilMs`; `stop()` ends it and releases the engine, the SQS client and the queue. */
export function startScanning(parts: ScanParts, untilMs: number, options?: CreateScannerOptions) {
  const { scanner, close } = createScanner(parts.engine, parts.sqs, options)
  const run = scanner.run(untilMs)
  return {
    async stop(): Promise<void> {
      scanner.stop()
      await run
      await close()
      parts.sqs.destroy()
      await parts.engine.close()
      await parts.queue.remove()
    },
  }
}
