// The running dev stack's addresses in a file (default `.dev/env` of this repository), so that another service on
// the same machine finds them without copying ports: `KEY=value` lines a shell can source, and `sdq-poll --env` reads.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'

export interface DevEnv {
  /** The HTTP API (what the api-client takes as its url). */
  DELAY_QUEUE_API_URL: string
  /** The Scheduler-compatible API: @aws-sdk/client-scheduler's `endpoint`. */
  SCHEDULER_ENDPOINT?: string
  REDIS_URL: string
  /** Target name -> local queue URL, as the functions get it: `orders=http://...,emails=http://...`. */
  QUEUES: string
  /** Target name -> its DLQ's local URL, same format. */
  DEAD_LETTER_QUEUES: string
  SQS_ENDPOINT: string
  AWS_REGION: string
}

const HEADER = '# Written by the serverless-delay-queue dev stack while it runs (removed when it stops).\n'

/**
 * Credentials for the local stack only (fauxqs and serverless-offline accept any): with them, a service that sources
 * the file can use the api-client (it signs requests) and the SDK against the local endpoints without real ones.
 */
const LOCAL_CREDENTIALS = { AWS_ACCESS_KEY_ID: 'local', AWS_SECRET_ACCESS_KEY: 'local' }

export function writeDevEnv(path: string, env: DevEnv): void {
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(
    path,
    HEADER +
      Object.entries({ ...env, ...LOCAL_CREDENTIALS })
        .map(([k, v]) => `${k}=${v}\n`)
        .join(''),
  )
}

export function removeDevEnv(path: string): void {
  rmSync(path, { force: true })
}

export function readDevEnv(path: string): Record<string, string> {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch {
    throw new Error(`${path} not found: is the delay queue's dev stack running (npm run dev in its repository)?`)
  }
  const env: Record<string, string> = {}
  for (const line of text.split('\n')) {
    const m = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line.trim())
    if (m) env[m[1]!] = m[2]!
  }
  return env
}

/** `orders=http://a,emails=http://b` -> { orders: 'http://a', emails: 'http://b' } */
export function parseNamedUrls(list: string | undefined): Record<string, string> {
  const out: Record<string, string> = {}
  for (const part of (list ?? '').split(',')) {
    const at = part.indexOf('=')
    if (at > 0) out[part.slice(0, at).trim()] = part.slice(at + 1).trim()
  }
  return out
}
