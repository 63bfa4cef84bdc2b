// `npm run cost` as a user types it: a mistyped option must stop the run, not print a bill that ignored it.
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'

const run = promisify(execFile)

async function cost(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['scripts/run-ts.mjs', 'tools/cost/cli.ts', ...args])
    return { code: 0, stdout, stderr }
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string }
    return { code: err.code, stdout: err.stdout, stderr: err.stderr }
  }
}

describe('npm run cost', () => {
  it('refuses an option it does not know (--window for --window-ms) and shows the usage', async () => {
    const r = await cost('--jobs-per-month', '1000000', '--window', '1000')

    expect(r.code).toBe(2)
    expect(r.stderr).toContain('unknown option --window')
    expect(r.stderr).toContain('--window-ms W')
    expect(r.stdout).not.toContain('total')
  })

  it('prints the usage for --help and exits 0', async () => {
    const r = await cost('--help')

    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^usage: npm run cost -- --jobs-per-month N/)
  })

  it('prints a bill that applies --window-ms', async () => {
    const r = await cost('--jobs-per-month', '1000000', '--window-ms', '1000')

    expect(r.code).toBe(0)
    expect(r.stdout).toContain('with a 1000 ms dispatch window')
    expect(r.stdout).toMatch(/total\s+\$\d+\.\d\d/)
  })

  it('prints the CloudWatch lines from the metric code, Redis with a replica, and no free tier unless asked', async () => {
    const r = await cost('--jobs-per-month', '0', '--mode', 'on-demand', '--enqueue', 'direct')
    const free = await cost('--jobs-per-month', '0', '--mode', 'on-demand', '--enqueue', 'direct', '--free-tier')

    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(
      /CloudWatch custom metrics \(scan EMF\)\s+\$0\.30\s+1\.0 metric-months \(1 idle, 8 with jobs pending, 14 sending, 3 queues/,
    )
    expect(r.stdout).toMatch(/CloudWatch alarms\s+\$0\.70/)
    expect(r.stdout).toMatch(/CloudWatch dashboard\s+\$3\.00/)
    expect(r.stdout).toContain('Redis with a replica, no free tier')
    expect(r.stdout).not.toContain('Free tier')
    expect(free.stdout).toMatch(/Free tier .*-\$/)
  })
})
