// The package's main entry (`serverless-delay-queue`): DelayQueue, which writes straight to Redis, and the types and
// errors of its contract. Business Lambdas import `serverless-delay-queue/consumer`; callers of the deployed HTTP API
// import `serverless-delay-queue/api-client`.
export { DelayQueue, type BatchItemResult, type DelayQueueEngine, type QueueStats } from './direct/delay-queue'
export { loadConfig, type Config } from './config'
export type { ConnectOptions } from './store/redis/redis'
// The contract (src/contract/): what callers send and are answered, and the message consumers receive.
export type { FlowChange, FlowEntry, FlowSettingInput, FlowTarget } from './contract/flow'
export type { DispatchError, JobInput, JobStatus, JobView, QueueCounts, ScheduledJob } from './contract/job'
export type { JobMessage } from './contract/message'
export type { PendingJob, PendingPage } from './contract/page'
export type { ScheduleInput, ScheduleListPage, ScheduleView } from './contract/schedule'
export type { FlowControl } from './direct/flow-control'
export {
  ConfigError,
  DelayQueueError,
  JobDeadError,
  JobHeldError,
  JobDispatchingError,
  JobMaybeDispatchedError,
  IdempotencyKeyReusedError,
  JobExistsError,
  JobNotFoundError,
  OccurrenceOfScheduleError,
  PayloadTooLargeError,
  ScheduleChangedError,
  ScheduleNotFoundError,
  StoreUnavailableError,
  ValidationError,
} from './errors'
export type { ErrorDetail, ExistingJob } from './contract/errors'
