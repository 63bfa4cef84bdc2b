// middy onError: every thrown error becomes the API's error answer (see error-response.ts).
import type { MiddlewareObj } from '@middy/core'
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda'
import { errorResponse } from './error-response'
import type { Log } from '../logger'
import type { ApiResponse } from './response'

export function errorMapper(log: Log): MiddlewareObj<APIGatewayProxyEventV2, ApiResponse, Error, Context> {
  return {
    name: 'sdq-error-mapper',
    onError(request) {
      request.response = errorResponse(request.error, log, request.context?.awsRequestId)
    },
  }
}
