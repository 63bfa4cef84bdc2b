// Invoice reminders with EventBridge Scheduler: one one-time schedule per invoice, due three days after it was sent,
// into an SQS queue; paying the invoice deletes the schedule. Written against the AWS SDK as for AWS: nothing here
// knows about the delay queue (client.ts is the only place that does).
import {
  ConflictException,
  CreateScheduleCommand,
  DeleteScheduleCommand,
  ResourceNotFoundException,
  type SchedulerClient,
} from '@aws-sdk/client-scheduler'

export interface ReminderTarget {
  /** The SQS queue the reminders go to. */
  queueArn: string
  /** The role Scheduler assumes to send to it (the delay queue accepts it and does not use it). */
  roleArn: string
}

export interface Reminder {
  invoiceId: string
  email: string
}

/** Schedule names are 1-64 of [0-9a-zA-Z-_.]. */
export const reminderName = (invoiceId: string) => `invoice-${invoiceId}-reminder`

/** at() takes a wall-clock time to the second, here in UTC. */
const atExpression = (ms: number) => `at(${new Date(ms).toISOString().slice(0, 19)})`

/** Schedules the reminder; false when one exists already (a retry of this call, or a second send of the invoice). */
export async function scheduleReminder(
  client: SchedulerClient,
  target: ReminderTarget,
  reminder: Reminder,
  dueMs: number,
): Promise<boolean> {
  try {
    await client.send(
      new CreateScheduleCommand({
        Name: reminderName(reminder.invoiceId),
        ScheduleExpression: atExpression(dueMs),
        FlexibleTimeWindow: { Mode: 'OFF' },
        ActionAfterCompletion: 'DELETE',
        Target: { Arn: target.queueArn, RoleArn: target.roleArn, Input: JSON.stringify(reminder) },
      }),
    )
    return true
  } catch (e) {
    if (e instanceof ConflictException) return false
    throw e
  }
}

/** The invoice was paid: no reminder. False when there was none left (it fired already, or never existed). */
export async function cancelReminder(client: SchedulerClient, invoiceId: string): Promise<boolean> {
  try {
    await client.send(new DeleteScheduleCommand({ Name: reminderName(invoiceId) }))
    return true
  } catch (e) {
    if (e instanceof ResourceNotFoundException) return false
    throw e
  }
}
