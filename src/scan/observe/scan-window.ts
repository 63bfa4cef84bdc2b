// One scanner's metric window, as the run log stores it (src/scan/observe/run-log.ts) and the dashboard page charts it. A file
// of types only, with no imports: the page's browser bundle imports it too (`import type`, erased by esbuild).
export interface ScanWindow {
  /** When the window ended (epoch ms). */
  at: number
  /** How long it covered. */
  ms: number
  dispatched: number
  released: number
  dead: number
  redisErrors: number
  /** Dispatch lateness of the jobs sent in the window, or null when none was sent. */
  lateness: { p50: number; p99: number; max: number } | null
  oldestDueAgeMs: number | null
  activeMs: number
}
