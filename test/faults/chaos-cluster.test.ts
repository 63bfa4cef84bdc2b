// Scenario: the 60 s chaos run with a fixed seed on a Redis Cluster of 3 masters with a replica each: the same lanes,
// consumers and nemesis as on Sentinel, with master kills instead of Sentinel failovers and no partitions.
// The run and its checks: ./chaos-case.ts.
import { it } from 'vitest'
import { CHAOS_TIMEOUT_MS, expectChaosRunKeepsEveryPromise } from './chaos-case'

it(
  'keeps every promise through a 60 s chaos run (fixed seed) on a Redis Cluster',
  () => expectChaosRunKeepsEveryPromise(true),
  CHAOS_TIMEOUT_MS,
)
