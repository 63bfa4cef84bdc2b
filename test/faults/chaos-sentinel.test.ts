// Scenario: a 60 s chaos run with a fixed seed on Sentinel: real Redis primary + 2 replicas + 3 sentinels, the local
// SQS behind the fault proxy, the API, 3 scanner processes, client lanes writing through the signed API client (a
// standard and a FIFO queue), consumers, and a nemesis combining scanner kills / pauses / partitions / skewed clocks,
// primary kills with and without a replica cut, API partitions, and SQS refusals / outages / answers dropped.
// The run and its checks: ./chaos-case.ts.
import { it } from 'vitest'
import { CHAOS_TIMEOUT_MS, expectChaosRunKeepsEveryPromise } from './chaos-case'

it(
  'keeps every promise through a 60 s chaos run (fixed seed) on Sentinel',
  () => expectChaosRunKeepsEveryPromise(false),
  CHAOS_TIMEOUT_MS,
)
