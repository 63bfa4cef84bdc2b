// The page's script and styles, bundled once when the server starts (esbuild, from src/ops/dashboard/browser/):
// lit-html for escaped templates, uPlot for the lateness chart. No build step, nothing written to disk.
import { build } from 'esbuild'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'

export interface BrowserBundle {
  js: string
  css: string
}

/** The repository root: the nearest folder up from here with src/ops/dashboard (this file may run bundled). */
function repoRoot(): string {
  for (let dir = __dirname; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'src/ops/dashboard/browser/app.ts'))) return dir
    if (dirname(dir) === dir)
      throw new Error(`dashboard: src/ops/dashboard/browser/app.ts not found above ${__dirname}`)
  }
}

let cached: Promise<BrowserBundle> | undefined

export function buildBrowserBundle(): Promise<BrowserBundle> {
  cached ??= bundle()
  return cached
}

async function bundle(): Promise<BrowserBundle> {
  const root = repoRoot()
  const result = await build({
    entryPoints: [join(root, 'src/ops/dashboard/browser/app.ts')],
    bundle: true,
    write: false,
    format: 'esm',
    target: 'es2022',
    minify: true,
    logLevel: 'warning',
  })
  const uplotCss = readFileSync(require.resolve('uplot/dist/uPlot.min.css', { paths: [root] }), 'utf8')
  const ownCss = readFileSync(resolve(root, 'src/ops/dashboard/browser/app.css'), 'utf8')
  return { js: result.outputFiles[0]!.text, css: `${uplotCss}\n${ownCss}` }
}
