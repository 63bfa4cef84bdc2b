// `serverless-delay-queue/api-client`: the deployed HTTP API, signed with SigV4, from another service.
export { DelayQueueApiClient } from './api-client'
export { DelayQueueApiError, JobConflictError, type ApiErrorCode, type ApiErrorDetail } from './errors'
export type { Credentials, SigningService } from './signer'
export type { RetryPolicy } from './transport'
export type { ApiFlowControl, FlowChange, FlowEntry, FlowSettingInput, FlowTarget } from './flow'
// types.ts holds exactly what the API takes and answers: all of it is this entry's public surface.
export type * from './types'
