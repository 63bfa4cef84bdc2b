// SigV4 for the API's IAM authorization, with the SDK's own signer and, unless credentials are given, the SDK's
// default credential chain (environment, SSO, profile files, the Lambda / ECS / EC2 role). An HTTP API checks
// signatures for the service `execute-api`, a Lambda Function URL (the stack's default front door) for `lambda`.
import { defaultProvider } from '@aws-sdk/credential-provider-node'
import { Hash } from '@smithy/core/serde'
import { SignatureV4 } from '@smithy/signature-v4'
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider, HttpRequest } from '@smithy/types'

export type Credentials = AwsCredentialIdentity | AwsCredentialIdentityProvider

export interface SignedRequest {
  method: string
  url: URL
  headers: Record<string, string>
  body?: string
}

export type RequestSigner = (request: SignedRequest) => Promise<Record<string, string>>

const FUNCTION_URL_HOST = /\.lambda-url\.([a-z0-9-]+)\.on\.aws$/

export type SigningService = 'lambda' | 'execute-api'
const SIGNING_SERVICES: readonly SigningService[] = ['lambda', 'execute-api']

/**
 * The service a request to this URL is signed for: `given` (the client's `signingService` option) when there is one,
 * since a custom domain's name says nothing of what is behind it; else `lambda` for a Function URL's host and
 * `execute-api` for any other.
 */
export function signingServiceOf(url: URL, given?: SigningService): SigningService {
  if (given !== undefined) {
    if (!SIGNING_SERVICES.includes(given)) {
      throw new Error(`the signingService option must be one of ${SIGNING_SERVICES.join(', ')}, got ${String(given)}`)
    }
    return given
  }
  return FUNCTION_URL_HOST.test(url.hostname) ? 'lambda' : 'execute-api'
}

/**
 * `https://<api id>.execute-api.<region>.amazonaws.com` and `https://<url id>.lambda-url.<region>.on.aws` name
 * their region; a custom domain does not.
 */
export function regionOf(url: URL, env: NodeJS.ProcessEnv = process.env): string {
  const fromHost =
    /\.execute-api\.([a-z0-9-]+)\.amazonaws\.com$/.exec(url.hostname)?.[1] ?? FUNCTION_URL_HOST.exec(url.hostname)?.[1]
  const region = fromHost ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION
  if (!region) {
    throw new Error(
      `cannot tell the API's signing region from the host ${url.host} (a custom domain names none): pass the region option (and signingService) or set AWS_REGION`,
    )
  }
  return region
}

export function sigV4Signer(
  region: string,
  credentials: Credentials = defaultProvider(),
  service: SigningService = 'execute-api',
): RequestSigner {
  const signer = new SignatureV4({ service, region, credentials, sha256: Hash.bind(null, 'sha256') })
  return async ({ method, url, headers, body }) => {
    const query: Record<string, string> = {}
    url.searchParams.forEach((value, key) => (query[key] = value))
    const request: HttpRequest = {
      method,
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port ? { port: Number(url.port) } : {}),
      path: url.pathname,
      query,
      headers: { ...headers, host: url.host },
      ...(body !== undefined ? { body } : {}),
    }
    const signed = await signer.sign(request)
    return signed.headers
  }
}
