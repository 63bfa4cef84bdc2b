// `npm run cost -- --free-tier`: the account's always-free AWS tiers taken off the bill (off by default: an account
// running anything else uses them already).
import { FREE_TIER, PRICES } from './prices'

/** The account's always-free tiers, as far as this deployment uses them (nothing else in the account using them). */
export function freeTierLine(u: {
  lambdaRequests: number
  lambdaGbSeconds: number
  sqsRequests: number
  metricMonths: number
  alarms: number
  dashboards: number
  logsGb: number
}): { item: string; quantity: string; usd: number } {
  const off = (used: number, free: number, price: number) => Math.min(used, free) * price
  const usd =
    off(u.lambdaRequests, FREE_TIER.lambdaRequests, PRICES.lambdaRequest.usd) +
    off(u.lambdaGbSeconds, FREE_TIER.lambdaGbSeconds, PRICES.lambdaGbSecondArm.usd) +
    off(u.sqsRequests, FREE_TIER.sqsRequests, PRICES.sqsRequest.usd) +
    off(u.metricMonths, FREE_TIER.cloudWatchMetrics, PRICES.cloudWatchMetricMonth.usd) +
    off(u.alarms, FREE_TIER.cloudWatchAlarms, PRICES.cloudWatchAlarmMonth.usd) +
    off(u.dashboards, FREE_TIER.cloudWatchDashboards, PRICES.cloudWatchDashboardMonth.usd) +
    off(u.logsGb, FREE_TIER.logsIngestGb, PRICES.logsIngestGb.usd)
  return {
    item: 'Free tier (--free-tier: Lambda, SQS, CloudWatch always-free, if unused elsewhere)',
    quantity: '1M Lambda requests, 400K GB-s, 1M SQS requests, 10 metrics, 10 alarms, 3 dashboards, 5 GB logs',
    usd: -usd,
  }
}
