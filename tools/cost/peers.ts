// The other systems, each delivering a job at its time (into SQS where the system is on AWS), at their list prices:
// EventBridge Scheduler and Step Functions send into SQS; QStash (pay as you go, or its fixed plan where cheaper) and
// Google Cloud Tasks deliver over HTTP. Dated with tools/cost/prices.ts.
import {
  HOURS_PER_MONTH,
  NODE_RESERVED_MEMORY,
  VALKEY_NODES,
  EVENTBRIDGE_SCHEDULER_FREE_INVOCATIONS,
  GOOGLE_CLOUD_TASKS_FREE_OPERATIONS,
  PRICES,
  STEP_FUNCTIONS_TRANSITIONS_PER_JOB,
} from './prices'

/** QStash's fixed plans cover up to 1M and 10M messages a day: ~30M and ~300M a month. */
const QSTASH_FIXED_1M_MAX_PER_MONTH = 1e6 * 30
const QSTASH_FIXED_10M_MAX_PER_MONTH = 10e6 * 30
/** Redis memory per delayed job in BullMQ with a 200 B payload, as measured for BullMQ (not by a bench here). */
export const BULLMQ_BYTES_PER_DELAYED_JOB = 966
/** The smallest always-on container that runs a BullMQ worker: 0.25 vCPU, 0.5 GB on Fargate (ARM). */
const BULLMQ_CONTAINER = { vcpu: 0.25, gb: 0.5 }
/** SQS DelaySeconds' cap: a longer delay is re-enqueued every 15 minutes by a relay Lambda. */
const SQS_MAX_DELAY_S = 900

export interface PeerUsage {
  /** Average time from enqueue to due (sets SQS DelaySeconds' hops and BullMQ's pending jobs). Default 24 h. */
  waitHours?: number
}

/** The cheapest ElastiCache node with a replica that holds `bytes` below 80% of its usable memory. */
function replicatedNodeUsd(bytes: number): number {
  const n = VALKEY_NODES.find((v) => v.memoryGiB * (1 - NODE_RESERVED_MEMORY) * 2 ** 30 * 0.8 >= bytes)
  return n ? 2 * HOURS_PER_MONTH * n.hour.usd : Number.POSITIVE_INFINITY
}

export function alternatives(jobs: number, usage: PeerUsage = {}): { system: string; usd: number; how: string }[] {
  const waitS = (usage.waitHours ?? 24) * 3600
  const sqsSends = jobs * PRICES.sqsRequest.usd // one SendMessage per job: none of them batch
  const qstashPayg = jobs * PRICES.qstashMessage.usd
  const qstashFixed = Math.min(
    jobs <= QSTASH_FIXED_1M_MAX_PER_MONTH ? PRICES.qstashFixed1MPerDay.usd : Number.POSITIVE_INFINITY,
    jobs <= QSTASH_FIXED_10M_MAX_PER_MONTH ? PRICES.qstashFixed10MPerDay.usd : Number.POSITIVE_INFINITY,
  )
  const hops = Math.max(1, Math.ceil(waitS / SQS_MAX_DELAY_S))
  const pending = (jobs / (HOURS_PER_MONTH * 3600)) * waitS
  const container =
    HOURS_PER_MONTH *
    (BULLMQ_CONTAINER.vcpu * PRICES.fargateArmVcpuHour.usd + BULLMQ_CONTAINER.gb * PRICES.fargateArmGbHour.usd)
  return [
    {
      system: 'SQS DelaySeconds (re-enqueued every 15 min)',
      usd:
        jobs * hops * PRICES.sqsRequest.usd +
        jobs * (hops - 1) * (2 * PRICES.sqsRequest.usd + PRICES.lambdaRequest.usd / 10),
      how: `${hops} send${hops > 1 ? 's' : ''} a job at a ${usage.waitHours ?? 24} h wait; each hop after the first a receive, a delete and a tenth of a relay Lambda's invocation`,
    },
    {
      system: 'BullMQ on an always-on container',
      usd: container + replicatedNodeUsd(pending * BULLMQ_BYTES_PER_DELAYED_JOB) + sqsSends,
      how: `Fargate 0.25 vCPU / 0.5 GB all month, Redis with a replica for ${Math.round(pending).toLocaleString('en-US')} delayed jobs x ${BULLMQ_BYTES_PER_DELAYED_JOB} B, an SQS send each`,
    },
    {
      system: 'EventBridge Scheduler (one-time schedules)',
      usd:
        Math.max(0, jobs - EVENTBRIDGE_SCHEDULER_FREE_INVOCATIONS) * PRICES.eventBridgeSchedulerInvocation.usd +
        sqsSends,
      how: '$1.00/M after 14M free + an SQS send each',
    },
    {
      system: 'QStash',
      usd: Math.min(qstashPayg, qstashFixed),
      how: '$1 per 100K messages, or the fixed $180 (1M a day) or $420 (10M a day) plan where cheaper (HTTP delivery, no SQS)',
    },
    {
      system: 'Google Cloud Tasks',
      usd: Math.max(0, 2 * jobs - GOOGLE_CLOUD_TASKS_FREE_OPERATIONS) * PRICES.googleCloudTasksOperation.usd,
      how: '$0.40/M operations after 1M free, 2 a job (create, dispatch); 30-day horizon; HTTP delivery, no SQS',
    },
    {
      system: 'Step Functions Standard, Wait state',
      usd: jobs * STEP_FUNCTIONS_TRANSITIONS_PER_JOB * PRICES.stepFunctionsTransition.usd + sqsSends,
      how: '3 transitions x $25/M + an SQS send each',
    },
  ]
}

/**
 * The volume (jobs a month) above which `ours` costs less than the peer, by bisection on a log scale between 10K
 * and 10B; null when ours is dearer (or cheaper) over the whole range.
 */
export function crossover(ours: (jobs: number) => number, peer: (jobs: number) => number): number | null {
  const diff = (j: number) => ours(j) - peer(j)
  let [lo, hi] = [1e4, 1e10]
  if (diff(lo) <= 0 || diff(hi) > 0) return null
  for (let i = 0; i < 60; i++) {
    const mid = Math.sqrt(lo * hi)
    if (diff(mid) > 0) lo = mid
    else hi = mid
  }
  return hi
}
