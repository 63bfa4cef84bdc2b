// Global setup of the "cluster" project: a local 3-master Redis Cluster and fauxqs on free loopback ports.
// Tests get the seed nodes with `inject('redisClusterNodes')`; test/support/engine.ts's testStore() then connects
// through connectRedis({ clusterNodes }) and spreads its jobs over `inject('testShards')` shards.
import type { TestProject } from 'vitest/node'
import { startRedisCluster } from '../../local/redis-cluster'
import { startSqsInProcess } from '../../local/sqs-endpoint'
import { startTogether } from '../../local/start-together'

declare module 'vitest' {
  export interface ProvidedContext {
    redisClusterNodes?: string[]
    /** Default shard count of testStore() in this project. */
    testShards?: number
  }
}

/**
 * Default shards per test store in this project. 4 spreads one store's jobs over every master, but some engine
 * tests that address `keys.shards[0]` ask for `shards: 1` themselves; every other store spreads its jobs over
 * CLUSTER_TEST_SHARDS shards (default 4), so the engine suites run with jobs on all masters.
 */
export const CLUSTER_TEST_SHARDS = Number(process.env.CLUSTER_TEST_SHARDS || 4)

export default async function setup(project: TestProject) {
  const [cluster, sqs] = await startTogether(startRedisCluster({ masters: 3 }), startSqsInProcess())
  project.provide('redisClusterNodes', cluster.addresses)
  project.provide('testShards', CLUSTER_TEST_SHARDS)
  project.provide('sqsEndpoint', sqs.endpoint)
  return async () => {
    await Promise.all([cluster.stop(), sqs.stop()])
  }
}
