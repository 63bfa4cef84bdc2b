// A ScheduleExpression read into what the engine runs: a one-time job (at), or a recurring schedule (cron, rate).
import { atExpressionMs } from './at-expression'
import { cronPattern, rateEveryMs } from './aws-cron'
import { SchedulerValidationError } from './errors'

export type Recurrence =
  | { kind: 'at'; atMs: number }
  | { kind: 'cron'; cron: string }
  | { kind: 'rate'; everyMs: number }

export function readExpression(expression: string, zone?: string): Recurrence {
  if (expression.startsWith('at(')) return { kind: 'at', atMs: atExpressionMs(expression, zone) }
  if (expression.startsWith('cron(')) return { kind: 'cron', cron: cronPattern(expression) }
  if (expression.startsWith('rate(')) return { kind: 'rate', everyMs: rateEveryMs(expression) }
  throw new SchedulerValidationError(
    `Invalid ScheduleExpression "${expression}": expected at(yyyy-mm-ddThh:mm:ss), cron(...) or rate(...).`,
  )
}
