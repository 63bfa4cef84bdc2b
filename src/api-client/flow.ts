// DelayQueueApiClient.flow: flow control over the HTTP API (docs/flow-control.md), the same methods as DelayQueue.flow.
// Every call is idempotent (a pause paused twice is paused, a resume of a resumed key puts back nothing), so a call
// without an answer is sent again.
import type { FlowChange, FlowEntry, FlowSettingInput, FlowTarget } from '../contract/flow'
import { call, type Transport } from './transport'

export type { FlowChange, FlowEntry, FlowSettingInput, FlowTarget }

export class ApiFlowControl {
  constructor(private readonly transport: Transport) {}

  /** GET /flow: every queue and flow key with a setting. */
  async list(): Promise<FlowEntry[]> {
    return (await call(this.transport, 'GET', '/flow', undefined, { retryUnanswered: true })).body.settings
  }

  /** PUT /flow/queues/{queue}, /flow/keys/{key} or /flow/tags/{tag}: `paused`, `rate` (null removes it), `burst`. */
  async change(target: FlowTarget, input: FlowSettingInput): Promise<FlowChange> {
    const path =
      'queue' in target
        ? `/flow/queues/${encodeURIComponent(target.queue)}`
        : 'flowKey' in target
          ? `/flow/keys/${encodeURIComponent(target.flowKey)}`
          : `/flow/tags/${encodeURIComponent(target.tag)}`
    return (await call(this.transport, 'PUT', path, input, { retryUnanswered: true })).body
  }

  pause(target: FlowTarget): Promise<FlowChange> {
    return this.change(target, { paused: true })
  }

  resume(target: FlowTarget): Promise<FlowChange> {
    return this.change(target, { paused: false })
  }

  setRate(target: FlowTarget, rate: { rate: number; burst?: number } | null): Promise<FlowChange> {
    return this.change(target, rate === null ? { rate: null } : rate)
  }
}
