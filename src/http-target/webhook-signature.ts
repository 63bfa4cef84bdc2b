// Standard Webhooks signatures (https://www.standardwebhooks.com, spec "Signature scheme"), so that receivers verify
// with the standard libraries of any language:
//   webhook-id         the message id: the same on every attempt of one message (receivers deduplicate on it)
//   webhook-timestamp  seconds since the epoch when this attempt was signed (receivers refuse stale ones)
//   webhook-signature  "v1,<base64 HMAC-SHA256 of `${id}.${timestamp}.${body}`>", one per secret, space-separated:
//                      during a rotation both secrets sign, and a receiver holding either one verifies.
// A secret is "whsec_" + base64 of the key bytes; the HMAC key is those bytes.
import { createHmac, createSecretKey, type KeyObject } from 'node:crypto'

export const SECRET_PREFIX = 'whsec_'

export interface SigningKey {
  /** The secret as configured (for error messages only its position is named, never its text). */
  key: KeyObject
}

/** Parses whsec_ secrets; throws a RangeError naming the position of one that is not a whsec_ base64 secret. */
export function signingKeys(secrets: readonly string[]): SigningKey[] {
  return secrets.map((secret, i) => {
    const body = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : ''
    const bytes = Buffer.from(body, 'base64')
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(body) || bytes.length < 24 || bytes.length > 64) {
      throw new RangeError(`secret ${i + 1} must be "whsec_" followed by base64 of 24-64 bytes`)
    }
    return { key: createSecretKey(bytes) }
  })
}

/** The three headers for one attempt. `timestampSeconds` is the attempt's signing time. */
export function webhookHeaders(
  keys: readonly SigningKey[],
  messageId: string,
  timestampSeconds: number,
  body: Buffer | string,
): Record<string, string> {
  const timestamp = String(Math.floor(timestampSeconds))
  const signatures = keys.map(({ key }) => {
    const mac = createHmac('sha256', key).update(`${messageId}.${timestamp}.`).update(body).digest('base64')
    return `v1,${mac}`
  })
  return {
    'webhook-id': messageId,
    'webhook-timestamp': timestamp,
    'webhook-signature': signatures.join(' '),
  }
}
