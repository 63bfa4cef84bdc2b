// Building API Gateway (payload v2) responses: JSON bodies, always with a content type, never cached.
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda'

export type ApiResponse = APIGatewayProxyStructuredResultV2 & { statusCode: number; headers: Record<string, string> }

export function json(statusCode: number, body: unknown, headers: Record<string, string> = {}): ApiResponse {
  return {
    statusCode,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers },
    body: JSON.stringify(body),
  }
}

export function noContent(): ApiResponse {
  return { statusCode: 204, headers: { 'cache-control': 'no-store' } }
}

/** Where a job can be looked up. Every id character ([A-Za-z0-9_.:-]) is legal in a path segment as is. */
export function jobLocation(id: string): string {
  return `/jobs/${id}`
}

/** Where a schedule can be looked up (schedule ids use the same path-safe characters as job ids). */
export function scheduleLocation(id: string): string {
  return `/schedules/${id}`
}
