// SigV4 for the API's IAM authorization (service `execute-api`), with the SDK's own signer and, unless credentials
// are given, the SDK's default credential chain (environment, SSO, profile files, the Lambda / ECS / EC2 role).
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

/** `https://<api id>.execute-api.<region>.amazonaws.com` names its region; a custom domain does not. */
export function regionOf(url: URL, env: NodeJS.ProcessEnv = process.env): string {
  const fromHost = /\.execute-api\.([a-z0-9-]+)\.amazonaws\.com$/.exec(url.hostname)?.[1]
  const region = fromHost ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION
  if (!region)
    throw new Error(`cannot tell the API's region from ${url.host}: pass the region option or set AWS_REGION`)
  return region
}

export function sigV4Signer(region: string, credentials: Credentials = defaultProvider()): RequestSigner {
  const signer = new SignatureV4({ service: 'execute-api', region, credentials, sha256: Hash.bind(null, 'sha256') })
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
