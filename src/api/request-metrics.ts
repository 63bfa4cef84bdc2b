// API request metrics: per route, one EMF line per request (Powertools Metrics) with ApiRequests and, as 0 or 1,
// Api4xx and Api5xx, so CloudWatch sums give counts and averages give error rates. Runs after the error mapper has
// turned a failure into its answer, so both see the same status.
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics'
import type { MiddlewareObj, Request } from '@middy/core'
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda'
import type { ApiResponse } from './response'
import { ROUTES, matchRoute } from './router'

export const API_METRICS_NAMESPACE = 'DelayQueue'

type ApiRequest = Request<APIGatewayProxyEventV2, ApiResponse, Error, Context>

/** The route's template ("GET /jobs/{id}"), or "unmatched": ids never become dimension values. */
export function routeKey(event: APIGatewayProxyEventV2): string {
  try {
    const name = matchRoute(event).name
    return ROUTES.find((r) => r.name === name)!.key
  } catch {
    return 'unmatched'
  }
}

export function requestMetrics(
  serviceName: string,
): MiddlewareObj<APIGatewayProxyEventV2, ApiResponse, Error, Context> {
  const emit = (request: ApiRequest) => {
    const status = request.response?.statusCode ?? 500
    const metrics = new Metrics({ namespace: API_METRICS_NAMESPACE, serviceName })
    metrics.addDimension('route', routeKey(request.event))
    metrics.addMetric('ApiRequests', MetricUnit.Count, 1)
    metrics.addMetric('Api4xx', MetricUnit.Count, status >= 400 && status < 500 ? 1 : 0)
    metrics.addMetric('Api5xx', MetricUnit.Count, status >= 500 ? 1 : 0)
    metrics.publishStoredMetrics()
  }
  return { name: 'sdq-request-metrics', after: emit, onError: emit }
}
