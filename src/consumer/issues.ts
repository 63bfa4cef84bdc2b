// Why a payload was rejected, in a bounded size: one log line carried 7.6 MB when a schema reported 30,000 issues.
// Issues are structured (path + message, as Standard Schema defines them) and only the first few are kept.

/** One schema issue as logged: where, and what the schema says. */
export interface PayloadIssue {
  path: string
  message: string
}

/** A Standard Schema issue (zod, valibot and arktype errors carry the same shape in their `issues`). */
export interface SchemaIssue {
  readonly message: string
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined
}

export const MAX_REASON_CHARS = 500
export const MAX_LOGGED_ISSUES = 10
const MAX_PATH_CHARS = 100
const MAX_MESSAGE_CHARS = 200

export function clip(text: string, max = MAX_REASON_CHARS): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`
}

/** The issues an error carries (a ZodError, a valibot ValiError, arktype's errors), if it carries any. */
export function issuesOf(error: unknown): readonly SchemaIssue[] | undefined {
  const issues = (error as { issues?: unknown } | null)?.issues
  if (!Array.isArray(issues) || issues.length === 0) return undefined
  return issues.every((i) => typeof (i as SchemaIssue)?.message === 'string') ? (issues as SchemaIssue[]) : undefined
}

export interface IssueSummary {
  /** One line: the count and the first issues, at most MAX_REASON_CHARS. */
  reason: string
  /** The first MAX_LOGGED_ISSUES issues. */
  issues: PayloadIssue[]
  issueCount: number
}

export function summarizeIssues(raw: readonly SchemaIssue[]): IssueSummary {
  const issues = raw.slice(0, MAX_LOGGED_ISSUES).map((i) => ({
    path: clip(pathText(i.path), MAX_PATH_CHARS),
    message: clip(String(i.message), MAX_MESSAGE_CHARS),
  }))
  const listed = issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ')
  const count = raw.length === 1 ? '1 issue' : `${raw.length} issues`
  return { reason: clip(`payload rejected (${count}): ${listed}`), issues, issueCount: raw.length }
}

function pathText(path: SchemaIssue['path']): string {
  if (!path) return ''
  return path
    .map((segment) => {
      const key = typeof segment === 'object' && segment !== null ? segment.key : segment
      return typeof key === 'symbol' ? key.toString() : String(key)
    })
    .join('.')
}
