// The largest times and periods a schedule accepts. Every occurrence time is written into Redis by Lua, which prints
// numbers with 14 significant digits: an epoch ms of 1e14 (year 5138) or more would come out as "1e+14" in the
// stored record and in the occurrence id. The bounds keep every time a plain integer well below that, and every ISO
// conversion valid (JavaScript dates end at 8.64e15).
import { isoTime } from '../shared/iso-time'

/** startAt, endAt and every occurrence: at most 2999-12-31T23:59:59.999Z. A series ends there. */
export const MAX_SCHEDULE_TIME_MS = Date.UTC(3000, 0, 1) - 1
export const MAX_SCHEDULE_TIME_ISO = isoTime(MAX_SCHEDULE_TIME_MS)

/** everyMs: at most 3650 days (about ten years). */
export const MAX_EVERY_MS = 3650 * 86_400_000
