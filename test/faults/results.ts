// The figures each fault case measured, written as JSON so RELIABILITY.md's table is rendered, not hand-copied.
// Full runs write test/faults/results/<case>.json (committed); short runs write under .build/ (scratch).
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { FULL } from './scale'

export interface CaseFigures {
  case: string
  /** What happened, in words, for the table. */
  scenario: string
  jobs: number
  faults: string
  lost: number
  duplicated: number
  /** Anything else the case measured (bounds, timings, counts). */
  notes?: Record<string, number | string | boolean>
}

export const RESULTS_DIR = resolve(__dirname, 'results')
const SHORT_DIR = resolve(__dirname, '../../.build/faults-short')

export function recordFigures(figures: CaseFigures): void {
  const dir = FULL ? RESULTS_DIR : SHORT_DIR
  mkdirSync(dir, { recursive: true })
  const entry = { ...figures, scale: FULL ? 'full' : 'short', date: new Date().toISOString() }
  writeFileSync(join(dir, `${figures.case}.json`), `${JSON.stringify(entry, null, 2)}\n`)
}

export function readFigures(dir = RESULTS_DIR): (CaseFigures & { scale: string; date: string })[] {
  let files: string[] = []
  try {
    files = readdirSync(dir).filter((f) => f.endsWith('.json'))
  } catch {
    return []
  }
  return files.sort().map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')))
}
