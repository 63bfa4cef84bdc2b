// The bench's private world: one redis-server and one fauxqs process on free loopback ports, both stopped at the end.
// Every measurement gets a config built by the real loadConfig (so defaults are the shipped defaults), and a fresh
// SQS queue of its own, deleted afterwards, so one measurement's messages never slow the next.
import { CreateQueueCommand, DeleteQueueCommand, SQSClient } from '@aws-sdk/client-sqs'
import type { ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { loadConfig, type Config } from '../src/config'
import { connectRedis } from '../src/store/redis/redis'
import type { ScriptedClient } from '../src/store/scripts'
import { startRedis, type LocalRedis } from '../local/redis-server'
import { localCredentials, startSqsProcess, type LocalSqs } from '../local/sqs-endpoint'
import { startTogether } from '../local/start-together'

/** CPU seconds (user + system) a process has used so far, from /proc (Linux). */
export function processCpuSeconds(pid: number, stat = `/proc/${pid}/stat`): number {
  const fields = readFileSync(stat, 'utf8').split(') ')[1]!.split(' ')
  return (Number(fields[11]) + Number(fields[12])) / 100
}

export interface BenchEnv {
  redis: LocalRedis
  sqs: LocalSqs & { process: ChildProcess }
  /** Admin connection: FLUSHALL, INFO. Never used while a measurement counts commands, except for INFO. */
  admin: ScriptedClient
  /** Shipped defaults plus the local endpoints; `overrides` are environment variables. */
  config(queueUrl: string, overrides?: Record<string, string>): Config
  /** A fresh standard queue; call the returned function to delete it. */
  queue(name: string): Promise<{ url: string; remove(): Promise<void> }>
  stop(): Promise<void>
}

export async function startBenchEnv(): Promise<BenchEnv> {
  const [redis, sqs] = await startTogether(startRedis(), startSqsProcess())
  const admin = connectRedis({ url: redis.url })
  const control = new SQSClient({ endpoint: sqs.endpoint, region: 'us-east-1', credentials: localCredentials })
  let seq = 0
  return {
    redis,
    sqs,
    admin,
    config: (queueUrl, overrides = {}) =>
      loadConfig({ REDIS_URL: redis.url, SQS_ENDPOINT: sqs.endpoint, QUEUES: `bench=${queueUrl}`, ...overrides }),
    async queue(name) {
      const { QueueUrl } = await control.send(
        new CreateQueueCommand({ QueueName: `${name}-${++seq}`, Attributes: { VisibilityTimeout: '600' } }),
      )
      return {
        url: QueueUrl!,
        remove: async () => void (await control.send(new DeleteQueueCommand({ QueueUrl })).catch(() => {})),
      }
    },
    async stop() {
      control.destroy()
      await admin.quit().catch(() => admin.disconnect())
      await Promise.all([redis.stop(), sqs.stop()])
    },
  }
}

/** One section of `INFO`, as numbers where they are numbers. */
export async function info(redis: ScriptedClient, section: string): Promise<Record<string, string>> {
  const text = await redis.info(section)
  const out: Record<string, string> = {}
  for (const line of text.split('\r\n')) {
    const at = line.indexOf(':')
    if (at > 0 && !line.startsWith('#')) out[line.slice(0, at)] = line.slice(at + 1)
  }
  return out
}

/** `INFO commandstats` as command -> calls. */
export async function commandCalls(redis: ScriptedClient): Promise<Record<string, number>> {
  const stats = await info(redis, 'commandstats')
  const out: Record<string, number> = {}
  for (const [k, v] of Object.entries(stats)) {
    const m = /calls=(\d+)/.exec(v)
    if (m) out[k.replace(/^cmdstat_/, '')] = Number(m[1])
  }
  return out
}

export async function usedMemory(redis: ScriptedClient): Promise<number> {
  return Number((await info(redis, 'memory')).used_memory)
}

export async function flush(redis: ScriptedClient): Promise<void> {
  await redis.flushall()
}
