// `sdq schedules ...`: recurring schedules from the command line, through DelayQueue (the same rules as the API).
import { readFileSync } from 'node:fs'
import type { DelayQueue } from '../direct/delay-queue'
import { ScheduleNotFoundError } from '../errors'

export const SCHEDULE_USAGE = `  sdq schedules list [--tag T] [--cursor ID] [--limit N]
  sdq schedules get <id>
  sdq schedules put <id> --json '{"queue":...,"cron":...}' | --file schedule.json
  sdq schedules pause <id> | resume <id> | delete <id>
  sdq schedules delete --tag T
      every schedule with the tag, each as "delete <id>" deletes one`

/** A usage mistake: sdq prints it with the usage and exits 2. */
export class ScheduleCommandError extends Error {}

export interface ScheduleFlags {
  cursor?: string
  tag?: string
  limit?: number
  json?: string
  file?: string
}

/** Runs one schedules subcommand; returns what to print, one JSON value per line. */
export async function scheduleCommand(
  queue: DelayQueue,
  sub: string | undefined,
  id: string | undefined,
  flags: ScheduleFlags,
): Promise<unknown[]> {
  if (sub === 'list') {
    const tag = flags.tag === undefined ? {} : { tag: flags.tag }
    return [await queue.listSchedules({ cursor: flags.cursor ?? null, limit: flags.limit ?? 50, ...tag })]
  }
  if (sub === 'delete' && flags.tag !== undefined) {
    if (id) throw new ScheduleCommandError('name a schedule id or --tag T, not both')
    // A local tool: no time budget, the delete runs until every schedule with the tag is gone.
    return [{ tag: flags.tag, ...(await queue.deleteSchedulesByTag(flags.tag)) }]
  }
  if (!id) throw new Error(`name a schedule id\n${SCHEDULE_USAGE}`)
  switch (sub) {
    case 'get': {
      const view = await queue.getSchedule(id)
      if (!view) throw new ScheduleNotFoundError(id)
      return [view]
    }
    case 'put': {
      const text = flags.json ?? (flags.file ? readFileSync(flags.file, 'utf8') : undefined)
      if (text === undefined) throw new Error('give the schedule as --json TEXT or --file PATH')
      return [await queue.putSchedule(id, JSON.parse(text))]
    }
    case 'pause':
      return [await queue.pauseSchedule(id, true)]
    case 'resume':
      return [await queue.pauseSchedule(id, false)]
    case 'delete':
      await queue.deleteSchedule(id)
      return [{ id, deleted: true }]
    default:
      throw new Error(`unknown schedules command: ${sub ?? '(none)'}\n${SCHEDULE_USAGE}`)
  }
}
