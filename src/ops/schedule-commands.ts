// `sdq schedules ...`: recurring schedules from the command line, through DelayQueue (the same rules as the API).
import { readFileSync } from 'node:fs'
import type { DelayQueue } from '../direct/delay-queue'
import { ScheduleNotFoundError } from '../errors'

export const SCHEDULE_USAGE = `  sdq schedules list [--cursor ID] [--limit N]
  sdq schedules get <id>
  sdq schedules put <id> --json '{"queue":...,"cron":...}' | --file schedule.json
  sdq schedules pause <id> | resume <id> | delete <id>`

export interface ScheduleFlags {
  cursor?: string
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
  if (sub === 'list') return [await queue.listSchedules({ cursor: flags.cursor ?? null, limit: flags.limit ?? 50 })]
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
