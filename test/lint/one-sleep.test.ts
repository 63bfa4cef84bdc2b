// The dev folders sleep through one helper, devkit/sleep.ts, so that a wait is easy to find and to question: a test
// waits on a signal (test/support/eventually.ts), and what sleeps is pacing on purpose. A sleep made on the spot
// (a promise resolved by setTimeout, timers/promises' setTimeout, a local `sleep`) fails this test.
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

const repo = resolve(__dirname, '../..')

/** Files that may make their own: the helper, and child-process sources held in a string (they run without imports). */
const EXEMPT = new Set(['devkit/sleep.ts', 'bench/lambda-invoke.ts', 'bench/scan-worker-process.ts'])

const OWN_SLEEP = [
  /new Promise(?:<void>)?\(\s*\(?(\w+)\)?\s*=>\s*setTimeout\(\s*\1\s*,/,
  /\bsetTimeout as \w+\b[^\n]*from 'node:timers\/promises'/,
  /^\s*(?:export\s+)?(?:const|let|function)\s+sleep\b/m,
]

/** The lines of `text` that make a sleep of their own, as "path:line". */
function ownSleeps(path: string, text: string): string[] {
  if (EXEMPT.has(path)) return []
  return text.split('\n').flatMap((line, i) => (OWN_SLEEP.some((p) => p.test(line)) ? [`${path}:${i + 1}`] : []))
}

function devSources(): { path: string; text: string }[] {
  return ['test', 'bench', 'local', 'devkit', 'tools/cost', 'tools/openapi'].flatMap((folder) =>
    readdirSync(join(repo, folder), { withFileTypes: true, recursive: true })
      .filter((e) => e.isFile() && /\.(ts|mts|mjs|cjs)$/.test(e.name))
      .map((e) => join(e.parentPath, e.name))
      .filter((full) => !full.includes('node_modules'))
      .map((full) => ({ path: relative(repo, full).split('\\').join('/'), text: readFileSync(full, 'utf8') })),
  )
}

describe('one sleep in the dev folders', () => {
  it('no dev file makes a sleep of its own', () => {
    const sources = devSources().filter(({ path }) => path !== 'test/lint/one-sleep.test.ts')
    expect(sources.length).toBeGreaterThan(300)
    expect(sources.flatMap(({ path, text }) => ownSleeps(path, text))).toEqual([])
  })

  it.each([
    ['an inline promise', 'await new Promise((r) => setTimeout(r, 50))'],
    ['a typed one', 'await new Promise<void>((resolve) => setTimeout(resolve, ms))'],
    ['timers/promises', "import { setTimeout as sleep } from 'node:timers/promises'"],
    ['a local helper', 'const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))'],
  ])('refuses %s', (_what, line) => {
    expect(ownSleeps('test/engine/x.test.ts', line)).toEqual(['test/engine/x.test.ts:1'])
  })

  it('lets a file import the helper and time out a callback', () => {
    const text = "import { sleep } from '../../devkit/sleep'\nconst t = setTimeout(() => done(), 50)\nawait sleep(5)"
    expect(ownSleeps('test/engine/x.test.ts', text)).toEqual([])
  })
})
