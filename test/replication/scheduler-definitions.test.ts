// The Scheduler-compatible API's definitions (src/scheduler-api/definition-store.ts) follow REDIS_WAIT_REPLICAS as the
// engine's jobs do: answered once a replica has them, and never called a success when it does not confirm them, so a
// failover cannot keep a schedule's job and lose its definition. Real parts: a primary and a replica (redis-server
// --replicaof) on loopback, the Scheduler API served on loopback, the unmodified SDK, fauxqs as the target queue.
import { CreateScheduleCommand, CreateScheduleGroupCommand, SchedulerClient } from '@aws-sdk/client-scheduler'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { localCredentials } from '../../local/sqs-endpoint'
import { startRedis, type LocalRedis } from '../../local/redis-server'
import { ReplicationUnconfirmedError } from '../../src/errors'
import { DefinitionStore } from '../../src/scheduler-api/definition-store'
import { onlineReplicas } from '../../src/store/redis/replica-watch'
import { job } from '../support/engine'
import { eventually } from '../support/eventually'
import { atExpression, startSchedulerStack } from '../scheduler-api/scheduler-stack'

/** Long enough for a live replica beside the suite's other files; the frozen-replica waits take this long. */
const WAIT_TIMEOUT_MS = 2_000

let primary: LocalRedis | undefined
let replica: LocalRedis | undefined
let stack: Awaited<ReturnType<typeof startSchedulerStack>>
beforeAll(async () => {
  primary = await startRedis()
  replica = await startRedis({ extraArgs: ['--replicaof', '127.0.0.1', String(primary.port)] })
  const probe = new Redis(primary.url)
  try {
    await eventually(async () => onlineReplicas(String(await probe.info('replication'))) > 0, 10_000)
  } finally {
    probe.disconnect()
  }
  stack = await startSchedulerStack({
    redisUrl: primary.url,
    env: { REDIS_WAIT_REPLICAS: '1', REDIS_WAIT_TIMEOUT_MS: String(WAIT_TIMEOUT_MS) },
  })
}, 30_000)
afterAll(async () => {
  // A stopped replica must run again before it can be stopped.
  replica?.process.kill('SIGCONT')
  await stack?.close()
  await replica?.stop()
  await primary?.stop()
})

/** The replica stops acknowledging (SIGSTOP) while `act` runs. */
async function withReplicaFrozen<T>(act: () => Promise<T>): Promise<T> {
  replica!.process.kill('SIGSTOP')
  try {
    return await act()
  } finally {
    replica!.process.kill('SIGCONT')
  }
}

describe('Scheduler definitions written under REDIS_WAIT_REPLICAS=1', () => {
  it('answers CreateScheduleGroup and CreateSchedule once the replica holds their definitions', async () => {
    // act
    await stack.client.send(new CreateScheduleGroupCommand({ Name: 'replicated' }))
    await stack.client.send(
      new CreateScheduleCommand({
        Name: 'held',
        GroupName: 'replicated',
        ScheduleExpression: atExpression(Date.now() + 3_600_000),
        FlexibleTimeWindow: { Mode: 'OFF' },
        Target: stack.target('{"n":1}'),
      }),
    )
    // assess: read straight from the replica, with no wait: WAIT returned before the answers
    const direct = new Redis(replica!.url)
    try {
      expect(await direct.hexists(stack.engine.keys.schedulerGroups.definitions, 'replicated')).toBe(1)
      expect(await direct.hexists(stack.engine.keys.schedulerGroup('replicated').definitions, 'held')).toBe(1)
    } finally {
      direct.disconnect()
    }
  })

  it('refuses to call a definition write a success when the replica does not confirm it, as it refuses a job write', async () => {
    // prepare: a client that does not retry (a retry would wait for the frozen replica again), and the store itself
    const once = new SchedulerClient({
      endpoint: stack.server.url,
      region: 'us-east-1',
      credentials: localCredentials,
      maxAttempts: 1,
    })
    const definitions = new DefinitionStore(stack.engine.redis, stack.engine.keys, stack.engine.replication)
    try {
      // act: a group is a definition only (no job); a job write beside it for comparison
      const [group, stored, jobWrite] = await withReplicaFrozen(() =>
        Promise.all([
          once.send(new CreateScheduleGroupCommand({ Name: 'unconfirmed' })).catch((e: unknown) => e),
          definitions
            .groups()
            .create('unconfirmed-direct', { Name: 'unconfirmed-direct' })
            .catch((e: unknown) => e),
          stack.engine.store.enqueue(job({ id: 'unconfirmed-job', queue: 'target' })).catch((e: unknown) => e),
        ]),
      )
      // assess: the job write and the definition write fail alike; the SDK sees an error to retry, not a success
      expect(jobWrite).toBeInstanceOf(ReplicationUnconfirmedError)
      expect(stored).toBeInstanceOf(ReplicationUnconfirmedError)
      expect((stored as Error).message).toBe((jobWrite as Error).message)
      expect(group).toMatchObject({ name: 'InternalServerException', $metadata: { httpStatusCode: 500 } })
    } finally {
      once.destroy()
    }
  })
})
