// Global teardown of the fault suite: after a full run, RELIABILITY.md's figures table is rendered from the JSON
// the cases wrote (test/faults/results/*.json), between its "figures" markers. Short runs leave it alone.
import { readFileSync, writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { readFigures } from './results'

const START = '<!-- figures:start (rendered by test/faults/report-teardown.ts; do not edit by hand) -->'
const END = '<!-- figures:end -->'

export function renderTable(): string {
  const rows = readFigures().filter((f) => f.scale === 'full')
  const lines = [
    '| case | scenario | jobs | faults injected | lost | duplicated | other figures | run at |',
    '|---|---|---:|---|---:|---:|---|---|',
  ]
  for (const f of rows) {
    const notes = Object.entries(f.notes ?? {})
      .map(([k, v]) => `${k}: ${v}`)
      .join('; ')
    lines.push(
      `| ${f.case} | ${f.scenario} | ${f.jobs.toLocaleString('en-US')} | ${f.faults} | ${f.lost} | ${f.duplicated} | ${notes} | ${f.date.slice(0, 16).replace('T', ' ')} UTC |`,
    )
  }
  return lines.join('\n')
}

export function updateReliabilityDoc(path = resolve(__dirname, '../../RELIABILITY.md')): boolean {
  let doc: string
  try {
    doc = readFileSync(path, 'utf8')
  } catch {
    return false
  }
  const a = doc.indexOf(START)
  const b = doc.indexOf(END)
  if (a < 0 || b < a) return false
  writeFileSync(path, `${doc.slice(0, a + START.length)}\n${renderTable()}\n${doc.slice(b)}`)
  return true
}

export default function setup() {
  return () => {
    if (process.env.FAULTS_SCALE === 'full') updateReliabilityDoc()
  }
}
