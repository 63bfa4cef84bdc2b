// The package's main entry (`serverless-delay-queue`): DelayQueue, which writes straight to Redis, and the types and
// errors of its contract. Business Lambdas import `serverless-delay-queue/consumer`; callers of the deployed HTTP API
// import `serverless-delay-queue/api-client`.
export {
  DelayQueue,
  type BatchItemResult,
  type DelayQueueEngine,
  type JobInput,
  type QueueStats,
  type ScheduledJob,
  type ScheduleInput,
  type ScheduleListPage,
  type ScheduleView,
} from './direct/delay-queue'
export { loadConfig, type Config } from './config'
export type { FlowChange, FlowControl } from './direct/flow-control'
export type { FlowSettingInput, FlowTarget } from './flow/flow-names'
export type { FlowEntry } from './flow/flow-settings'
export type { ConnectOptions } from './store/redis/redis'
export type { DispatchError, JobStatus, JobView, QueueCounts } from './store/job-store'
export type { PendingJob, PendingPage } from './store/pending-page'
export type { JobMessage } from './sqs/envelope'
export {
  ConfigError,
  DelayQueueError,
  JobDeadError,
  JobDispatchingError,
  JobMaybeDispatchedError,
  IdempotencyKeyReusedError,
  JobExistsError,
  type ExistingJob,
  JobNotFoundError,
  OccurrenceOfScheduleError,
  PayloadTooLargeError,
  ScheduleChangedError,
  ScheduleNotFoundError,
  StoreUnavailableError,
  ValidationError,
  type ErrorDetail,
} from './errors'
