// One packaging of a service folder at a time, across processes: the tests' and the cost tool's `serverless package`
// runs share the folder's `.esbuild` and `.serverless` work areas.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { sleep } from './sleep'

/**
 * Runs `work` while this process holds `<serviceDir>/.esbuild/package.lock`. Two packagings of one folder at once
 * share its `.serverless` folder (serverless-esbuild copies every artifact there whatever --package says): with test
 * files running side by side, one's clean-up took the other's zip away (ENOENT on api.zip). So they take turns.
 */
export async function oneAtATime<T>(serviceDir: string, work: () => Promise<T>): Promise<T> {
  const lock = resolve(serviceDir, '.esbuild/package.lock')
  mkdirSync(dirname(lock), { recursive: true })
  for (;;) {
    try {
      writeFileSync(lock, String(process.pid), { flag: 'wx' })
      break
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e
      if (!holderAlive(lock)) rmSync(lock, { force: true })
      else await sleep(200)
    }
  }
  try {
    return await work()
  } finally {
    rmSync(lock, { force: true })
  }
}

/** False when the lock's holder has gone without removing it (a killed run); true while it may still be writing. */
function holderAlive(lock: string): boolean {
  let pid: number
  try {
    pid = Number(readFileSync(lock, 'utf8'))
  } catch {
    return true
  }
  if (!pid) return true
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code !== 'ESRCH'
  }
}
