// The consumer of the reminder queue, as written for EventBridge Scheduler: the message body is the schedule's
// Input. It needs no change when the delay queue delivers the reminders instead.
import type { SQSEvent } from 'aws-lambda'
import type { Reminder } from './reminders'

export function reminderHandler(send: (reminder: Reminder) => Promise<void>) {
  return async (event: SQSEvent): Promise<void> => {
    for (const record of event.Records) await send(JSON.parse(record.body) as Reminder)
  }
}
