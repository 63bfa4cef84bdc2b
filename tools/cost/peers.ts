// The other systems, each delivering a job at its time (into SQS where the system is on AWS), at their list prices:
// EventBridge Scheduler and Step Functions send into SQS; QStash (pay as you go, or its fixed plan where cheaper) and
// Google Cloud Tasks deliver over HTTP. Dated with tools/cost/prices.ts.
import {
  EVENTBRIDGE_SCHEDULER_FREE_INVOCATIONS,
  GOOGLE_CLOUD_TASKS_FREE_OPERATIONS,
  PRICES,
  STEP_FUNCTIONS_TRANSITIONS_PER_JOB,
} from './prices'

/** QStash's fixed plan covers up to 10M messages a day: ~300M a month. */
const QSTASH_FIXED_MAX_PER_MONTH = 10e6 * 30

export function alternatives(jobs: number): { system: string; usd: number; how: string }[] {
  const sqsSends = jobs * PRICES.sqsRequest.usd // one SendMessage per job: none of them batch
  const qstashPayg = jobs * PRICES.qstashMessage.usd
  const qstashFixed = jobs <= QSTASH_FIXED_MAX_PER_MONTH ? PRICES.qstashFixed10MPerDay.usd : Number.POSITIVE_INFINITY
  return [
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
      how: '$1 per 100K messages, or the fixed $420 plan (10M a day) where cheaper (HTTP delivery, no SQS)',
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
