// Starts the real parts every integration test talks to: a private redis-server and fauxqs, on free loopback
// ports, and stops them afterwards. Tests get the addresses with `inject('redisUrl')` / `inject('sqsEndpoint')`.
import type { TestProject } from 'vitest/node'
import { startRedis } from '../../local/redis-server'
import { startSqsInProcess } from '../../local/sqs-endpoint'
import { startTogether } from '../../local/start-together'

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string
    sqsEndpoint: string
  }
}

export default async function setup(project: TestProject) {
  const [redis, sqs] = await startTogether(startRedis(), startSqsInProcess())
  project.provide('redisUrl', redis.url)
  project.provide('sqsEndpoint', sqs.endpoint)
  return async () => {
    await Promise.all([redis.stop(), sqs.stop()])
  }
}
