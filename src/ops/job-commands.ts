// `sdq pending` and `sdq job`: the operator's read of pending jobs (a page in due-time order) and of one job by id
// (pending, dead, or dispatched: its receipt). Each returns the lines to print.
import type { DelayQueue } from '../direct/delay-queue'

export const JOB_USAGE = `  sdq pending [--queue Q] [--limit N] [--cursor C]
      pending jobs in due-time order (50 a page; the last line gives the cursor of the next page)
  sdq job <id>`

export class JobCommandError extends Error {}

export async function jobCommand(
  queue: DelayQueue,
  command: 'pending' | 'job',
  id: string | undefined,
  flags: { queue?: string; limit?: number; cursor?: string },
): Promise<unknown[]> {
  if (command === 'pending') {
    const page = await queue.listPending({ queue: flags.queue, limit: flags.limit ?? 50, cursor: flags.cursor ?? null })
    return [...page.jobs, { cursor: page.cursor }]
  }
  if (!id) throw new JobCommandError('name a job id')
  const job = await queue.get(id)
  if (!job)
    throw new JobCommandError(`no job with id ${JSON.stringify(id)} (unknown, cancelled, or its receipt expired)`)
  return [job]
}
