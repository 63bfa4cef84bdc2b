// A job input's zod issues as the API's error details: each names the field and the rule; an unknown key gets a hint
// when it is one edit away from a known field (delay_ms, runat, dealyMs...).
import type { z } from 'zod'
import type { ErrorDetail } from '../errors'

const MAX_KEY_DETAILS = 10

/** One zod issue -> details; unknown keys become one detail each, with a hint for likely typos among `fields`. */
export function toDetails(issue: z.core.$ZodIssue, fields: readonly string[]): ErrorDetail[] {
  const path = formatPath(issue.path)
  if (issue.code === 'unrecognized_keys') {
    // Keys are the caller's text: bound how much of it the answer echoes.
    const details = issue.keys.slice(0, MAX_KEY_DETAILS).map((key) => {
      const near = fields.find((f) => closeEnough(f, key))
      const name = key.length > 64 ? `${key.slice(0, 64)}...` : key
      return {
        path: path ? `${path}.${name}` : name,
        message: `is not a known field${near ? ` (did you mean "${near}"?)` : ''}; known: ${fields.join(', ')}`,
      }
    })
    if (issue.keys.length > MAX_KEY_DETAILS) {
      details.push({ path, message: `has ${issue.keys.length - MAX_KEY_DETAILS} more unknown fields` })
    }
    return details
  }
  if (issue.code === 'invalid_type' && issue.path.length === 0) {
    return [
      { path: '', message: 'must be a JSON object: { "queue", "payload", "delayMs" | "runAt", "id", "groupId" }' },
    ]
  }
  return [{ path, message: issue.message }]
}

function formatPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((s, k) => (typeof k === 'number' ? `${s}[${k}]` : s ? `${s}.${String(k)}` : String(k)), '')
}

/** Case-insensitive equality, or one edit apart (delay_ms, runat, dealyMs...). */
function closeEnough(field: string, key: string): boolean {
  const a = field.toLowerCase()
  const b = key.toLowerCase().replace(/[_-]/g, '')
  if (a === b) return true
  if (Math.abs(a.length - b.length) > 1) return false
  let i = 0
  while (i < a.length && a[i] === b[i]) i++
  const rest = (x: string, y: string) =>
    x.slice(i + 1) === y.slice(i + 1) || x.slice(i + 1) === y.slice(i) || x.slice(i) === y.slice(i + 1)
  // one substitution, one insertion/deletion, or one transposition
  return rest(a, b) || (a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2))
}
