// Starts local processes (redis-server, fauxqs, ...) side by side. If one fails to start, the ones that did are
// stopped before the error is thrown. Each start cleans up after itself when it fails or times out
// (local/redis-server.ts, local/sqs-endpoint.ts): together, a failed setup leaves no process behind.
interface Stoppable {
  stop(): Promise<void>
}

export async function startTogether<T extends readonly Stoppable[]>(
  ...starts: { [K in keyof T]: Promise<T[K]> }
): Promise<T> {
  const settled = await Promise.allSettled(starts)
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected')
  if (!failed) return settled.map((s) => (s as PromiseFulfilledResult<Stoppable>).value) as unknown as T
  await Promise.allSettled(settled.flatMap((s) => (s.status === 'fulfilled' ? [(s.value as Stoppable).stop()] : [])))
  throw failed.reason
}
