// "Skip duplicates of a job that completed": Powertools idempotency with its cache persistence layer over Redis.
// SQS (standard queues) may deliver a message twice, and the scanner re-sends a job whose ack was lost; both copies
// carry the same id, runAt and createdAt (only dispatchedAt may differ), so those three fields are the key. A job
// re-created later under the same id has another runAt/createdAt and runs again.
import { setTimeout as sleep } from 'node:timers/promises'
import {
  IdempotencyAlreadyInProgressError,
  IdempotencyConfig,
  makeIdempotent,
} from '@aws-lambda-powertools/idempotency'
import { CachePersistenceLayer } from '@aws-lambda-powertools/idempotency/cache'
import type { CacheClient } from '@aws-lambda-powertools/idempotency/cache/types'
import type { Context } from 'aws-lambda'
import type { JobMessage } from '../sqs/envelope'
import { RedisTimeoutError } from './errors'

/** The ioredis calls we use (a Redis or a Cluster both have them). The caller's client comes in through this shape:
 * the toolkit itself never loads ioredis (an import boundary in biome.jsonc). */
export interface RedisCommands {
  get(key: string): Promise<string | null>
  call(command: string, ...args: (string | number)[]): Promise<unknown>
  del(...keys: string[]): Promise<number>
}

/** Default bound of one Redis call: a healthy Redis answers in milliseconds; a down one must not hold the batch. */
export const DEFAULT_REDIS_TIMEOUT_MS = 1_000

/** Powertools' cache layer speaks node-redis / valkey-glide (`set(k, v, { EX, NX })`, `del([keys])`); ioredis
 * wants positional arguments. Every call gives up after `timeoutMs`, whatever the client's own settings: ioredis'
 * defaults queue commands while disconnected and retry them for seconds (no command timeout at all). */
export function ioredisCacheClient(redis: RedisCommands, timeoutMs = DEFAULT_REDIS_TIMEOUT_MS): CacheClient {
  const bounded = <T>(call: () => Promise<T>): Promise<T> => withTimeout(call(), timeoutMs)
  return {
    get: (name) => bounded(() => redis.get(name)),
    async set(name, value, options) {
      const { EX, NX } = (options ?? {}) as { EX?: number; NX?: boolean }
      const args: (string | number)[] = []
      // Redis rejects EX <= 0; an expiry already in the past still deserves a short-lived record
      if (EX !== undefined) args.push('EX', Math.max(1, Math.ceil(EX)))
      if (NX) args.push('NX')
      const text = typeof value === 'string' ? value : JSON.stringify(value)
      return (await bounded(() => redis.call('SET', String(name), text, ...args))) as string | null
    },
    del: async (keys) => (keys.length ? bounded(() => redis.del(...keys)) : 0),
  }
}

async function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new RedisTimeoutError(ms)), ms)
  })
  work.catch(() => {}) // a late failure of an abandoned call is nobody's business
  try {
    return await Promise.race([work, expired])
  } finally {
    clearTimeout(timer)
  }
}

export interface IdempotencyOptions {
  /** A connected ioredis client (Redis or Cluster). */
  redis: RedisCommands
  /** How long a completed job is remembered. Default 86,400 s (1 day): beyond SQS's and the scanner's re-send windows. */
  expiresAfterSeconds?: number
  /** Key prefix; default `sdq-consumer:<function name>` so that two consumers sharing a Redis do not collide. */
  keyPrefix?: string
  /** Longest wait for one Redis call, in ms (default 1,000): past it the job fails without running. */
  timeoutMs?: number
}

export type IdempotencyKey = Pick<JobMessage, 'id' | 'runAt' | 'createdAt'>

export interface IdempotentRunner {
  /** Runs `work` unless a job with this key already completed (then resolves without running it). A copy running in
   * another invocation is waited for while `msLeft()` allows; past that, IdempotencyAlreadyInProgressError. */
  run(key: IdempotencyKey, context: Context, work: () => Promise<unknown>, msLeft: () => number): Promise<void>
}

/** How often a duplicate looks again whether the copy that holds the job has finished. */
const IN_PROGRESS_POLL_MS = 250

/** Build once (module scope): the persistence layer and config are reused across invocations. */
export function idempotentRunner(options: IdempotencyOptions): IdempotentRunner {
  const config = new IdempotencyConfig({ expiresAfterSeconds: options.expiresAfterSeconds ?? 86_400 })
  const client = ioredisCacheClient(options.redis, options.timeoutMs ?? DEFAULT_REDIS_TIMEOUT_MS)
  const persistenceStore = new CachePersistenceLayer({ client })
  const keyPrefix = options.keyPrefix ?? `sdq-consumer:${process.env.AWS_LAMBDA_FUNCTION_NAME ?? 'local'}`
  // Only the first argument (the key) is hashed; the second is the work to do. Nothing of the business code's result
  // is stored (nothing reads it): a result JSON cannot carry (a bigint, a cycle) cannot fail the success record.
  const wrapped = makeIdempotent(
    async (_key: IdempotencyKey, work: () => Promise<unknown>) => {
      await work()
      return null
    },
    { persistenceStore, config, keyPrefix, dataIndexArgument: 0 },
  )
  return {
    async run(key, context, work, msLeft) {
      // The in-progress lock expires with the invocation: a Lambda that dies mid-job does not block its retry
      // until expiresAfterSeconds. (Without a context Powertools would treat a running job as orphaned.)
      if (typeof context?.getRemainingTimeInMillis === 'function') config.registerLambdaContext(context)
      const hashed = { id: key.id, runAt: key.runAt, createdAt: key.createdAt }
      for (;;) {
        try {
          await wrapped(hashed, work)
          return
        } catch (error) {
          // A copy that waits here, instead of failing at once, does not use up receives towards the DLQ while the
          // other copy finishes: each failed receive counts, and the DLQ would get a job that completed.
          if (!(error instanceof IdempotencyAlreadyInProgressError) || msLeft() < 2 * IN_PROGRESS_POLL_MS) throw error
          await sleep(IN_PROGRESS_POLL_MS)
        }
      }
    },
  }
}
