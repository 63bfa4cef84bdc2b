// The chaos run's child processes (scanners, the API): bundled once per run with esbuild the way Lambda gets the
// code (Lua inlined as text; only the AWS SDK left out, as the runtime provides it), started with an explicit
// environment that carries the test run's marker (test/support/leftovers.ts), and ready once they print so.
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, rmSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { build } from 'esbuild'
import { stopChild } from '../../local/redis-server'
import { runMarker } from '../support/leftovers'

/** The repository's root, found from this module up (it runs from test/chaos/ under vitest, bundled from .build/). */
export const ROOT = (() => {
  for (let dir = __dirname; dirname(dir) !== dir; dir = dirname(dir)) {
    if (existsSync(resolve(dir, 'scripts/run-ts.mjs'))) return dir
  }
  throw new Error(`scripts/run-ts.mjs not found above ${__dirname}`)
})()

const bundles = new Map<string, Promise<string>>()

/** test/chaos/<name>.ts bundled to .build/chaos-<pid>/<name>.cjs (once per process). */
export function bundled(name: string): Promise<string> {
  let out = bundles.get(name)
  if (!out) {
    const dir = resolve(ROOT, '.build', `chaos-${process.pid}`)
    if (bundles.size === 0) process.once('exit', () => rmSync(dir, { recursive: true, force: true }))
    const outfile = resolve(dir, `${name}.cjs`)
    out = build({
      entryPoints: [resolve(ROOT, 'test/chaos', `${name}.ts`)],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node24',
      external: ['@aws-sdk/*'],
      loader: { '.lua': 'text' },
      logLevel: 'error',
    }).then(() => outfile)
    bundles.set(name, out)
  }
  return out
}

/** Starts a bundled entry; resolves with the child and its "ready" line once it prints one. */
export async function startProcess(
  name: string,
  env: Record<string, string>,
  /** Each JSON line it prints after its "ready" line, as it arrives (else its output is read and dropped). */
  onLine?: (entry: Record<string, unknown>) => void,
): Promise<{ child: ChildProcess; ready: Record<string, unknown> }> {
  const file = await bundled(name)
  const child = spawn(process.execPath, [file], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', NODE_PATH: resolve(ROOT, 'node_modules'), ...runMarker(), ...env },
    stdio: ['ignore', 'pipe', 'ignore'],
  })
  try {
    let out = ''
    const ready = await new Promise<Record<string, unknown>>((ok, fail) => {
      const timer = setTimeout(() => fail(new Error(`${name} not ready within 30 s`)), 30_000)
      child.stdout!.on('data', (d) => {
        if (out.length > 100_000) return
        out += d
        const lines = out.split('\n')
        const at = lines.findIndex((l, i) => i < lines.length - 1 && l.includes('"event":"ready"'))
        if (at >= 0) {
          clearTimeout(timer)
          out = lines.slice(at + 1).join('\n')
          ok(JSON.parse(lines[at]!) as Record<string, unknown>)
        }
      })
      child.once('exit', (code, signal) => {
        clearTimeout(timer)
        fail(new Error(`${name} exited (${code ?? signal}) before it was ready`))
      })
    })
    // Keep reading its output (the pipe must not fill up): handed on line by line, or dropped.
    child.stdout!.removeAllListeners('data')
    if (onLine) {
      const take = (d: string | Buffer) => {
        out += d
        for (let at = out.indexOf('\n'); at >= 0; at = out.indexOf('\n')) {
          const entry = parsed(out.slice(0, at))
          out = out.slice(at + 1)
          if (entry) onLine(entry)
        }
      }
      take('')
      child.stdout!.on('data', take)
    }
    child.stdout!.resume()
    return { child, ready }
  } catch (e) {
    await stopChild(child)
    throw e
  }
}

function parsed(line: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(line) as Record<string, unknown>
  } catch {
    return undefined // not one of its JSON lines
  }
}
