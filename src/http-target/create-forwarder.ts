// Wires the forwarder: settings from the environment, the guarded sender, the secret loader, and (when Redis is
// configured) the delivery record and callbacks, into a consumer-toolkit handler. functions/forwarder.ts calls it once
// at module scope; tests call it with their own resolver, engine and SQS client.
import type { Logger } from '@aws-lambda-powertools/logger'
import type { SQSClient } from '@aws-sdk/client-sqs'
import { jobHandler, type JobBatchHandler } from '../consumer'
import { JobExistsError } from '../errors'
import type { DelayQueue } from '../direct/delay-queue'
import type { Engine } from '../store/engine'
import { readKeptDelivery, recordDelivery } from '../store/delivery-record'
import { addressPolicy } from './address-policy'
import { forwardJob, type ForwarderDeps } from './forward-job'
import { readForwarderSettings, type ForwarderSettings } from './forwarder-settings'
import { systemResolver, type Resolver } from './pinned-lookup'
import { secretLoader } from './secret-loader'
import { createSender, type Sender } from './send-request'

export interface ForwarderOptions {
  settings?: ForwarderSettings
  env?: Record<string, string | undefined>
  /** Tests: a resolver that never asks the network (names mapped to loopback addresses). */
  resolve?: Resolver
  /** Redis, for the delivery record; with `queue`, callbacks too. */
  engine?: Pick<Engine, 'redis' | 'keys' | 'config'>
  queue?: Pick<DelayQueue, 'schedule'>
  logger?: Logger
  sqs?: SQSClient
  sqsEndpoint?: string
  /** The queue's maxReceiveCount (MAX_RECEIVE_COUNT); default: read from the queue's redrive policy by the toolkit. */
  maxReceiveCount?: number
  backoff?: { baseSeconds?: number; capSeconds?: number; jitter?: boolean }
  concurrency?: number
  onRequestStart?: ForwarderDeps['onRequestStart']
}

export interface Forwarder {
  handler: JobBatchHandler
  sender: Sender
  settings: ForwarderSettings
}

export function createForwarder(options: ForwarderOptions = {}): Forwarder {
  const env = options.env ?? process.env
  const settings = options.settings ?? readForwarderSettings(env)
  const judge = addressPolicy({ allow: settings.allowCidrs, allowLoopback: settings.allowLoopback })
  const sender = createSender(options.resolve ?? systemResolver, judge)
  const envCount = Number(env.MAX_RECEIVE_COUNT)
  const maxReceiveCount = options.maxReceiveCount ?? (Number.isInteger(envCount) && envCount > 0 ? envCount : undefined)
  const engine = options.engine
  const ttlMs = engine?.config.dispatchReceiptTtlMs ?? 0
  const queue = options.queue
  const work = forwardJob({
    settings,
    sender,
    ...(settings.secretSource
      ? { secrets: secretLoader({ source: settings.secretSource, cacheMs: settings.secretCacheMs }) }
      : {}),
    maxReceiveCount,
    ...(engine && ttlMs > 0
      ? {
          record: (id, record) => recordDelivery(engine.redis, engine.keys, id, record, ttlMs),
          recorded: (id) => readKeptDelivery(engine.redis, engine.keys, id),
        }
      : {}),
    ...(queue
      ? {
          enqueue: async (job) => {
            await queue.schedule(job).catch((e) => {
              if (!(e instanceof JobExistsError)) throw e // scheduled by an earlier handling of the same job
            })
          },
        }
      : {}),
    ...(options.onRequestStart ? { onRequestStart: options.onRequestStart } : {}),
  })
  const handler = jobHandler(work, {
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.sqs ? { sqs: options.sqs } : {}),
    ...(options.sqsEndpoint ? { sqsEndpoint: options.sqsEndpoint } : {}),
    ...(maxReceiveCount ? { maxReceiveCount } : {}),
    ...(options.backoff ? { backoff: options.backoff } : {}),
    concurrency: options.concurrency ?? 10,
  })
  return { handler, sender, settings }
}
