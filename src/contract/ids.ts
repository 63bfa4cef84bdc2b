// The id rules' constants, each pattern once: a job id, a schedule id, an occurrence id built from the schedule id's
// pattern ("<schedule id>@<epoch ms>"), a group id, a tag. What a caller may send, and what the refusal
// says; the checks that apply them are the API side's (src/direct/id-rules.ts, tag-rules.ts, validation.ts).

/** Separates a recurring schedule's id from an occurrence's time in the occurrence's job id. */
export const OCCURRENCE_SEPARATOR = '@'
/** Ids the Scheduler-compatible API writes (its schedules, and their occurrences): reserved to it. */
export const SCHEDULER_JOB_PREFIX = 'scheduler:'

/** The alphabet of every id: no "@" (it starts an occurrence's time), nothing a key or a URL would need to escape. */
const ID_CHAR = '[A-Za-z0-9_.:-]'
/**
 * Not only dots, up to `end`: "." and ".." are the path segments HTTP clients and proxies resolve away (GET
 * /jobs/.. arrives as GET /), so such an id could be written and never read or cancelled again; "..." goes with them.
 */
const NOT_ONLY_DOTS = (end: string) => `(?!\\.+${end})`

export const JOB_ID_PATTERN = new RegExp(`^${NOT_ONLY_DOTS('$')}${ID_CHAR}{1,128}$`)
export const JOB_ID_RULE = 'must be 1-128 characters of [A-Za-z0-9_.:-], not only dots'

/** Leaves room for "@<epoch ms>" within the 128-character job id limit. */
const SCHEDULE_ID = `${ID_CHAR}{1,100}`
export const SCHEDULE_ID_PATTERN = new RegExp(`^${NOT_ONLY_DOTS('$')}${SCHEDULE_ID}$`)
export const SCHEDULE_ID_RULE = 'must be 1-100 characters of [A-Za-z0-9_.:-], not only dots'

/** An occurrence of a recurring schedule: "<schedule id>@<epoch ms>" (src/recurrence/time-bounds.ts bounds the ms). */
export const OCCURRENCE_ID_PATTERN = new RegExp(
  `^${NOT_ONLY_DOTS(OCCURRENCE_SEPARATOR)}${SCHEDULE_ID}${OCCURRENCE_SEPARATOR}\\d{1,15}$`,
)

export const RESERVED_ID_RULE = `must not start with "${SCHEDULER_JOB_PREFIX}" (reserved for the Scheduler-compatible API)`

/** SQS MessageGroupId's rules. */
export const GROUP_ID_PATTERN = /^[\x21-\x7e]{1,128}$/
export const GROUP_ID_RULE = 'must be 1-128 printable ASCII characters without spaces (SQS MessageGroupId rules)'

export const MAX_TAGS = 10
export const TAG_PATTERN = /^[A-Za-z0-9_.:=@/+-]{1,64}$/
export const TAG_RULE = 'must be 1-64 characters of [A-Za-z0-9_.:=@/+-]'
