// The printed table: one row per figure, with its target and whether it is met.

export interface Row {
  measure: string
  value: string
  target?: string
  /** undefined: reference figure, no target. */
  met?: boolean
  note?: string
}

export function printTable(rows: readonly Row[]): string {
  const header: Row = { measure: 'measure', value: 'value', target: 'target', note: 'note' }
  const cells = (r: Row) => [
    r.measure,
    r.value,
    r.target ?? '',
    r.met === undefined ? '' : r.met ? 'met' : 'MISSED',
    r.note ?? '',
  ]
  const all = [cells(header).map((c, i) => (i === 3 ? 'ok?' : c)), ...rows.map(cells)]
  const widths = all[0]!.map((_, i) => Math.max(...all.map((r) => r[i]!.length)))
  const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`
  return [line(all[0]!), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...all.slice(1).map(line)].join('\n')
}

export const fmt = {
  rate: (perSec: number) => `${Math.round(perSec).toLocaleString('en-US')}/s`,
  ms: (ms: number) => `${Number.isInteger(ms) ? ms : ms.toFixed(1)} ms`,
  pct: (ratio: number) => `${(ratio * 100).toFixed(0)}%`,
  int: (n: number) => Math.round(n).toLocaleString('en-US'),
}
