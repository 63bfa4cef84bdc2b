// The pages a user reads: README.md, RELIABILITY.md and every Markdown page under docs/. The docs lint tests hold
// each of them to a size and to stating what holds rather than how a day's work went.
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'

export const repoRoot = resolve(__dirname, '../..')

function markdownUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return markdownUnder(path)
    return entry.name.endsWith('.md') ? [path] : []
  })
}

export interface DocPage {
  /** The path from the repository's root, e.g. `docs/api.md`. */
  name: string
  text: string
}

export function docPages(): DocPage[] {
  const paths = [
    join(repoRoot, 'README.md'),
    join(repoRoot, 'RELIABILITY.md'),
    ...markdownUnder(join(repoRoot, 'docs')),
  ]
  return paths.map((path) => ({ name: relative(repoRoot, path), text: readFileSync(path, 'utf8') }))
}

/** Lines as an editor counts them: a final newline ends the last line rather than starting another. */
export function lineCount(text: string): number {
  return text.endsWith('\n') ? text.split('\n').length - 1 : text.split('\n').length
}
