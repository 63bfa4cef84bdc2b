#!/usr/bin/env node
// The `sdq-poll` command. Installed from the package, it runs the bundle `npm run build` made (dist/). In a clone of
// this repository, where the TypeScript source is and dist/ may be missing or stale, it bundles the source on the fly
// the way the project's own npm scripts run TypeScript (scripts/run-ts.mjs), so `npx sdq-poll` works without a build.
const { existsSync } = require('node:fs')
const { join } = require('node:path')
const { pathToFileURL } = require('node:url')

const root = join(__dirname, '..')
const source = join(root, 'tools', 'sdq-poll', 'sdq-poll.ts')

if (!existsSync(source)) {
  require('../dist/bin/sdq-poll.js')
} else {
  runFromSource().catch((error) => {
    console.error(error)
    process.exit(1)
  })
}

async function runFromSource() {
  const { bundle } = await import(pathToFileURL(join(root, 'scripts', 'run-ts.mjs')).href)
  const { spawn } = require('node:child_process')
  const outfile = await bundle(source, join(root, '.build'))
  const child = spawn(process.execPath, ['--enable-source-maps', outfile, ...process.argv.slice(2)], {
    stdio: 'inherit',
  })
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal))
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)))
}
