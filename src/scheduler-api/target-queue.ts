// A Scheduler target names an SQS queue by ARN; our jobs name a target queue by its configured name (QUEUES). The
// ARN's account and queue name are the last two parts of the queue's URL, on AWS and on the local SQS alike, so the
// ARN that GetQueueAttributes answers (QueueArn) finds the target configured with that queue's URL.
import { SchedulerValidationError } from './errors'

const SQS_ARN = /^arn:aws[a-z-]*:sqs:[a-z0-9-]+:(\d{12}):([A-Za-z0-9_-]{1,80}(?:\.fifo)?)$/

/** The configured target name for a queue ARN; a ValidationException when the ARN is no queue of this deployment. */
export function targetQueueOf(arn: string, queues: Readonly<Record<string, string>>): string {
  const m = SQS_ARN.exec(arn)
  if (!m) {
    throw new SchedulerValidationError(
      `Target.Arn "${arn}" is not supported here: the target must be an SQS queue ARN (arn:aws:sqs:<region>:<account>:<name>).`,
    )
  }
  const wanted = `/${m[1]}/${m[2]}`
  for (const [name, url] of Object.entries(queues)) {
    if (new URL(url).pathname.replace(/\/$/, '') === wanted) return name
  }
  throw new SchedulerValidationError(
    `Target.Arn "${arn}" is not a target queue of this deployment (configured: ${Object.keys(queues).join(', ')}).`,
  )
}
