// The operator CLI as an operator types it (`npm run sdq -- <args>`: scripts/run-ts.mjs on src/ops/sdq.ts), in a
// process of its own, and the store it is pointed at.
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { inject } from 'vitest'
import { testStore, uniquePrefix } from './engine'

const run = promisify(execFile)

export interface SdqRun {
  code: number
  stdout: string
  stderr: string
}

/** Runs the CLI with `env` over this process's; a failing exit is an answer too (its code and stderr). */
export async function runSdq(env: Record<string, string>, ...args: string[]): Promise<SdqRun> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['scripts/run-ts.mjs', 'src/ops/sdq.ts', ...args], {
      env: { ...process.env, ...env },
    })
    return { code: 0, stdout, stderr }
  } catch (e) {
    const err = e as SdqRun
    return { code: err.code, stdout: err.stdout, stderr: err.stderr }
  }
}

/** The lines of a run that succeeded, each a JSON object (the CLI prints one per line). */
export function jsonLines(r: SdqRun): Record<string, any>[] {
  if (r.code !== 0) throw new Error(`sdq exited with ${r.code}: ${r.stderr}`)
  return r.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line))
}

/**
 * A store in the CLI's default layout (SHARDS 1, DUE_BUCKETS 16384) on the suite's redis-server, under a key prefix
 * of its own, and the env that points the CLI at it with `queues` (their URLs lead nowhere).
 */
export function cliStage(name: string, queues: string[]) {
  const prefix = uniquePrefix(name)
  const t = testStore({ prefix, shards: 1, buckets: 16_384 })
  const env = {
    REDIS_URL: inject('redisUrl'),
    KEY_PREFIX: prefix,
    QUEUES: queues.map((q) => `${q}=http://127.0.0.1:9/q/${q}`).join(','),
  }
  return { t, env }
}
