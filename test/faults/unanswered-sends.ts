// Counts, per HTTP attempt of a SendMessageBatch, the entries that SQS may have taken without saying so: the attempt
// failed in a way that does not rule out arrival (a timeout, a reset or cut answer, a server error, an abort), or it
// answered without naming some entries. Each such entry can be at most one copy in SQS beyond the one its job's
// eventual send makes, so their sum bounds the duplicates a slow or flaky SQS can cause (test/chaos/check-duplicates.ts).
//
// Counted per attempt, not per job released as maybe sent (ScanObserver.maybeSent): the SDK retries a timed-out
// attempt itself (SQS_SDK_ATTEMPTS), so a call can end accepted after an attempt that SQS also carried out, and a call
// that ends maybe sent can have left a copy per attempt.
import type { SQSClient } from '@aws-sdk/client-sqs'
import { attemptMayHaveArrived } from '../../src/sqs/arrival'
import { batchEntries } from '../../src/sqs/prebuilt-body'

/** Installs the count on a client; call before its first send (the client caches its handler). */
export function countUnansweredSends(sqs: SQSClient, report: (entries: number) => void): void {
  sqs.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName !== 'SendMessageBatchCommand') return next(args)
      const entries = () => batchEntries(args.input as object).length
      try {
        const result = await next(args)
        const output = result.output as { Successful?: unknown[]; Failed?: unknown[] }
        const named = (output.Successful?.length ?? 0) + (output.Failed?.length ?? 0)
        const unnamed = entries() - named
        if (unnamed > 0) report(unnamed)
        return result
      } catch (e) {
        if (attemptMayHaveArrived(e)) report(entries())
        throw e
      }
    },
    // Low priority in the retry middleware's step: inside it, so it sees every attempt on its own.
    { step: 'finalizeRequest', priority: 'low', name: 'chaosUnansweredSends' },
  )
}
