#!/usr/bin/env node
// The `sdq-poll` command. Installed from the package, it runs the bundle `npm run build` made (dist/). In a clone of
// this repository, where the TypeScript source is and dist/ may be missing or stale, it bundles the source on the fly
// the way the project's own npm scripts run TypeScript (scripts/run-ts.mjs), so `npx sdq-poll` works without a build.
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const source = join(root, 'tools', 'sdq-poll', 'sdq-poll.ts')

if (!existsSync(source)) {
  await import(pathToFileURL(join(root, 'dist', 'bin', 'sdq-poll.js')).href)
} else {
  const { bundle } = await import(pathToFileURL(join(root, 'scripts', 'run-ts.mjs')).href)
  const outfile = await bundle(source, join(root, '.build'))
  const child = spawn(process.execPath, ['--enable-source-maps', outfile, ...process.argv.slice(2)], {
    stdio: 'inherit',
  })
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal))
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)))
}
