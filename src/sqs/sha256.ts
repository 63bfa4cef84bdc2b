// The SHA-256 the SDK's SigV4 signer hashes and signs with (the client's `sha256` option), cheaper per request than
// the SDK's default. Signing one SendMessageBatch takes two hashes (the body, the canonical request) and two HMACs
// (the signing key cache's look-up key, the signature); the default builds a Node Hash or Hmac object for each,
// copies every plain hash before its digest, and imports the HMAC key from its bytes each time: ~7% of a scan worker's
// CPU in a burst (bench/burst-scale.ts --cpu-prof). Here a plain hash of one chunk is one native call
// (crypto.hash), and each HMAC key is imported once (the SDK keeps its signing keys as the same Uint8Array objects,
// and the secret access key is the same string). Same digests, byte for byte (test/sqs/sha256.test.ts).
import * as crypto from 'node:crypto'
import { createHash, createHmac, createSecretKey, type KeyObject } from 'node:crypto'

type SourceData = string | ArrayBuffer | ArrayBufferView

/** crypto.hash (Node >= 20.12 / 21.7): one native call, no Hash object. */
type OneShot = (algorithm: string, data: string | ArrayBufferView, out: 'buffer') => Buffer
const oneShot = (crypto as { hash?: OneShot }).hash

/** HMAC keys imported once: signing keys by object (the SDK caches and reuses them), secrets by their text. */
const keysByBytes = new WeakMap<object, KeyObject>()
const keysByText = new Map<string, KeyObject>()

function keyOf(secret: SourceData): KeyObject {
  if (typeof secret === 'string') {
    let key = keysByText.get(secret)
    if (!key) {
      // Credentials rotate (a Lambda's role session): a few secrets at a time, never a growing map.
      if (keysByText.size >= 8) keysByText.clear()
      key = createSecretKey(Buffer.from(secret, 'utf8'))
      keysByText.set(secret, key)
    }
    return key
  }
  let key = keysByBytes.get(secret)
  if (!key) {
    key = createSecretKey(bytes(secret))
    keysByBytes.set(secret, key)
  }
  return key
}

function bytes(data: ArrayBuffer | ArrayBufferView): Buffer {
  return ArrayBuffer.isView(data)
    ? Buffer.from(data.buffer, data.byteOffset, data.byteLength)
    : Buffer.from(data as ArrayBuffer)
}

const input = (data: SourceData): string | Buffer => (typeof data === 'string' ? data : bytes(data))

/**
 * The SDK's Checksum interface: `new Sha256(secret?)`, update, digest, reset. update keeps its data until digest
 * (SigV4 digests right after its updates, on arrays of its own), so a caller must not change it in between.
 */
export class Sha256 {
  readonly digestLength = 32
  private first: SourceData | undefined
  private rest: SourceData[] | undefined

  constructor(private readonly secret?: SourceData) {}

  update(data: SourceData): void {
    if (this.first === undefined) this.first = data
    else if (this.rest === undefined) this.rest = [data]
    else this.rest.push(data)
  }

  async digest(): Promise<Uint8Array> {
    const first = input(this.first ?? '')
    let out: Buffer
    if (this.secret === undefined && this.rest === undefined && oneShot) {
      out = oneShot('sha256', first, 'buffer')
    } else {
      const h = this.secret === undefined ? createHash('sha256') : createHmac('sha256', keyOf(this.secret))
      h.update(first)
      for (const data of this.rest ?? []) h.update(input(data))
      out = h.digest()
    }
    return new Uint8Array(out.buffer, out.byteOffset, out.byteLength)
  }

  reset(): void {
    this.first = undefined
    this.rest = undefined
  }
}
