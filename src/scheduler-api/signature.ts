// The local stand-in for AWS's request authentication: a request must carry a SigV4 Authorization header scoped to
// the `scheduler` service (what the unmodified SDK sends). As AWS emulators do, any credentials pass: locally there
// are no real ones to check against. Deployed, the front door's IAM authorization has already verified the signature
// before the function runs, and `acceptedServices` names the service that front door checks (docs/scheduler-api.md).
import { SchedulerSignatureError } from './errors'

/** `AWS4-HMAC-SHA256 Credential=<key>/<date>/<region>/<service>/aws4_request, SignedHeaders=..., Signature=<hex>` */
const AUTHORIZATION =
  /^AWS4-HMAC-SHA256 Credential=[^/\s,]+\/\d{8}\/([a-z0-9-]+)\/([a-z0-9-]+)\/aws4_request,\s*SignedHeaders=[a-z0-9;-]+,\s*Signature=[0-9a-f]{64}$/

export interface SignedBy {
  region: string
  service: string
}

/** The region and service a request was signed for; throws when it is unsigned or signed for another service. */
export function checkSignature(
  headers: Record<string, string | undefined>,
  acceptedServices: readonly string[] = ['scheduler'],
): SignedBy {
  const authorization = headers.authorization
  if (!authorization)
    throw new SchedulerSignatureError('The request is not signed: sign it with SigV4 (service "scheduler").')
  const m = AUTHORIZATION.exec(authorization.trim())
  if (!m) throw new SchedulerSignatureError('The Authorization header is not a SigV4 (AWS4-HMAC-SHA256) signature.')
  const [, region, service] = m as unknown as [string, string, string]
  if (!acceptedServices.includes(service)) {
    throw new SchedulerSignatureError(
      `Credential should be scoped to correct service: '${acceptedServices.join("' or '")}', not '${service}'.`,
    )
  }
  if (!headers['x-amz-date']) throw new SchedulerSignatureError('The signed request has no X-Amz-Date header.')
  return { region, service }
}
