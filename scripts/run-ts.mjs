#!/usr/bin/env node
// Runs a TypeScript entry (bench, dev stack, fault-suite workers) the way Lambda runs our code:
// bundled by esbuild with Lua files inlined as text, node_modules left external.
// Usage: node scripts/run-ts.mjs <entry.ts> [args...]
import { build } from 'esbuild'
import { spawn } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { basename, join, resolve } from 'node:path'
import { lambdaBundle } from './lambda-bundle.mjs'

export async function bundle(entry, outDir = '.build') {
  mkdirSync(outDir, { recursive: true })
  const outfile = resolve(join(outDir, basename(entry).replace(/\.ts$/, '.cjs')))
  await build({
    ...lambdaBundle,
    entryPoints: [entry],
    outfile,
    sourcemap: 'inline',
    logLevel: 'warning',
  })
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
