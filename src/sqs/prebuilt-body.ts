// SendMessageBatch with a body built by us. The SDK's serializer walks each entry through its schema and escapes
// every string character by character in JavaScript: in a burst that was the largest share of the scanner's own CPU
// (bench/profile.ts drain: @smithy/core ~25% of the process). The body of a SendMessageBatch is a small, fixed JSON
// shape (the AWS JSON 1.0 protocol: the input's members by name), and JSON.stringify escapes natively. So the sender
// builds that JSON itself, hands the SDK a command with no entries (cheap to serialize: the headers, the target, the
// endpoint from QueueUrl are the SDK's as before), and a middleware swaps the body in before the content length is
// set and the request signed. The answer is the SDK's, deserialized as always.
import { callFailed, watched } from './arrival'
import {
  SendMessageBatchCommand,
  type SendMessageBatchRequestEntry,
  type SendMessageBatchCommandOutput,
  type SQSClient,
} from '@aws-sdk/client-sqs'

/** Where a command's input carries its prebuilt body (a symbol: the serializer only reads the schema's members). */
const PREBUILT_BODY = Symbol('sdq.prebuiltBody')
/** Where a command's input, and then its HTTP request, carries the signal that bounds the send (sendPrebuilt). */
const ABORT_SIGNAL = Symbol('sdq.abortSignal')

type Carrier = { [PREBUILT_BODY]?: string; [ABORT_SIGNAL]?: AbortSignal }

type Entry = Pick<SendMessageBatchRequestEntry, 'Id' | 'MessageBody' | 'MessageGroupId' | 'MessageDeduplicationId'> & {
  jobId: string
}

/** The request body, as the SDK's JSON protocol serializer would write it for these entries. */
export function sendMessageBatchBody(queueUrl: string, entries: readonly Entry[], attribute: string): string {
  let json = `{"QueueUrl":${JSON.stringify(queueUrl)},"Entries":[`
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!
    json +=
      `${i ? ',' : ''}{"Id":${JSON.stringify(e.Id)},"MessageBody":${JSON.stringify(e.MessageBody)},` +
      `"MessageAttributes":{${JSON.stringify(attribute)}:{"DataType":"String","StringValue":${JSON.stringify(e.jobId)}}}` +
      (e.MessageGroupId === undefined ? '' : `,"MessageGroupId":${JSON.stringify(e.MessageGroupId)}`) +
      (e.MessageDeduplicationId === undefined
        ? ''
        : `,"MessageDeduplicationId":${JSON.stringify(e.MessageDeduplicationId)}`) +
      '}'
  }
  return `${json}]}`
}

/**
 * Sends one SendMessageBatch whose body is `body` (sendMessageBatchBody); the client needs prebuiltBodies(). With
 * `maxMs`, the call (every SDK attempt, and reading the answer's body) is aborted after that long: the handler's
 * requestTimeout stops counting once the answer's headers arrive, and an answer whose body stalls would hold the
 * call (and its lane) forever. An aborted call may have been carried out by SQS: its jobs are released as maybe sent.
 *
 * The signal rides on the command's input, not in send()'s options: the SDK uses the client's cached handler
 * (cacheMiddleware) only for a send without options, and with options it resolves the whole stack again and drops
 * the cache. prebuiltBodies() hands the signal to the request handler, which aborts the request (and its body).
 */
export async function sendPrebuilt(
  sqs: SQSClient,
  queueUrl: string,
  body: string,
  maxMs?: number,
): Promise<SendMessageBatchCommandOutput> {
  const input = { QueueUrl: queueUrl, Entries: [], [PREBUILT_BODY]: body }
  if (maxMs === undefined) return sqs.send(new SendMessageBatchCommand(input))
  const abort = new AbortController()
  const timer = setTimeout(() => abort.abort(new SendTimeoutError(maxMs)), maxMs)
  // The handler ends a request when aborted; the SDK's wait between attempts only hears of a signal given in send()'s
  // options, so the call itself ends at the abort too (the attempt that follows the wait is refused at once).
  const aborted = new Promise<never>((_, reject) => {
    abort.signal.addEventListener('abort', () => reject(abort.signal.reason), { once: true })
  })
  // Its attempts are watched (src/sqs/arrival.ts): whether SQS may have taken a call that failed is judged on all of them.
  const bounded = watched({ ...input, [ABORT_SIGNAL]: abort.signal })
  try {
    return await Promise.race([sqs.send(new SendMessageBatchCommand(bounded)), aborted])
  } catch (e) {
    // The SDK's AbortError says "Request aborted"; the scanner's log says why.
    const error = abort.signal.aborted ? abort.signal.reason : e
    callFailed(bounded, error)
    throw error
  } finally {
    clearTimeout(timer)
  }
}

/** A SendMessageBatch call that did not end within its bound (sendPrebuilt): its outcome is unknown. */
export class SendTimeoutError extends Error {
  constructor(readonly ms: number) {
    super(`SendMessageBatch did not end within ${ms} ms (its answer stalled?): SQS may have taken it`)
    this.name = 'SendTimeoutError'
  }
}

/**
 * Installs the swap on a client: a command without a prebuilt body is left as the SDK built it. Also hands a bounded
 * send's signal to the request handler, which the SDK would give it only from send()'s options (see sendPrebuilt).
 * Call before the first send: the client caches its handler.
 */
export function prebuiltBodies(sqs: SQSClient): void {
  sqs.middlewareStack.add(
    (next) => async (args) => {
      const body = (args.input as Carrier)[PREBUILT_BODY]
      const request = args.request as { body?: unknown; headers?: Record<string, string> } | undefined
      if (body !== undefined && request?.headers) {
        request.body = body
        for (const name of Object.keys(request.headers)) {
          if (name.toLowerCase() === 'content-length') delete request.headers[name]
        }
        request.headers['content-length'] = String(Buffer.byteLength(body))
      }
      return next(args)
    },
    // Before the content length is set and the request signed (both later in the build and finalize steps).
    { step: 'build', priority: 'high', name: 'sdqPrebuiltBody' },
  )
  sqs.middlewareStack.add(
    (next) => async (args) => {
      const abortSignal = (args.input as Carrier)[ABORT_SIGNAL]
      if (abortSignal && args.request) (args.request as Carrier)[ABORT_SIGNAL] = abortSignal
      return next(args)
    },
    // Last before the handler, on each attempt: signing hands on a copy of the request (without this mark).
    { step: 'deserialize', priority: 'low', name: 'sdqAbortSignal' },
  )
  const handler = sqs.config.requestHandler as {
    handle(request: Carrier, options?: { abortSignal?: AbortSignal }): Promise<unknown>
  }
  const handle = handler.handle.bind(handler)
  handler.handle = (request, options) => {
    const abortSignal = request[ABORT_SIGNAL]
    return handle(request, abortSignal ? { ...options, abortSignal } : options)
  }
}

/**
 * The entries a SendMessageBatch command carries, whether prebuilt or not: for middleware that looks at them (tests,
 * benches). Parses the prebuilt body: not for the send path.
 */
export function batchEntries(input: object): SendMessageBatchRequestEntry[] {
  const body = (input as Carrier)[PREBUILT_BODY]
  if (body !== undefined) return (JSON.parse(body) as { Entries: SendMessageBatchRequestEntry[] }).Entries
  return (input as { Entries?: SendMessageBatchRequestEntry[] }).Entries ?? []
}
