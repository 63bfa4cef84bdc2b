// The cost figures of the docs are the tool's output, pasted: each sits between `<!-- cost: ARGS -->` and
// `<!-- /cost -->`, and is exactly what `npm run cost -- ARGS` prints. `npm run cost:docs` rewrites every block from
// the tool; `npm run cost:docs -- --check` only compares, and exits 1 naming each block that differs
// (test/cost/docs-figures.test.ts runs the same check).
import { execFile } from 'node:child_process'
import { resolve } from 'node:path'

/** The files whose cost figures are the tool's. */
export const FIGURE_FILES = ['README.md', 'docs/cost.md']

const BLOCK = /<!-- cost: ([^>]*?) -->\n([\s\S]*?)\n?<!-- \/cost -->/g

export interface Block {
  file: string
  args: string
  text: string
}

export interface Drift extends Block {
  /** What the tool prints now. */
  printed: string
}

/** `text` with each block's content replaced by what the tool prints for it (`printed`, by the block's args). */
export function rewritten(text: string, printed: Map<string, string>): string {
  return text.replace(BLOCK, (whole, args: string) => {
    const now = printed.get(args.trim())
    return now === undefined ? whole : `<!-- cost: ${args.trim()} -->\n${now}\n<!-- /cost -->`
  })
}

/** Dollar figures of `text` outside its cost blocks: figures nobody recomputes, which the check could not see. */
export function strayFigures(text: string): string[] {
  return [...text.replace(BLOCK, '').matchAll(/.{0,40}\$\d[\d,.]*.{0,20}/g)].map((m) => m[0])
}

export function blocksOf(file: string, text: string): Block[] {
  return [...text.matchAll(BLOCK)].map((m) => ({ file, args: m[1]!.trim(), text: m[2]!.trim() }))
}

/** `npm run cost -- ARGS` (plus `extra`), its standard output trimmed. */
export type Runner = (args: string[]) => Promise<string>

export function toolRunner(root: string, extra: string[] = []): Runner {
  const cache = new Map<string, Promise<string>>()
  return (args) => {
    const all = [...args, ...extra]
    const key = all.join(' ')
    if (!cache.has(key))
      cache.set(
        key,
        new Promise((ok, fail) =>
          execFile(
            process.execPath,
            [resolve(root, 'scripts/run-ts.mjs'), resolve(root, 'tools/cost/cli.ts'), ...all],
            { cwd: root, maxBuffer: 16 << 20, timeout: 300_000 },
            (error, stdout, stderr) =>
              error ? fail(new Error(`npm run cost -- ${key}: ${error.message}\n${stderr}`)) : ok(stdout.trim()),
          ),
        ),
      )
    return cache.get(key)!
  }
}

/** Every block of `texts` whose text is not what the tool prints for its arguments now. */
export async function driftsOf(texts: { file: string; text: string }[], run: Runner): Promise<Drift[]> {
  const drifts: Drift[] = []
  for (const { file, text } of texts)
    for (const block of blocksOf(file, text)) {
      const printed = await run(block.args.split(/\s+/).filter(Boolean))
      if (printed !== block.text) drifts.push({ ...block, printed })
    }
  return drifts
}

/** The first line where a block and the tool's output part, for a message a reader can act on. */
export function firstDifference(d: Drift): string {
  const [a, b] = [d.text.split('\n'), d.printed.split('\n')]
  const i = a.findIndex((line, n) => line !== b[n])
  const at = i === -1 ? a.length : i
  return `${d.file} <!-- cost: ${d.args} --> line ${at + 1}:\n  docs: ${a[at] ?? '(nothing)'}\n  tool: ${b[at] ?? '(nothing)'}`
}
