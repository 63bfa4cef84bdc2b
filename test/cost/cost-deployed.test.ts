// The bill prices what serverless.yml deploys (tools/cost/model.ts with tools/cost/cloudwatch.ts, cost-egress.ts and
// cost-peers.ts): CloudWatch metrics, alarms, dashboard and logs from the measured figures; Redis with and without a
// replica; NAT gateways; the free tier only when asked; the peers' plans and the crossover volume.
import { describe, expect, it } from 'vitest'
import { bill, type Scenario } from '../../tools/cost/model'
import { base, item, measured, total } from './fixtures'
import { alternatives, crossover } from '../../tools/cost/peers'

const idle: Scenario = { ...base, jobsPerMonth: 0, mode: 'on-demand', enqueue: 'direct', egress: 'ipv6' }

describe('the bill of what is deployed', () => {
  it('bills the idle metric every hour, an alarm per queue besides the 4, and the dashboard unless dropped', () => {
    // act
    const lines = bill({ ...idle, queues: 3 }, measured)
    const noDashboard = bill({ ...idle, queues: 5, dashboard: false }, measured)
    // assess: 1 metric all month at $0.30, 7 alarms at $0.10, $3 dashboard
    expect(item(lines, 'CloudWatch custom metrics')!.usd).toBeCloseTo(0.3)
    expect(item(lines, 'CloudWatch alarms')!.usd).toBeCloseTo(0.7)
    expect(item(lines, 'CloudWatch dashboard')!.usd).toBe(3)
    expect(item(noDashboard, 'CloudWatch alarms')!.usd).toBeCloseTo(0.9)
    expect(item(noDashboard, 'CloudWatch dashboard')!.usd).toBe(0)
  })

  it('bills the busy count of metrics for every hour of a steady stream, and more log bytes than idle', () => {
    const busy = bill({ ...base, jobsPerMonth: 100e6, queues: 3 }, measured)
    const quiet = bill({ ...base, jobsPerMonth: 0, queues: 3 }, measured)
    expect(item(busy, 'CloudWatch custom metrics')!.usd).toBeCloseTo(14 * 0.3)
    expect(item(busy, 'CloudWatch Logs: scan')!.usd).toBeGreaterThan(item(quiet, 'CloudWatch Logs: scan')!.usd)
    // one API request: Lambda's lines and the access log line, 770 bytes at $0.50/GB
    expect(item(busy, 'CloudWatch Logs: API')!.usd).toBeCloseTo(((100e6 * 770) / 1e9) * 0.5)
  })

  it('bills two nodes with a replica (the default) and one without; ElastiCache Serverless the same either way', () => {
    const node = (replica?: boolean) =>
      item(bill({ ...base, redis: 'cache.t4g.medium', replica }, measured), 'Redis: cache.t4g.medium')!
    expect(node().usd).toBeCloseTo(2 * 730 * 0.052)
    expect(node(false).usd).toBeCloseTo(730 * 0.052)
    expect(node().item).toContain('replica')
    const serverless = (replica: boolean) => total(bill({ ...base, redis: 'serverless', replica }, measured))
    expect(serverless(true)).toBe(serverless(false))
  })

  it('bills a NAT gateway per AZ with its public IPv4 address and per GB', () => {
    const nat = item(bill({ ...base, egress: 'nat', endpointAzs: 2 }, measured), 'Egress: NAT gateway')!
    expect(nat.usd).toBeCloseTo(2 * 730 * (0.045 + 0.005) + ((10e6 * 600) / 1e9) * 0.045)
  })

  it('takes no free tier unless asked, and then at most what the deployment uses', () => {
    const without = bill(idle, measured)
    const withFree = bill({ ...idle, freeTier: true }, measured)
    expect(item(without, 'Free tier')).toBeUndefined()
    const free = item(withFree, 'Free tier')!.usd
    expect(free).toBeLessThan(0)
    // 1 metric, 7 alarms and the dashboard are all within the free tier, and the Lambda requests too
    expect(-free).toBeCloseTo(
      0.3 + 0.7 + 3 + item(without, 'Scan Lambda requests')!.usd + item(without, 'CloudWatch Logs: scan')!.usd,
      2,
    )
  })
})

describe('the peers', () => {
  const peer = (jobs: number, name: string) => alternatives(jobs).find((a) => a.system.startsWith(name))!.usd

  it('prices QStash on its fixed plan where cheaper, and Google Cloud Tasks at 2 operations a job after 1M free', () => {
    expect(peer(1e6, 'QStash')).toBeCloseTo(10)
    expect(peer(100e6, 'QStash')).toBe(420)
    expect(peer(400e6, 'QStash')).toBeCloseTo(4_000) // over 10M a day: pay as you go
    expect(peer(100e6, 'Google Cloud Tasks')).toBeCloseTo((200e6 - 1e6) * 0.4e-6)
    expect(peer(0.4e6, 'Google Cloud Tasks')).toBe(0)
  })

  it('finds the volume where ours becomes cheaper: a fixed $20 and $0.50/M against $1.40/M', () => {
    const at = crossover(
      (j) => 20 + (j / 1e6) * 0.5,
      (j) => (j / 1e6) * 1.4,
    )
    expect(at! / 1e6).toBeCloseTo(20 / 0.9, 3)
    expect(
      crossover(
        (j) => j,
        (j) => 2 * j,
      ),
    ).toBeNull()
  })
})
