// The SQS client makes one SigV4 signer and signs every request with it (src/sqs/one-signer.ts), and its signatures
// are the ones the SDK's own signer gives the same request.
import { SendMessageBatchCommand } from '@aws-sdk/client-sqs'
import { Sha256 as SdkSha256 } from '@smithy/core/checksum'
import { SignatureV4 } from '@smithy/signature-v4'
import { Readable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { createSqsClient } from '../../src/sqs/sqs-client'

interface SignedRequest {
  method: string
  protocol: string
  hostname: string
  port?: number
  path: string
  query: Record<string, string>
  headers: Record<string, string>
  body: string
}

/** A client whose requests are answered here, not sent: every signed request is kept. */
function capturingClient() {
  const client = createSqsClient({ region: 'eu-west-1', sqsEndpoint: 'http://127.0.0.1:9', sendConcurrency: 1 })
  const sent: SignedRequest[] = []
  const answer = JSON.stringify({ Successful: [{ Id: 'e0', MessageId: 'm', MD5OfMessageBody: 'x' }] })
  ;(client.config as unknown as { requestHandler: object }).requestHandler = {
    handle: async (request: SignedRequest) => {
      sent.push({ ...request, headers: { ...request.headers } })
      const headers = { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': 'r' }
      return { response: { statusCode: 200, headers, body: Readable.from([Buffer.from(answer)]) } }
    },
    updateHttpClientConfig() {},
    httpHandlerConfigs: () => ({}),
    destroy() {},
  }
  return { client, sent }
}

const send = (client: ReturnType<typeof createSqsClient>, n: number) =>
  client.send(
    new SendMessageBatchCommand({
      QueueUrl: 'http://127.0.0.1:9/000000000000/q',
      Entries: [{ Id: 'e0', MessageBody: `{"n":${n},"text":"café"}` }],
    }),
  )

describe("the SQS client's signer", () => {
  it('is made once and serves every request', async () => {
    // prepare
    const { client } = capturingClient()
    const signerOf = (client.config as unknown as { signer: (scheme?: object) => Promise<object> }).signer
    const scheme = { name: 'sigv4', signingName: 'sqs', signingRegion: 'eu-west-1', properties: {} }
    try {
      // act
      const first = await signerOf(scheme)
      const second = await signerOf(scheme)
      await send(client, 1)
      const third = await signerOf(scheme)
      // assess
      expect(second).toBe(first)
      expect(third).toBe(first)
    } finally {
      client.destroy()
    }
  })

  it("signs each request as the SDK's own signer signs it", async () => {
    // prepare: the credentials the client uses with a local endpoint (src/sqs/sqs-client.ts)
    const { client, sent } = capturingClient()
    const reference = new SignatureV4({
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      region: 'eu-west-1',
      service: 'sqs',
      sha256: SdkSha256,
    })
    try {
      // act: three requests with different bodies
      for (let n = 0; n < 3; n++) await send(client, n)
      // assess: each signed again from its own bytes and date by a signer made the SDK's way
      expect(sent).toHaveLength(3)
      for (const request of sent) {
        const { authorization, 'x-amz-date': date, ...unsigned } = request.headers
        const signingDate = new Date(
          date!.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z'),
        )
        const again = await reference.sign({ ...request, headers: unsigned }, { signingDate })
        expect(authorization).toBeDefined()
        expect(authorization).toBe(again.headers.authorization)
      }
    } finally {
      client.destroy()
    }
  })
})
