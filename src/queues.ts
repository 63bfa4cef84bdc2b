// The target queues: QUEUES (name -> SQS queue URL) as the functions get it, the rule for a target name, and which
// names are FIFO queues. Read by the configuration at cold start, and by every part that routes by a job's queue.
import { ConfigError } from './errors'

/** QUEUES: JSON object `{"orders":"https://sqs..."}`, or `orders=https://sqs...,emails=https://sqs...`. */
export function parseQueues(raw: string | undefined): Record<string, string> {
  if (!raw?.trim()) throw new ConfigError('QUEUES', 'is required: name=url pairs or a JSON object')
  let entries: [string, unknown][]
  if (raw.trim().startsWith('{')) {
    let parsed: unknown
    try {
      parsed = JSON.parse(raw)
    } catch {
      throw new ConfigError('QUEUES', 'is not valid JSON')
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw new ConfigError('QUEUES', 'must be a JSON object of name -> queue URL')
    }
    entries = Object.entries(parsed)
  } else {
    entries = raw
      .split(',')
      .filter((s) => s.trim())
      .map((pair) => {
        const at = pair.indexOf('=')
        if (at < 1) throw new ConfigError('QUEUES', `"${pair}" is not name=url`)
        return [pair.slice(0, at).trim(), pair.slice(at + 1).trim()]
      })
  }
  const queues: Record<string, string> = Object.create(null)
  for (const [name, url] of entries) {
    if (!QUEUE_NAME.test(name)) throw new ConfigError('QUEUES', `"${name}" is not a valid queue name (${QUEUE_RULE})`)
    if (typeof url !== 'string' || !/^https?:\/\/\S+$/.test(url)) {
      throw new ConfigError('QUEUES', `the URL of "${name}" must be an http(s) URL`)
    }
    queues[name] = url
  }
  if (Object.keys(queues).length === 0) throw new ConfigError('QUEUES', 'names no queue')
  return queues
}

export const QUEUE_NAME = /^[A-Za-z0-9_-]{1,75}(\.fifo)?$/
export const QUEUE_RULE = '1-80 characters of [A-Za-z0-9_-], optionally ending in .fifo'

export const isFifoQueue = (name: string): boolean => name.endsWith('.fifo')
