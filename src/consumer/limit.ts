// A bound on how many records of one batch run at once: Powertools' parallel mode starts them all together,
// and a batch can hold up to 10,000 records (with a batching window) — too many for a database or an API.

export function limitConcurrency<A extends unknown[], R>(
  limit: number,
  fn: (...args: A) => Promise<R>,
): (...args: A) => Promise<R> {
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`concurrency must be an integer >= 1, got ${limit}`)
  let active = 0
  const waiting: (() => void)[] = []
  return async (...args: A) => {
    if (active >= limit) await new Promise<void>((resolve) => waiting.push(resolve))
    else active++
    try {
      return await fn(...args)
    } finally {
      // hand the slot straight to the next waiter (active stays the same), or free it
      const next = waiting.shift()
      if (next) next()
      else active--
    }
  }
}
