// `npm run cost` as a user types it: it packages serverless.yml and prices that template, takes only usage from its
// flags (an option the template decides is refused, not ignored), and reads every figure the template decides from
// the template it is given.
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const run = promisify(execFile)

async function cost(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['scripts/run-ts.mjs', 'tools/cost/cli.ts', ...args], {
      maxBuffer: 16 << 20,
    })
    return { code: 0, stdout, stderr }
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string }
    return { code: err.code, stdout: err.stdout, stderr: err.stderr }
  }
}

type Json = Record<string, any>
const line = (lines: Json[], prefix: string): Json | undefined => lines.find((l) => l.item.startsWith(prefix))
const usdOf = (lines: Json[], prefix: string): number => line(lines, prefix)!.usd

describe('npm run cost', () => {
  let defaults: Json
  let dir: string

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sdq-cost-'))
    const r = await cost('--json')
    expect(r.code, r.stderr).toBe(0)
    defaults = JSON.parse(r.stdout)
  }, 120_000)
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('refuses an option the template decides (--mode) and shows the usage', async () => {
    const r = await cost('--mode', 'continuous')

    expect(r.code).toBe(2)
    expect(r.stderr).toContain('unknown option --mode')
    expect(r.stderr).toContain('--param NAME=VALUE')
    expect(r.stdout).toBe('')
  })

  it('prints the usage for --help and exits 0', async () => {
    const r = await cost('--help')

    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^usage: npm run cost -- \[--template FILE \| --param NAME=VALUE/)
  })

  it('packages the defaults and prints one JSON object for that template, within the targets', () => {
    expect(defaults.template).toBe('.serverless/cloudformation-template-update-stack.json')
    expect(defaults.decided.scan.mode).toBe('on-demand')
    expect(defaults.decided.api.frontDoor).toBe('functionUrl')
    expect(defaults.usage.jobsPerMonth).toBe(100_000_000)
    // the targets: per extra million jobs all-in <= $1.00, idle without Redis <= $3 a month
    expect(defaults.perExtraMillionJobsUsd).toBeGreaterThan(0.4) // at least the SQS sends
    expect(defaults.perExtraMillionJobsUsd).toBeLessThanOrEqual(1)
    expect(defaults.idleWithoutRedisUsdPerMonth).toBeLessThanOrEqual(3)
    expect(defaults.redisUsdPerMonth).toBeGreaterThan(0)
    // the lines the template implies: no API Gateway, no dashboard, the alarms it has, the example consumer's polling
    expect(line(defaults.bill, 'API Gateway')).toBeUndefined()
    expect(usdOf(defaults.bill, 'CloudWatch dashboard')).toBe(0)
    expect(line(defaults.bill, 'CloudWatch alarms')!.quantity).toBe(
      `${defaults.decided.alarms} alarms (from the template)`,
    )
    expect(line(defaults.consumer.lines, 'Consumer: SQS trigger polling')!.quantity).toMatch(/^657,000 requests/)
    expect(usdOf(defaults.bill, 'Cross-AZ transfer')).toBeGreaterThan(0)
    // Redis: each option at the usage and idle as the same kind; the cheapest replicated one is the figure
    expect(defaults.redisOptions.map((o: Json) => o.idleOption)).toEqual([
      'cache.t4g.micro Valkey primary + replica in another AZ',
      expect.stringMatching(/^ElastiCache Serverless/),
      'cache.t4g.micro Valkey node (one, no replica)',
    ])
    expect(defaults.redisUsdPerMonth).toBe(
      Math.min(...defaults.redisOptions.slice(0, 2).map((o: Json) => o.usdPerMonth)),
    )
  })

  it('reads what the template decides from --template: scan memory, dashboards, the log lines', async () => {
    // prepare: the default template with a 1,024 MB scan, a dashboard, Lambda's lines kept for the API, dropped for
    // the scan
    const template = JSON.parse(readFileSync(defaults.template, 'utf8'))
    template.Resources.ScanLambdaFunction.Properties.MemorySize = 1024
    template.Resources.ExtraDashboard = { Type: 'AWS::CloudWatch::Dashboard', Properties: {} }
    delete template.Resources.ApiLambdaFunction.Properties.LoggingConfig
    template.Resources.ScanLambdaFunction.Properties.LoggingConfig = { LogFormat: 'JSON', SystemLogLevel: 'WARN' }
    const file = join(dir, 'changed.json')
    writeFileSync(file, JSON.stringify(template))
    // act
    const r = await cost('--template', file, '--json')
    // assess
    expect(r.code, r.stderr).toBe(0)
    const changed: Json = JSON.parse(r.stdout)
    expect(changed.template).toContain('changed.json')
    expect(line(changed.bill, 'Scan Lambda compute')!.item).toContain('1024 MB')
    expect(usdOf(changed.bill, 'Scan Lambda compute')).toBeCloseTo(2 * usdOf(defaults.bill, 'Scan Lambda compute'), 2)
    expect(usdOf(changed.bill, 'CloudWatch dashboard')).toBe(3)
    expect(usdOf(defaults.bill, 'CloudWatch Logs: API')).toBe(0)
    expect(usdOf(changed.bill, 'CloudWatch Logs: API')).toBeGreaterThan(10)
    expect(usdOf(changed.bill, 'CloudWatch Logs: scan')).toBeLessThan(usdOf(defaults.bill, 'CloudWatch Logs: scan'))
    expect(changed.idleWithoutRedisUsdPerMonth - defaults.idleWithoutRedisUsdPerMonth).toBeCloseTo(3, 1)
  }, 60_000)
})
