#!/usr/bin/env node
// Runs a bench entry that loads the consumer toolkit: as scripts/run-ts.mjs, but with middy bundled in. middy is
// ESM-only with no `require` export, so the CommonJS bundle cannot load it from node_modules; the Lambda bundles
// (serverless-esbuild) inline it the same way.
// Usage: node bench/run-with-middy.mjs <entry.ts> [args...]
import { build } from 'esbuild'
import { spawn } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { basename, join, resolve } from 'node:path'
import { lambdaBundle } from '../scripts/lambda-bundle.mjs'

const [entry, ...args] = process.argv.slice(2)
mkdirSync('.build', { recursive: true })
const outfile = resolve(join('.build', basename(entry).replace(/\.ts$/, '.cjs')))
const { packages: _all, ...settings } = lambdaBundle
await build({
  ...settings,
  entryPoints: [entry],
  outfile,
  sourcemap: 'inline',
  logLevel: 'warning',
  plugins: [
    {
      name: 'external-but-middy',
      setup(b) {
        b.onResolve({ filter: /^[^./]/ }, (a) => (a.path.startsWith('@middy/') ? undefined : { external: true }))
      },
    },
  ],
})
const child = spawn(process.execPath, ['--enable-source-maps', outfile, ...args], { stdio: 'inherit' })
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig))
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)))
