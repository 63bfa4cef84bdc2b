#!/usr/bin/env node
// `npm run build` (and `npm pack` through prepack): the package's entry points as CommonJS in dist/, one bundle per
// entry with the Lua scripts inlined as text (users need no loader), plus the type declarations (tsc,
// tsconfig.build.json). The packages under `dependencies` stay require()s, except @middy/core (and its @middy/util),
// which is bundled: it is ESM-only (exports has no "require" condition), so neither Node's require() nor a user's
// esbuild could load it from CommonJS. It is a dependency all the same (the functions bundle it too), pinned, so a
// user's `npm audit` sees the very version inlined here. Any other package that would end up inlined fails the
// build: it belongs in dependencies.
import { build } from 'esbuild'
import { execFileSync } from 'node:child_process'
import { chmodSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const pkg = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8'))

export const ENTRIES = {
  index: 'src/index.ts',
  consumer: 'src/consumer/index.ts',
  'api-client': 'src/api-client/index.ts',
  'bin/sdq-poll': 'tools/sdq-poll/sdq-poll.ts',
}

// Inlined although listed in dependencies (ESM-only, above).
const BUNDLED = ['@middy/core', '@middy/util']

rmSync(resolve(root, 'dist'), { recursive: true, force: true })
const result = await build({
  absWorkingDir: root,
  entryPoints: ENTRIES,
  outdir: 'dist',
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node24',
  external: Object.keys(pkg.dependencies)
    .filter((name) => !BUNDLED.includes(name))
    .flatMap((name) => [name, `${name}/*`]),
  loader: { '.lua': 'text' },
  metafile: true,
  logLevel: 'warning',
})
const bin = resolve(root, 'dist/bin/sdq-poll.js')
writeFileSync(bin, `#!/usr/bin/env node\n${readFileSync(bin, 'utf8')}`)
chmodSync(bin, 0o755)

const inlined = new Set()
for (const input of Object.keys(result.metafile.inputs)) {
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input)
  if (m && !BUNDLED.includes(m[1])) inlined.add(m[1])
}
if (inlined.size) throw new Error(`dist would inline ${[...inlined].join(', ')}: add them to dependencies`)

const tsc = resolve(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin/tsc')
execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' })
