// The SQS client's SHA-256 (src/sqs/sha256.ts) gives the SDK default's digests, and so the same SigV4 signatures;
// a request signed with it is taken by the SQS endpoint.
import { SendMessageBatchCommand } from '@aws-sdk/client-sqs'
import { Sha256 as SdkSha256 } from '@smithy/core/checksum'
import { SignatureV4 } from '@smithy/signature-v4'
import type { Checksum, SourceData } from '@smithy/types'
import { afterAll, describe, expect, inject, it } from 'vitest'
import { Sha256 } from '../../src/sqs/sha256'
import { createSqsClient } from '../../src/sqs/sqs-client'
import { createQueue, sqsClient } from '../support/sqs'

const sqs = sqsClient()
afterAll(() => sqs.destroy())

/** The SDK's hash constructor interface (its update takes text too: SigV4 hands both). */
type HashCtor = new (secret?: SourceData) => Omit<Checksum, 'update'> & { update(data: SourceData): void }

async function digestOf(Ctor: HashCtor, secret: string | Uint8Array | undefined, chunks: (string | Uint8Array)[]) {
  const h = new Ctor(secret)
  for (const c of chunks) h.update(c)
  return Buffer.from(await h.digest()).toString('hex')
}

function signer(sha256: HashCtor) {
  return new SignatureV4({
    credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' },
    region: 'eu-west-1',
    service: 'sqs',
    sha256,
  })
}

function request() {
  return {
    method: 'POST',
    protocol: 'https:',
    hostname: 'sqs.eu-west-1.amazonaws.com',
    path: '/',
    query: {},
    headers: {
      host: 'sqs.eu-west-1.amazonaws.com',
      'content-type': 'application/x-amz-json-1.0',
      'x-amz-target': 'AmazonSQS.SendMessageBatch',
    },
    body: '{"QueueUrl":"https://sqs.eu-west-1.amazonaws.com/1/q","Entries":[{"Id":"e0","MessageBody":"café ✓"}]}',
  }
}

describe("the SQS client's SHA-256", () => {
  it("gives the SDK default's digests: plain, HMAC with a text or a byte key, one chunk or several", async () => {
    // prepare: the inputs SigV4 hands its hash (bodies with multi-byte characters, empty ones, derived keys)
    const key = new Uint8Array(32).map((_, i) => i * 7)
    const cases: [string | Uint8Array | undefined, (string | Uint8Array)[]][] = [
      [undefined, ['']],
      [undefined, []],
      [undefined, ['{"a":"café ✓"}']],
      [undefined, [new TextEncoder().encode('{"a":"café ✓"}')]],
      [undefined, ['part one, ', new TextEncoder().encode('part two')]],
      ['secret key', ['AKIDEXAMPLE']],
      ['AWS4secret', [new TextEncoder().encode('20261126')]],
      [key, ['AWS4-HMAC-SHA256\n20261126T000000Z\nscope\nabc']],
      [key, ['a', 'b', new Uint8Array([1, 2, 3])]],
    ]
    for (const [secret, chunks] of cases) {
      // act: the same input through both, twice through ours (its keys are imported once and kept)
      const sdk = await digestOf(SdkSha256 as HashCtor, secret, chunks)
      const ours = [await digestOf(Sha256, secret, chunks), await digestOf(Sha256, secret, chunks)]
      // assess
      expect(ours, `secret ${String(secret)}, chunks ${chunks.length}`).toEqual([sdk, sdk])
    }
  })

  it('starts again empty after reset', async () => {
    // prepare
    const h = new Sha256('k')
    h.update('discarded')
    // act
    h.reset()
    h.update('kept')
    // assess
    expect(Buffer.from(await h.digest()).toString('hex')).toBe(await digestOf(SdkSha256 as HashCtor, 'k', ['kept']))
  })

  it("makes SigV4 sign a request exactly as with the SDK's default", async () => {
    // prepare: a fixed signing date, so both signatures are of the same string
    const signingDate = new Date('2026-11-26T06:30:00Z')
    // act
    const sdk = await signer(SdkSha256 as HashCtor).sign(request(), { signingDate })
    const ours = await signer(Sha256).sign(request(), { signingDate })
    const again = await signer(Sha256).sign(request(), { signingDate })
    // assess
    expect(ours.headers).toEqual(sdk.headers)
    expect(again.headers.authorization).toBe(sdk.headers.authorization)
  })

  // fauxqs does not check signatures: this one proves the client works end to end with its hash, the test above that
  // the signatures are the SDK's.
  it('signs requests the SQS endpoint takes', async () => {
    // prepare
    const q = await createQueue(sqs, 'sha256-signed')
    const client = createSqsClient({ region: 'us-east-1', sqsEndpoint: inject('sqsEndpoint'), sendConcurrency: 1 })
    try {
      // act
      const answer = await client.send(
        new SendMessageBatchCommand({ QueueUrl: q.url, Entries: [{ Id: 'e0', MessageBody: '{"n":1}' }] }),
      )
      // assess
      expect(answer.Successful?.map((s) => s.Id)).toEqual(['e0'])
    } finally {
      client.destroy()
    }
  })
})
