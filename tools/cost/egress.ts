// How the functions in the VPC reach SQS (and enqueuers reach Lambda's Invoke API in on-demand mode), priced: IPv6
// through an egress-only internet gateway (no charge), interface endpoints per AZ and endpoint, or a NAT gateway per
// AZ (with its public IPv4 address and a charge per GB). serverless.yml's `egress` parameter.
import { HOURS_PER_MONTH, PRICES } from './prices'

export type Egress = 'endpoints' | 'ipv6' | 'nat' | 'outside'
export const EGRESS: readonly Egress[] = ['ipv6', 'endpoints', 'nat', 'outside']

export interface EgressInput {
  egress: Egress
  /** AZs the functions run in: one endpoint (or NAT gateway) per AZ each (0: the VPC already has them). */
  endpointAzs: number
  mode: 'continuous' | 'on-demand'
  jobsPerMonth: number
  /** SQS message size on the wire. */
  messageBytes: number
  /** With `endpoints`: the services whose interface endpoints the template creates (default: SQS, and Lambda on
   * demand). */
  vpcEndpoints?: string[]
}

export function egressLines(s: EgressInput): { item: string; quantity: string; usd: number }[] {
  if (s.egress === 'ipv6')
    return [
      {
        item: 'Egress: IPv6 through an egress-only internet gateway',
        quantity: 'no hourly or per-GB charge; SQS data transfer within a Region is free',
        usd: 0,
      },
    ]
  if (s.egress === 'outside')
    return [
      {
        item: "Egress: the VPC's own route to SQS and Lambda",
        quantity:
          'endpoints or a NAT gateway the template does not create: not priced (createEndpoints=true prices them)',
        usd: 0,
      },
    ]
  const gb = (s.jobsPerMonth * s.messageBytes) / 1e9
  const hours = s.endpointAzs * HOURS_PER_MONTH
  if (s.endpointAzs === 0) return [{ item: `Egress: ${s.egress} already in the VPC`, quantity: 'not priced', usd: 0 }]
  if (s.egress === 'nat')
    return [
      {
        item: `Egress: NAT gateway (${s.endpointAzs} AZ, with its public IPv4 address)`,
        quantity: `${hours} gateway-hours + ${hours} IPv4 address-hours + ${gb.toFixed(2)} GB`,
        usd: hours * (PRICES.natGatewayHour.usd + PRICES.publicIpv4Hour.usd) + gb * PRICES.natGatewayGb.usd,
      },
    ]
  if (s.vpcEndpoints)
    return s.vpcEndpoints.map((name) => ({
      item: `${name === 'sqs' ? 'SQS' : name === 'lambda' ? 'Lambda' : name} interface VPC endpoint (${s.endpointAzs} AZ, in the template)`,
      quantity: `${hours} endpoint-hours${name === 'sqs' ? ` + ${gb.toFixed(2)} GB` : ''}`,
      usd: hours * PRICES.interfaceEndpointHour.usd + (name === 'sqs' ? gb * PRICES.interfaceEndpointGb.usd : 0),
    }))
  const lines = [
    {
      item: `SQS interface VPC endpoint (${s.endpointAzs} AZ)`,
      quantity: `${hours} endpoint-hours + ${gb.toFixed(2)} GB`,
      usd: hours * PRICES.interfaceEndpointHour.usd + gb * PRICES.interfaceEndpointGb.usd,
    },
  ]
  // On-demand: whoever enqueues from inside the VPC calls Lambda's Invoke API to start scans.
  if (s.mode === 'on-demand')
    lines.push({
      item: `Lambda interface VPC endpoint (${s.endpointAzs} AZ, scan starts)`,
      quantity: `${hours} endpoint-hours`,
      usd: hours * PRICES.interfaceEndpointHour.usd,
    })
  return lines
}
