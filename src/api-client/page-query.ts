// The query string of a page request (GET /jobs, GET /jobs?tag=, GET /schedules): the filters given, the cursor of the
// page before, the page size; '' when there is none of them.
export interface PageOptions {
  limit?: number
  cursor?: string | null
}

export function pageQuery(options: PageOptions & { queue?: string; tag?: string }): string {
  const query = new URLSearchParams()
  if (options.tag) query.set('tag', options.tag)
  if (options.queue) query.set('queue', options.queue)
  if (options.cursor) query.set('cursor', options.cursor)
  if (options.limit !== undefined) query.set('limit', String(options.limit))
  return query.size ? `?${query}` : ''
}
