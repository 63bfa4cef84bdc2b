// The engine refuses some input only it can judge (a time past the deployment's horizon, a group id that a FIFO queue
// would not take, ...): its ValidationError names our fields. A Scheduler caller sent Scheduler fields, so the
// message names those instead.
import { ValidationError } from '../errors'
import { SchedulerValidationError } from './errors'

const SCHEDULER_FIELD: Record<string, string> = {
  runAt: 'ScheduleExpression',
  cron: 'ScheduleExpression',
  everyMs: 'ScheduleExpression',
  timezone: 'ScheduleExpressionTimezone',
  startAt: 'StartDate',
  endAt: 'EndDate',
  groupId: 'Target.SqsParameters.MessageGroupId',
  payload: 'Target.Input',
  queue: 'Target.Arn',
}

/** Runs an engine write; its ValidationError comes out as a ValidationException naming the Scheduler fields. */
export async function inSchedulerTerms<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write()
  } catch (e) {
    if (!(e instanceof ValidationError)) throw e
    const message = e.details.map((d) => `${SCHEDULER_FIELD[d.path] ?? d.path}: ${d.message}`).join('; ')
    throw new SchedulerValidationError(message)
  }
}
