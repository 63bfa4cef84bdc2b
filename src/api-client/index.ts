// `serverless-delay-queue/api-client`: the deployed HTTP API, signed with SigV4, from another service.
export { DelayQueueApiClient } from './client'
export { DelayQueueApiError, JobConflictError, type ApiErrorCode, type ApiErrorDetail } from './errors'
export type { Credentials } from './signer'
export type { RetryPolicy } from './transport'
export type {
  ApiClientOptions,
  BatchResult,
  JobInput,
  JobView,
  QueueStats,
  ScheduledJob,
  ScheduleInput,
  ScheduleListPage,
  ScheduleView,
} from './types'
