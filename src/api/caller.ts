// Who calls, for the count of deep pages of GET /jobs (src/store/deep-page-rate.ts): the IAM principal API Gateway or
// the function URL authorized, else the source address (an API without authorization, the local stack).
//
// An assumed role's ARN names the session too (arn:aws:sts::ACCOUNT:assumed-role/ROLE/SESSION), and whoever assumes
// the role chooses the session name: counted by it, a caller would get a fresh allowance with every new session name.
// So a role's sessions share one count.
import type { APIGatewayProxyEventV2 } from 'aws-lambda'

const ASSUMED_ROLE_SESSION = /^(arn:[^:]+:sts::[^:]*:assumed-role\/[^/]+)\/.*$/s

/** The caller as the deep-page count names it: `iam:<principal>` (an assumed role without its session), `ip:<address>`. */
export function callerOf(event: APIGatewayProxyEventV2): string | null {
  const context = event.requestContext as { authorizer?: { iam?: { userArn?: string } }; http?: { sourceIp?: string } }
  const arn = context?.authorizer?.iam?.userArn
  if (arn) return `iam:${arn.replace(ASSUMED_ROLE_SESSION, '$1')}`
  const ip = context?.http?.sourceIp
  return ip ? `ip:${ip}` : null
}
