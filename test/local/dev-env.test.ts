// The dev stack's address file (.dev/env): what another service on this machine sources to reach the local stack.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { readDevEnv, writeDevEnv } from '../../tools/sdq-poll/dev-env'

describe('.dev/env', () => {
  it('carries local credentials, so the api-client signs its requests to the local stack with no real ones', () => {
    // prepare
    const dir = mkdtempSync(join(tmpdir(), 'dev-env-'))
    const path = join(dir, 'env')
    try {
      // act
      writeDevEnv(path, {
        DELAY_QUEUE_API_URL: 'http://127.0.0.1:3000',
        REDIS_URL: 'redis://127.0.0.1:6379',
        QUEUES: 'orders=http://127.0.0.1:9324/000000000000/orders',
        DEAD_LETTER_QUEUES: 'orders=http://127.0.0.1:9324/000000000000/orders-dlq',
        SQS_ENDPOINT: 'http://127.0.0.1:9324',
        AWS_REGION: 'us-east-1',
      })
      // assess
      expect(readDevEnv(path)).toMatchObject({
        DELAY_QUEUE_API_URL: 'http://127.0.0.1:3000',
        AWS_ACCESS_KEY_ID: 'local',
        AWS_SECRET_ACCESS_KEY: 'local',
      })
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
