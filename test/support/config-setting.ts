// For the tests of one setting: the config loaded with the least it needs beside that setting, and the values of the
// setting it must refuse, each with a ConfigError naming the setting and the rule.
import { expect } from 'vitest'
import { type Config, loadConfig } from '../../src/config'
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

/**
 * A whole-number setting from `min` to `max`: unset, it reads as `byDefault`; both bounds are taken as they are; one
 * past either bound, a negative number and a number with a unit are refused, each naming the setting and the rule.
 */
export function expectWholeNumberSetting(
  setting: string,
  read: (config: Config) => number,
  { byDefault, min, max }: { byDefault: number; min: number; max: number },
): void {
  expect(read(configWith())).toBe(byDefault)
  for (const bound of [min, max]) expect(read(configWith({ [setting]: String(bound) }))).toBe(bound)
  const past = min > 0 ? [max + 1, min - 1] : [max + 1]
  expectRefused(setting, [
    ...past.map((n): [string, string] => [String(n), `must be between ${min} and ${max}, got ${n}`]),
    ['-5', 'must be a whole number, got "-5"'],
    ['1s', 'must be a whole number, got "1s"'],
  ])
}
