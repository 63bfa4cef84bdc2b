// The Scheduler-compatible API on the test Redis and fauxqs: a target queue, the handler served on loopback, the
// unmodified SDK client pointed at it (only `endpoint` and dummy credentials set), and a scanner that fires its jobs.
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs'
import { SchedulerClient } from '@aws-sdk/client-scheduler'
import { inject } from 'vitest'
import { localCredentials } from '../../local/sqs-endpoint'
import { loadConfig } from '../../src/config'
import { DelayQueue } from '../../src/direct/delay-queue'
import { createSchedulerHandler } from '../../src/scheduler-api/handler'
import { serveScheduler } from '../../src/scheduler-api/http-server'
import { createEngine, type Engine } from '../../src/store/engine'
import { uniquePrefix } from '../support/engine'
import { testScanner } from '../support/scanner'
import { createQueue, sqsClient } from '../support/sqs'

export interface SchedulerStackOptions {
  fifo?: boolean
  redisUrl?: string
  /** Settings over the defaults (the Cluster test's REDIS_CLUSTER_NODES and SHARDS). */
  env?: Record<string, string>
  /** The engine the Scheduler API runs on, from the real one (interceptedEngine: a test's pause or lost answer). */
  apiEngine?: (engine: Engine) => Engine
}

export async function startSchedulerStack(options: SchedulerStackOptions = {}) {
  const sqs = sqsClient()
  const queue = await createQueue(sqs, options.fifo ? 'sched-target.fifo' : 'sched-target')
  const attributes = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: queue.url, AttributeNames: ['QueueArn'] }),
  )
  const queueArn = attributes.Attributes!.QueueArn!
  // A target's name says whether it is a FIFO queue, as in serverless.yml's targetQueues.
  const targetName = options.fifo ? 'target.fifo' : 'target'
  const config = loadConfig({
    REDIS_URL: options.redisUrl ?? inject('redisUrl'),
    QUEUES: JSON.stringify({ [targetName]: queue.url }),
    KEY_PREFIX: uniquePrefix('sched'),
    SHARDS: '2',
    DUE_BUCKETS: '8',
    REDIS_WAIT_REPLICAS: '0',
    ...options.env,
  })
  const engine = createEngine(config)
  const delayQueue = new DelayQueue(engine)
  const silent = { info: () => undefined, warn: () => undefined, error: () => undefined }
  const handler = createSchedulerHandler(options.apiEngine?.(engine) ?? engine, { logger: silent })
  const server = await serveScheduler(handler)
  const client = new SchedulerClient({ endpoint: server.url, region: 'us-east-1', credentials: localCredentials })
  const scanner = testScanner({ redis: engine.redis, keys: engine.keys }, { queues: { [targetName]: queue.url } })
  return {
    sqs,
    queue,
    queueArn,
    engine,
    delayQueue,
    server,
    client,
    scanner,
    /** Target fields every test repeats: the queue by ARN, a role that is accepted and ignored. */
    target: (input: string) => ({ Arn: queueArn, RoleArn: 'arn:aws:iam::000000000000:role/scheduler', Input: input }),
    async close() {
      client.destroy()
      await scanner.close()
      await server.close()
      await engine.close()
      sqs.destroy()
    },
  }
}

/** at(...) of an epoch ms, in UTC, to the second (EventBridge Scheduler's form). */
export function atExpression(ms: number): string {
  return `at(${new Date(ms).toISOString().slice(0, 19)})`
}

/** The engine's job writes and cancels as the Scheduler API makes them: `write` is the real one. */
export type JobWriteHook = (kind: 'upsert' | 'cancel', write: () => Promise<unknown>) => Promise<unknown>

/** The engine with its store's job writes (upsert: a job armed) and cancels passed through `hook`. */
export function interceptedEngine(engine: Engine, hook: JobWriteHook): Engine {
  const store = new Proxy(engine.store, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target) as unknown
      if (typeof value !== 'function') return value
      const method = (value as (...a: unknown[]) => unknown).bind(target)
      if (prop !== 'upsert' && prop !== 'cancel') return method
      return (...args: unknown[]) => hook(prop, () => method(...args) as Promise<unknown>)
    },
  })
  return { ...engine, store }
}

/** What one write of definitions (a MULTI/EXEC pipeline) meets: `exec` is the real one. */
export type DefinitionWriteHook = (exec: () => Promise<unknown>) => Promise<unknown>

/**
 * The client the Scheduler API writes its definitions with: each pipeline's exec passes through the hook `take`
 * hands out for it (take clears it: a hook meets one write), or runs as is.
 */
export function interceptedDefinitionWrites<R extends object>(
  redis: R,
  take: () => DefinitionWriteHook | undefined,
): R {
  return new Proxy(redis, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target) as unknown
      if (typeof value !== 'function') return value
      const method = (value as (...a: unknown[]) => unknown).bind(target)
      if (prop !== 'pipeline') return method
      return (...args: unknown[]) => {
        const pipeline = method(...args) as { exec: () => Promise<unknown> }
        const hook = take()
        if (hook) {
          const exec = pipeline.exec.bind(pipeline)
          pipeline.exec = () => hook(exec)
        }
        return pipeline
      }
    },
  })
}
