// The functions as Lambda gets them: `serverless package --stage prod` of this tree (no credentials needed) into a
// temporary folder, each zip unzipped, and the handler bundles found in it. Used by the bundle and memory benches.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'

const root = process.cwd()

/** functions/<name>.js under `dir`, by function name. */
export function bundlesIn(dir: string): Map<string, string> {
  const found = new Map<string, string>()
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name)
      if (statSync(path).isDirectory()) walk(path)
      else if (/^functions\/[a-z-]+\.js$/.test(path.slice(dir.length + 1).replace(/^[^/]+\/(?=functions\/)/, ''))) {
        found.set(name.replace(/\.js$/, ''), path)
      }
    }
  }
  walk(dir)
  return found
}

/** Packages this tree; returns the folder (remove it when done). */
export function packageHere(): string {
  const out = mkdtempSync(join(tmpdir(), 'sdq-bundles-'))
  execFileSync(
    process.execPath,
    [resolve(root, 'node_modules/serverless/bin/serverless.js'), 'package', '--stage', 'prod', '--package', out],
    {
      cwd: root,
      env: { ...process.env, SDQ_ESBUILD_WORK_FOLDER: `.esbuild/bundles-${process.pid}` },
      stdio: 'ignore',
    },
  )
  for (const zip of readdirSync(out).filter((f) => f.endsWith('.zip'))) {
    const dir = join(out, zip.replace(/\.zip$/, ''))
    execFileSync('unzip', ['-q', '-o', join(out, zip), '-d', dir])
  }
  rmSync(resolve(root, `.esbuild/bundles-${process.pid}`), { recursive: true, force: true })
  return out
}
