// Shared scenario helpers for the consumer suites, Lambda side: handler options, contexts, a captured logger, the
// local event source mapping and the hooks that close it all (the fauxqs side is in queues.ts).
import { randomUUID } from 'node:crypto'
import { createServer } from 'node:net'
import { Logger } from '@aws-lambda-powertools/logger'
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda'
import { afterAll, afterEach, vi } from 'vitest'
import { startSqsPoller, type SqsPoller } from '../../tools/sdq-poll/sqs-poller'
import { eventually } from '../support/eventually'
import { listenOnLoopback, type LoopbackServer } from '../../devkit/loopback-server'
import { lambdaContext as sharedLambdaContext } from '../support/lambda'
import type { JobHandlerOptions } from '../../src/consumer'
import { receiveNow, sqs, sqsEndpoint } from './queues'

const silent = new Logger({ logLevel: 'SILENT' })
const pollers: SqsPoller[] = []

/** For afterAll: stops every poller still running and the client. */
export async function closeFixtures(): Promise<void> {
  await Promise.all(pollers.map((p) => p.stop()))
  sqs.destroy()
}

/**
 * The hooks every consumer suite needs: after each test, the console spies and env stubs of capturedLogger() are
 * undone; after the file, the pollers and the client are closed.
 */
export function useConsumerFixtures(): void {
  afterAll(closeFixtures)
  afterEach(() => {
    vi.restoreAllMocks()
    vi.unstubAllEnvs()
  })
}

export const unique = (name: string) => `${name}-${randomUUID().slice(0, 8)}`

/** A Lambda context whose remaining time counts down from `budgetMs` (default 30 s). */
export const lambdaContext = (budgetMs?: number) => sharedLambdaContext({ name: 'consumer-test', budgetMs })

/** A loopback TCP server that accepts connections and never answers (an endpoint that hangs). */
export async function silentServer(): Promise<LoopbackServer> {
  return listenOnLoopback(createServer(() => undefined))
}

/** A logger that prints JSON (Powertools dev mode goes through the global console) into `lines`; undone after each
 * test by useConsumerFixtures(). */
export function capturedLogger(): { logger: Logger; lines: Record<string, any>[] } {
  vi.stubEnv('POWERTOOLS_DEV', 'true')
  const lines: Record<string, any>[] = []
  for (const method of ['info', 'warn', 'error', 'debug', 'log'] as const) {
    vi.spyOn(console, method).mockImplementation((text: unknown) => {
      const line = String(text)
      if (line.startsWith('{')) lines.push(JSON.parse(line))
      else process.stdout.write(`${line}\n`) // the test's own notes
    })
  }
  return { logger: new Logger({ serviceName: 'consumer-test' }), lines }
}

type Handler = (e: SQSEvent, c: Context) => Promise<SQSBatchResponse>
type Answer = { event: SQSEvent; response: SQSBatchResponse }

/**
 * Runs the handler behind the local event source mapping until `done` holds (given every answer so far), then stops
 * it; returns the answers.
 */
export async function driveUntil(
  handler: Handler,
  queue: { url: string; arn: string },
  done: (answers: Answer[]) => boolean | Promise<boolean>,
  timeoutMs?: number,
): Promise<Answer[]> {
  const answers: Answer[] = []
  const poller = startSqsPoller({
    sqs,
    queueUrl: queue.url,
    queueArn: queue.arn,
    waitTimeSeconds: 1,
    invoke: async (event) => {
      const response = await handler(event, lambdaContext())
      answers.push({ event, response })
      return response
    },
  })
  pollers.push(poller)
  try {
    await eventually(() => done(answers), timeoutMs)
  } finally {
    await poller.stop()
  }
  return answers
}

/** Drives the handler until the queue's DLQ holds a message; returns what the DLQ holds. */
export async function driveUntilDeadLettered(
  handler: Handler,
  queue: { url: string; arn: string; dlq: { url: string } },
  timeoutMs?: number,
) {
  let dead: Awaited<ReturnType<typeof receiveNow>> = []
  const deadLettered = async () => {
    dead = await receiveNow(queue.dlq.url)
    return dead.length > 0
  }
  await driveUntil(handler, queue, deadLettered, timeoutMs)
  return dead
}

export const options = (extra: JobHandlerOptions<unknown> = {}): JobHandlerOptions<unknown> => ({
  sqsEndpoint,
  logger: silent,
  backoff: { baseSeconds: 1, jitter: false },
  ...extra,
})
