// Which target queue a DLQ belongs to. The stack names each target queue's DLQ after it (deploy/target-queues.ts):
// "<service>-<stage>-orders" has "<service>-<stage>-orders-dlq", and "…-digest.fifo" has "…-digest-dlq.fifo"; the
// local stack (local/dev.ts) creates the same names. A redrive reads one DLQ and sends only to that DLQ's queue.

/** The DLQ queue name of a target queue name: "-dlq" before a ".fifo" suffix. */
export function dlqNameOf(queueName: string): string {
  const fifo = queueName.endsWith('.fifo')
  return fifo ? `${queueName.slice(0, -5)}-dlq.fifo` : `${queueName}-dlq`
}

/**
 * The name in QUEUES of the target queue whose DLQ `dlqUrl` is, or undefined. URLs are compared by their path
 * (account and queue name): SQS answers to more than one host name for the same queue.
 */
export function targetOfDlq(dlqUrl: string, queues: Readonly<Record<string, string>>): string | undefined {
  const dlqPath = pathOf(dlqUrl)
  if (dlqPath === undefined) return undefined
  return Object.keys(queues).find((name) => {
    const path = pathOf(queues[name]!)
    if (path === undefined) return false
    const at = path.lastIndexOf('/')
    return `${path.slice(0, at + 1)}${dlqNameOf(path.slice(at + 1))}` === dlqPath
  })
}

/** Whether two SQS URLs name the same queue (same account and name). */
export function sameQueue(a: string, b: string): boolean {
  const path = pathOf(a)
  return path !== undefined && path === pathOf(b)
}

function pathOf(url: string): string | undefined {
  try {
    return new URL(url).pathname.replace(/\/+$/, '')
  } catch {
    return undefined
  }
}
