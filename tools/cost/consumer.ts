// The consumer side of the bill, its own block: what the template's SQS-triggered Lambdas (the example consumer in
// the default template) cost around the business code. The event source mapping's polling (AWS long-polls every
// queue with five pollers even when it is empty), the receives and deletes of the jobs, the invocations, and the log
// lines the consumer toolkit and the example write per job (measured with the real Powertools Logger). The business
// work itself is not priced: it is the same whichever scheduler delivered the job.
import { Logger } from '@aws-lambda-powertools/logger'
import { LOG_EVENT_OVERHEAD_BYTES, lambdaPlatformLogBytes } from './metrics'
import { HOURS_PER_MONTH, PRICES } from './prices'
import { jobsPerCycle } from './stream'
import type { ConsumerFacts } from './template'
import { storedLogsLine } from './cloudwatch'

/** Assumptions of the consumer block (docs/cost.md "Assumptions"). */
export const CONSUMER_ASSUMED = {
  /** Pollers an event source mapping keeps on an SQS queue with nothing in it, each a 20 s long poll. */
  idlePollers: 5,
  longPollS: 20,
  /** Billed ms of one invocation of the toolkit with a business function that does nothing (parse, log, answer). */
  toolkitMsPerInvocation: 5,
}

export interface ConsumerUsage {
  jobsPerMonth: number
  /** Target queues the jobs spread over evenly; each consumer reads one of them. */
  queuesUsed: number
  retentionDays: number
}

export interface ConsumerLine {
  item: string
  quantity: string
  usd: number
}

/** The example consumer's handler: it logs 'job received' per job besides the toolkit's line. */
export const EXAMPLE_CONSUMER_HANDLER = 'functions/consumer.handler'

/** Bytes CloudWatch Logs ingests per job from the toolkit's 'job done' line and the example's 'job received' line. */
export async function consumerLogBytesPerJob(): Promise<{ toolkit: number; example: number }> {
  const logger = new Logger({ serviceName: 'serverless-delay-queue-prod' })
  logger.addContext({
    functionName: 'serverless-delay-queue-prod-consumer',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:serverless-delay-queue-prod-consumer',
    memoryLimitInMB: '256',
    awsRequestId: '9f6c1a52-3f0e-4c1b-9a57-1f2e3d4c5b6a',
  } as never)
  const keys = {
    jobId: 'order-12345678:close',
    queue: 'orders',
    attempt: 1,
    latenessMs: 23,
    messageId: '5fea7756-0ea4-451a-a703-a558b933e274',
  }
  const bytesOf = (write: () => void) => {
    const chunks: string[] = []
    const original = process.stdout.write
    process.stdout.write = ((c: string | Uint8Array) => chunks.push(String(c)) > 0) as typeof process.stdout.write
    try {
      write()
    } finally {
      process.stdout.write = original
    }
    return Buffer.byteLength(chunks.join('')) + LOG_EVENT_OVERHEAD_BYTES
  }
  const at = new Date().toISOString()
  return {
    toolkit: bytesOf(() => logger.info('job done', { ...keys, durationMs: 3 })),
    example: bytesOf(() =>
      logger
        .createChild({ persistentKeys: keys })
        .info('job received', { runAt: at, dispatchedAt: at, latenessMs: keys.latenessMs }),
    ),
  }
}

export function consumerLines(
  c: ConsumerFacts & { logBytesPerJob: number },
  u: ConsumerUsage,
): { lines: ConsumerLine[]; logsGb: number } {
  const jobs = u.jobsPerMonth / Math.max(1, u.queuesUsed)
  const rate = jobs / (HOURS_PER_MONTH * 3600)
  // Without a batching window a receive returns what is there when it asks: about one job at these rates (an upper
  // bound on requests); with a window W, the first and those arriving in W, up to the batch size.
  const perBatch = Math.min(c.batchSize, c.batchingWindowS ? jobsPerCycle(rate, c.batchingWindowS * 1000) : 1)
  const batches = jobs / perBatch
  const emptyReceives = CONSUMER_ASSUMED.idlePollers * ((HOURS_PER_MONTH * 3600) / CONSUMER_ASSUMED.longPollS)
  const gbS = (batches * CONSUMER_ASSUMED.toolkitMsPerInvocation * c.memoryMb) / 1024 / 1000
  const platform = c.platformLogs ? lambdaPlatformLogBytes(CONSUMER_ASSUMED.toolkitMsPerInvocation, c.memoryMb) : 0
  const logBytes = batches * platform + jobs * c.logBytesPerJob
  const name = c.logicalId.replace(/LambdaFunction$/, '')
  const lines = [
    {
      item: `${name}: SQS trigger polling, empty receives`,
      quantity: `${Math.round(emptyReceives).toLocaleString('en-US')} requests (${CONSUMER_ASSUMED.idlePollers} pollers x a 20 s long poll, all month)`,
      usd: emptyReceives * PRICES.sqsRequest.usd,
    },
    {
      item: `${name}: SQS receives and deletes of jobs`,
      quantity: `${Math.round(2 * batches).toLocaleString('en-US')} requests (${perBatch.toFixed(1)} jobs a batch)`,
      usd: 2 * batches * PRICES.sqsRequest.usd,
    },
    {
      item: `${name}: Lambda (${c.memoryMb} MB, toolkit only)`,
      quantity: `${Math.round(batches).toLocaleString('en-US')} invocations x ${CONSUMER_ASSUMED.toolkitMsPerInvocation} ms`,
      usd: batches * PRICES.lambdaRequest.usd + gbS * PRICES.lambdaGbSecondArm.usd,
    },
    {
      item: `${name}: CloudWatch Logs`,
      quantity: `${(logBytes / 1e9).toFixed(3)} GB (${c.logBytesPerJob} B of log lines a job${platform ? `, ${platform} B of START/END/REPORT a batch` : ''})`,
      usd: (logBytes / 1e9) * PRICES.logsIngestGb.usd,
    },
    storedLogsLine(logBytes / 1e9, u.retentionDays, name),
  ]
  return { lines, logsGb: logBytes / 1e9 }
}
