// For the tests of one setting: the config loaded with the least it needs beside that setting, and the values of the
// setting it must refuse, each with a ConfigError naming the setting and the rule.
import { expect } from 'vitest'
import { loadConfig } from '../../src/config'
import { ConfigError } from '../../src/errors'

const base = { REDIS_URL: 'redis://127.0.0.1:6379', QUEUES: 'orders=http://127.0.0.1:1/q' }

export const configWith = (env: Record<string, string> = {}) => loadConfig({ ...base, ...env })

export function expectRefused(setting: string, refusals: [value: string, rule: string][]): void {
  for (const [value, rule] of refusals) {
    const attempt = () => configWith({ [setting]: value })
    expect(attempt).toThrow(ConfigError)
    expect(attempt).toThrow(`invalid setting ${setting}: ${rule}`)
  }
}
