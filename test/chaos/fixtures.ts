// Hand-made histories for the checker's own tests: a builder that numbers operations and fills in defaults.
import type { Delivery, EnvironmentFault, Fault, FlowOp, History, Op, SendStart } from './history'

export const T0 = 1_800_000_000_000

export function historyOf(parts: {
  ops?: Partial<Op>[]
  deliveries?: Partial<Delivery>[]
  faults?: Fault[]
  environment?: EnvironmentFault[]
  flow?: FlowOp[]
  sendStarts?: SendStart[]
}): History {
  const ops = (parts.ops ?? []).map(
    (op, n): Op => ({
      n,
      client: 'c1',
      kind: 'create',
      id: 'job-1',
      invokeAt: T0,
      completeAt: T0 + 10,
      outcome: 'ok',
      ...op,
    }),
  )
  let message = 0
  const deliveries = (parts.deliveries ?? []).map(
    (d): Delivery => ({
      jobId: 'job-1',
      token: 'a',
      messageId: `m-${++message}`,
      sentAt: T0 + 1_000,
      receivedAt: (d.sentAt ?? T0 + 1_000) + 5,
      receiveCount: 1,
      runAtMs: T0 + 1_000,
      ...d,
    }),
  )
  return {
    seed: 7,
    startedAt: T0 - 1_000,
    quietAt: T0 + 50_000,
    endedAt: T0 + 60_000,
    settings: { claimBatchSize: 10, maxInFlight: 10, leaseMs: 2_000, scanners: 2, toleranceMs: 10 },
    ops,
    deliveries,
    faults: parts.faults ?? [],
    environment: parts.environment ?? [],
    ...(parts.flow ? { flow: parts.flow } : {}),
    ...(parts.sendStarts ? { sendStarts: parts.sendStarts } : {}),
  }
}

/** A create of job-1 with token `a`, due at T0 + 1000, acknowledged. */
export const created = (extra: Partial<Op> = {}): Partial<Op> => ({
  kind: 'create',
  via: 'post',
  token: 'a',
  delayMs: 990,
  status: 201,
  answerRunAtMs: T0 + 1_000,
  ...extra,
})

/** A replace of job-1 (after `created()`) with token `a2`, sent at T0 + 100 and answered 200 at T0 + 110. */
export const replaced = (extra: Partial<Op> = {}): Partial<Op> => ({
  kind: 'put',
  token: 'a2',
  invokeAt: T0 + 100,
  completeAt: T0 + 110,
  status: 200,
  ...extra,
})
