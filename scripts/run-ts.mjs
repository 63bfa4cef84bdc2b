#!/usr/bin/env node
// Runs a TypeScript entry (bench, dev stack, fault-suite workers) the way Lambda runs our code:
// bundled by esbuild with Lua files inlined as text, node_modules left external.
// Usage: node scripts/run-ts.mjs <entry.ts> [args...]
import { build } from 'esbuild'
import { spawn } from 'node:child_process'
import { mkdirSync, renameSync } from 'node:fs'
import { basename, join, resolve } from 'node:path'
import { lambdaBundle } from './lambda-bundle.mjs'

export async function bundle(entry, outDir = '.build') {
  mkdirSync(outDir, { recursive: true })
  const outfile = resolve(join(outDir, basename(entry).replace(/\.ts$/, '.cjs')))
  // Written beside it and renamed over it (atomic): several processes bundle the same entry at once (test files
  // running the CLI side by side), and one must never run a file another is still writing (an empty file runs, prints
  // nothing and exits 0).
  const partial = `${outfile}.${process.pid}.${Date.now()}.partial`
  await build({
    ...lambdaBundle,
    entryPoints: [entry],
    outfile: partial,
    sourcemap: 'inline',
    logLevel: 'warning',
  })
  renameSync(partial, outfile)
  return outfile
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [entry, ...args] = process.argv.slice(2)
  if (!entry) {
    console.error('usage: node scripts/run-ts.mjs <entry.ts> [args...]')
    process.exit(2)
  }
  const outfile = await bundle(entry)
  const child = spawn(process.execPath, ['--enable-source-maps', outfile, ...args], { stdio: 'inherit' })
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig))
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)))
}
