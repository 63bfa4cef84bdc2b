// The dev folders import in one direction: what several of them share lives in devkit/, which imports none of them,
// and no folder loads one above it (a bench never loads a test's harness, the cost tool never loads a bench). The
// shipped code (src/, functions/, deploy/, the published sdq-poll bin) loads no dev folder at all. Every relative
// import, re-export, dynamic import() and require() of the tree is read and checked against the table below; probe
// files (never written to disk) prove that a new import against the direction fails.
import { readdirSync, readFileSync } from 'node:fs'
import { join, posix, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

const repo = resolve(__dirname, '../..')

/** The shipped code: open to every folder, and all that a shipped folder may load. */
const PRODUCT = ['src', 'functions', 'lua']
/** Which other top-level folders each folder may import besides PRODUCT. */
const MAY_IMPORT: Record<string, readonly string[]> = {
  devkit: [],
  scripts: [],
  examples: [],
  tools: ['devkit', 'tools/sdq-poll'],
  local: ['devkit', 'tools/sdq-poll'],
  bench: ['devkit', 'local', 'scripts', 'tools/sdq-poll'],
  // the tests also load what they test: the local stack, the tools, the examples, the build scripts
  test: ['devkit', 'local', 'tools', 'tools/sdq-poll', 'scripts', 'examples'],
  // shipped (the package, the Lambdas, the deploy plugins, the published bin): never a dev folder
  src: [],
  functions: [],
  deploy: [],
  'tools/sdq-poll': [],
}

/** The folder a repo-relative path belongs to: the published bin counts apart from the rest of tools/. */
function folderOf(path: string): string {
  return path.startsWith('tools/sdq-poll/') ? 'tools/sdq-poll' : path.split('/')[0]!
}

const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm

interface Source {
  path: string
  text: string
}

/** Each import of `sources` that crosses into a folder its own folder may not load, as "from -> to". */
function againstDirection(sources: readonly Source[]): string[] {
  const found: string[] = []
  for (const { path, text } of sources) {
    const from = folderOf(path)
    const allowed = MAY_IMPORT[from]
    if (!allowed) continue
    for (const [, spec] of text.matchAll(IMPORT)) {
      const target = posix.normalize(posix.join(posix.dirname(path), spec!))
      if (target.startsWith('..') || !target.includes('/')) continue
      const to = folderOf(target)
      if (to === from || allowed.includes(to) || PRODUCT.includes(to)) continue
      found.push(`${path} -> ${target}`)
    }
  }
  return found
}

function sourcesUnder(folder: string): Source[] {
  const out: Source[] = []
  for (const entry of readdirSync(join(repo, folder), { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !/\.(ts|mts|cts|mjs|cjs|js)$/.test(entry.name)) continue
    const full = join(entry.parentPath, entry.name)
    if (full.includes('node_modules') || full.includes('/.build/')) continue
    out.push({ path: relative(repo, full).split('\\').join('/'), text: readFileSync(full, 'utf8') })
  }
  return out
}

describe('dev folders import in one direction', () => {
  it('no file of the tree imports a folder its own folder may not load', () => {
    const tree = ['devkit', 'scripts', 'examples', 'tools', 'local', 'bench', 'test', 'src', 'functions', 'deploy']
    // this file's probes are text, not imports
    const sources = tree.flatMap(sourcesUnder).filter(({ path }) => path !== 'test/lint/dev-imports.test.ts')
    expect(sources.length).toBeGreaterThan(500)
    expect(againstDirection(sources)).toEqual([])
  })

  it.each([
    ['a bench loading the chaos harness', 'bench/chaos.ts', "import { runChaos } from '../test/chaos/run'"],
    ['the cost tool loading a bench', 'tools/cost/x.ts', "import { median } from '../../bench/data'"],
    ['the dev stack loading a test helper', 'local/x.ts', "const m = await import('../test/support/sqs')"],
    ['devkit loading the local stack', 'devkit/x.ts', "export { startRedis } from '../local/redis-server'"],
    ['the shipped bin loading devkit', 'tools/sdq-poll/x.ts', "const s = require('../../devkit/stats')"],
    ['the package loading a dev folder', 'src/x.ts', "import '../devkit/sleep'"],
    ['a test loading a bench', 'test/engine/x.test.ts', "import { until } from '../../bench/until'"],
  ])('refuses %s', (_what, path, text) => {
    expect(againstDirection([{ path, text }])).toHaveLength(1)
  })

  it.each([
    ['a test loading the local stack', 'test/x.test.ts', "import { startRedis } from '../local/redis-server'"],
    ['a bench loading devkit', 'bench/x.ts', "import { median } from '../devkit/stats'"],
    ['the dev stack loading the published poller', 'local/x.ts', "import { s } from '../tools/sdq-poll/sqs-poller'"],
    ['a folder loading itself and src', 'tools/cost/x.ts', "import { a } from './a'\nimport { b } from '../../src/b'"],
  ])('allows %s', (_what, path, text) => {
    expect(againstDirection([{ path, text }])).toEqual([])
  })
})
