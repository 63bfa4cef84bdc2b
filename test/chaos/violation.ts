// What the checker reports per promise: violations (each with the ids it is about, for the history slice) and counts.
export type PromiseName =
  | 'acknowledged-delivered'
  | 'not-early'
  | 'cancel-holds'
  | 'reschedule-holds'
  | 'create-once'
  | 'tag-cancel-holds'
  | 'debounce-quiet'
  | 'schedule-series'
  | 'schedule-tag-delete-holds'
  | 'fifo-order'
  | 'duplicates-bounded'
  | 'paused-held'
  | 'rate-bounded'

export const PROMISES: readonly PromiseName[] = [
  'acknowledged-delivered',
  'not-early',
  'cancel-holds',
  'reschedule-holds',
  'create-once',
  'tag-cancel-holds',
  'debounce-quiet',
  'schedule-series',
  'schedule-tag-delete-holds',
  'fifo-order',
  'duplicates-bounded',
  'paused-held',
  'rate-bounded',
]

export interface Violation {
  promise: PromiseName
  message: string
  /** The job or schedule ids involved: the slice of the history shown with it. */
  ids: string[]
}

export interface PromiseFigures {
  /** How many cases the promise was checked on (acknowledged writes, deliveries, cancels, ...). */
  checked: number
  /** Cases left open by indeterminate writes (neither outcome is wrong). */
  indeterminate?: number
  violations: number
  [extra: string]: number | undefined
}
