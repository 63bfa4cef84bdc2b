// One SigV4 signer per client, not one per request. Without a `signer` option the SDK's auth config (@aws-sdk/core,
// resolveAwsSdkSigV4Config) makes a new SignatureV4 for every request, from a copy of the whole client configuration
// (~80 properties spread into its parameters): ~7% of the SDK's CPU per SendMessageBatch (a pipeline profiled with the
// HTTP call stubbed). Every signer it makes is the same: its parameters are the configuration's credentials provider
// and hash (both fixed) and the signing region and service, which it pins on the configuration at its first request
// (`config.signingRegion ||= ...`); each request passes its own signing region and service to signRequest anyway. So
// the first one made is kept and reused. A failed attempt to make it (the region provider threw) is not kept.
import type { SQSClient } from '@aws-sdk/client-sqs'

type SignerOf = (authScheme?: unknown) => Promise<unknown>

/** Wraps the client's signer provider so that it makes its signer once (test/sqs/one-signer.test.ts). */
export function oneSigner(sqs: SQSClient): void {
  const config = sqs.config as unknown as { signer?: SignerOf }
  const make = config.signer
  if (typeof make !== 'function') return
  let made: Promise<unknown> | undefined
  config.signer = (authScheme) => {
    if (!made) {
      made = make(authScheme)
      made.catch(() => {
        made = undefined
      })
    }
    return made
  }
}
