// The tag checks, in one place: what a job's tags may be (POST / PUT /jobs, DelayQueue) and what a tag in a query may
// be (GET / DELETE /jobs?tag=), by the contract's pattern and rule (src/contract/ids.ts). A tag is stored in the job's
// record, one a line after the payload, and in its shard's tag index as "<tag>\n<id>" (src/store/tag-index.ts): it
// never holds "\n", and its alphabet needs no escaping in a URL.
import { z } from 'zod'
import { ValidationError } from '../errors'
import { MAX_TAGS, TAG_PATTERN, TAG_RULE } from '../contract/ids'

export { MAX_TAGS, TAG_PATTERN, TAG_RULE }
const TAGS_RULE = `must be an array of at most ${MAX_TAGS} distinct tags`

/** A job's `tags`: up to MAX_TAGS distinct tags; an empty array is no tags. */
export const tagsSchema = z
  .array(z.string({ error: TAG_RULE }).regex(TAG_PATTERN, { error: TAG_RULE }), { error: TAGS_RULE })
  .max(MAX_TAGS, { error: TAGS_RULE })
  .refine((tags) => new Set(tags).size === tags.length, { error: TAGS_RULE })
  .optional()

/** A tag from a query or a caller: 400 unless it follows the tag rule. */
export function validateTag(tag: unknown, path = 'tag'): string {
  if (typeof tag !== 'string' || !TAG_PATTERN.test(tag)) throw new ValidationError([{ path, message: TAG_RULE }])
  return tag
}
