// Where the webhook secrets come from: SSM Parameter Store (a SecureString) or Secrets Manager on AWS, a file or a
// setting locally. Never from a job. The value holds one or more whsec_ secrets separated by white space: put the new
// one beside the old one to rotate, and remove the old one once receivers have the new one.
import { readFile } from 'node:fs/promises'
import { defaultProvider } from '@aws-sdk/credential-provider-node'
import { Hash } from '@smithy/core/serde'
import { SignatureV4 } from '@smithy/signature-v4'

export type SecretSource =
  | { kind: 'ssm'; name: string; region: string; endpoint?: string }
  | { kind: 'secretsmanager'; id: string; region: string; endpoint?: string }
  | { kind: 'file'; path: string }
  | { kind: 'value'; value: string }

/** Reads the secrets' text once (the loader caches it). */
export type SecretFetcher = (source: SecretSource) => Promise<string>

export const fetchSecretText: SecretFetcher = async (source) => {
  switch (source.kind) {
    case 'value':
      return source.value
    case 'file':
      return readFile(source.path, 'utf8')
    case 'ssm': {
      const out = await awsJsonCall(source, 'ssm', 'AmazonSSM.GetParameter', {
        Name: source.name,
        WithDecryption: true,
      })
      return String((out as { Parameter?: { Value?: unknown } }).Parameter?.Value ?? '')
    }
    case 'secretsmanager': {
      const out = await awsJsonCall(source, 'secretsmanager', 'secretsmanager.GetSecretValue', {
        SecretId: source.id,
      })
      return String((out as { SecretString?: unknown }).SecretString ?? '')
    }
  }
}

/**
 * One call of an AWS JSON-protocol API, signed with the function's role (no SDK client for two read calls). The
 * endpoint is the Region's, or the SDK's own override setting (AWS_ENDPOINT_URL_SSM, AWS_ENDPOINT_URL_SECRETS_MANAGER).
 */
async function awsJsonCall(
  source: { region: string; endpoint?: string },
  service: string,
  target: string,
  input: object,
): Promise<unknown> {
  const url = new URL(source.endpoint ?? `https://${service}.${source.region}.amazonaws.com/`)
  const body = JSON.stringify(input)
  const signer = new SignatureV4({
    service,
    region: source.region,
    credentials: defaultProvider(),
    sha256: Hash.bind(null, 'sha256'),
  })
  const signed = await signer.sign({
    method: 'POST',
    protocol: url.protocol,
    hostname: url.hostname,
    ...(url.port ? { port: Number(url.port) } : {}),
    path: url.pathname,
    query: {},
    headers: { host: url.host, 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': target },
    body,
  })
  const res = await fetch(url, { method: 'POST', headers: signed.headers, body, signal: AbortSignal.timeout(3_000) })
  const text = await res.text()
  if (!res.ok) throw new Error(`${target} answered ${res.status}: ${text.slice(0, 200)}`)
  return JSON.parse(text)
}
