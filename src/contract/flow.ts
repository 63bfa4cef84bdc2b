// Flow control as callers name and change it (docs/flow-control.md): a queue, a flow key or a tag; a change of its
// settings; what is set.

/** What a setting is about. */
export type FlowTarget = { queue: string } | { flowKey: string } | { tag: string }

/** A change of one queue's or key's settings: what it leaves out stays. */
export interface FlowSettingInput {
  paused?: boolean
  /** Jobs per second; null removes the rate. */
  rate?: number | null
  /** Jobs that may leave at once after a quiet spell; with a rate only. Default: a tenth of a second's worth. */
  burst?: number
}

/** One target's settings. */
export type FlowEntry = FlowTarget & { paused: boolean; rate?: number; burst?: number }

/** A change's answer: the settings now, and how many held jobs a resume let go. */
export type FlowChange = FlowEntry & { resumed?: number }
