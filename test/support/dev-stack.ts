// The local stack (`npm run dev`, local/dev-stack.ts) for the tests of one file: started before them on the suite's
// redis-server, every line it prints kept for the tests to read (its parts' as they are, its own as `[dev] ...`),
// stopped after them. A file's own hooks registered after this run after the start and before the stop.
import { afterAll, beforeAll, inject } from 'vitest'
import { startDevStack, type DevStack, type DevStackOptions } from '../../local/dev-stack'

export interface FileDevStack {
  /** The running stack (throws before the file's beforeAll has started it, or when its start failed). */
  readonly stack: DevStack
  readonly output: string[]
}

/** Registers the file's beforeAll (the start, up to 180 s) and afterAll (the stop, up to `stopTimeoutMs`). */
export function devStackForFile(
  options: Omit<DevStackOptions, 'redisUrl' | 'onOutput' | 'log'>,
  stopTimeoutMs = 60_000,
): FileDevStack {
  let started: DevStack | undefined
  const output: string[] = []
  beforeAll(async () => {
    started = await startDevStack({
      redisUrl: inject('redisUrl'),
      ...options,
      onOutput: (line) => output.push(line),
      log: (line) => output.push(`[dev] ${line}`),
    })
  }, 180_000)
  afterAll(async () => {
    await started?.stop()
  }, stopTimeoutMs)
  return {
    get stack() {
      if (!started) throw new Error('the dev stack is not running: its start in beforeAll failed or has not run yet')
      return started
    },
    output,
  }
}
