// A URL per job: "#job=<id>" opens that job in the look-up panel, so a link to a job can be shared or bookmarked.
// Only the fragment: the server never sees it, and no query parameter reaches a request.

/** The job id a location's fragment names, or undefined. */
export function jobOfHash(hash: string): string | undefined {
  const m = /^#job=(.+)$/.exec(hash)
  if (!m) return undefined
  try {
    return decodeURIComponent(m[1]!)
  } catch {
    return undefined
  }
}

/** The fragment that opens job `id`. */
export const jobHash = (id: string) => `#job=${encodeURIComponent(id)}`
