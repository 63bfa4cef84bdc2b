// "Run the business code at most once per job": Powertools idempotency with its cache persistence layer over Redis.
// SQS (standard queues) may deliver a message twice, and the scanner re-sends a job whose ack was lost; both copies
// carry the same id, runAt and createdAt (only dispatchedAt may differ), so those three fields are the key. A job
// re-created later under the same id has another runAt/createdAt and runs again.
import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency'
import { CachePersistenceLayer } from '@aws-lambda-powertools/idempotency/cache'
import type { CacheClient } from '@aws-lambda-powertools/idempotency/cache/types'
import type { Context } from 'aws-lambda'
import type { JobMessage } from '../sqs/envelope'

/** The ioredis calls we use (a Redis or a Cluster both have them). The caller's client comes in through this shape:
 * the toolkit itself never loads ioredis (an import boundary in biome.jsonc). */
export interface RedisCommands {
  get(key: string): Promise<string | null>
  call(command: string, ...args: (string | number)[]): Promise<unknown>
  del(...keys: string[]): Promise<number>
}

/** Powertools' cache layer speaks node-redis / valkey-glide (`set(k, v, { EX, NX })`, `del([keys])`); ioredis
 * wants positional arguments. */
export function ioredisCacheClient(redis: RedisCommands): CacheClient {
  return {
    get: (name) => redis.get(name),
    async set(name, value, options) {
      const { EX, NX } = (options ?? {}) as { EX?: number; NX?: boolean }
      const args: (string | number)[] = []
      // Redis rejects EX <= 0; an expiry already in the past still deserves a short-lived record
      if (EX !== undefined) args.push('EX', Math.max(1, Math.ceil(EX)))
      if (NX) args.push('NX')
      const text = typeof value === 'string' ? value : JSON.stringify(value)
      return (await redis.call('SET', String(name), text, ...args)) as string | null
    },
    del: async (keys) => (keys.length ? redis.del(...keys) : 0),
  }
}

export interface IdempotencyOptions {
  /** A connected ioredis client (Redis or Cluster). */
  redis: RedisCommands
  /** How long a completed job is remembered. Default 86,400 s (1 day): beyond SQS's and the scanner's re-send windows. */
  expiresAfterSeconds?: number
  /** Key prefix; default `sdq-consumer:<function name>` so that two consumers sharing a Redis do not collide. */
  keyPrefix?: string
}

export type IdempotencyKey = Pick<JobMessage, 'id' | 'runAt' | 'createdAt'>

export interface IdempotentRunner {
  /** Runs `work` unless a job with this key already completed (then returns the stored result), or is running
   * in another invocation (then throws IdempotencyAlreadyInProgressError: the record is retried later). */
  run<R>(key: IdempotencyKey, context: Context, work: () => Promise<R>): Promise<R>
}

/** Build once (module scope): the persistence layer and config are reused across invocations. */
export function idempotentRunner(options: IdempotencyOptions): IdempotentRunner {
  const config = new IdempotencyConfig({ expiresAfterSeconds: options.expiresAfterSeconds ?? 86_400 })
  const persistenceStore = new CachePersistenceLayer({ client: ioredisCacheClient(options.redis) })
  const keyPrefix = options.keyPrefix ?? `sdq-consumer:${process.env.AWS_LAMBDA_FUNCTION_NAME ?? 'local'}`
  // Only the first argument (the key) is hashed; the second is the work to do.
  const wrapped = makeIdempotent((_key: IdempotencyKey, work: () => Promise<unknown>) => work(), {
    persistenceStore,
    config,
    keyPrefix,
    dataIndexArgument: 0,
  })
  return {
    run(key, context, work) {
      // The in-progress lock expires with the invocation: a Lambda that dies mid-job does not block its retry
      // until expiresAfterSeconds. (Without a context Powertools would treat a running job as orphaned.)
      if (typeof context?.getRemainingTimeInMillis === 'function') config.registerLambdaContext(context)
      return wrapped({ id: key.id, runAt: key.runAt, createdAt: key.createdAt }, work) as Promise<never>
    },
  }
}
