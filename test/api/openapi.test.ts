// docs/openapi.yaml is what tools/openapi/ generates from the schemas, is a valid OpenAPI 3.1 document, and the
// answer check the API tests run on every answer (openapi-answers.ts) refuses an answer the document does not list.
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { openApiDocument } from '../../tools/openapi/document'
import { openApiYaml } from '../../tools/openapi/yaml'
import { ROUTES } from '../../src/api/router'
import { answerProblems, schemaProblems } from './openapi-answers'

interface MediaDoc {
  schema: { $ref: string }
  example?: unknown
}
interface OperationDoc {
  requestBody?: { content: Record<string, MediaDoc> }
  responses: Record<string, { content?: Record<string, MediaDoc> }>
}
import { request } from './api-helpers'

const COMMITTED = join(__dirname, '../../docs/openapi.yaml')
// The linter is a devDependency to add (@apidevtools/swagger-parser); until it is installed its test is skipped.
const swaggerParser = (() => {
  try {
    return createRequire(__filename)('@apidevtools/swagger-parser') as { validate(doc: object): Promise<unknown> }
  } catch {
    return null
  }
})()

describe('docs/openapi.yaml', () => {
  it('is what `npm run openapi` generates from the schemas (run it after changing them)', () => {
    expect(readFileSync(COMMITTED, 'utf8')).toBe(openApiYaml())
  })

  it('describes every route of the router', () => {
    const paths = openApiDocument().paths as Record<string, Record<string, unknown>>
    for (const { key } of ROUTES) {
      const [method, path] = key.split(' ') as [string, string]
      expect(paths[path]?.[method.toLowerCase()], key).toBeDefined()
    }
  })

  it('gives request and answer examples that match their own schemas', () => {
    const document = openApiDocument() as { paths: Record<string, Record<string, OperationDoc>> }
    const examples = Object.values(document.paths).flatMap((methods) =>
      Object.values(methods).flatMap((op) => [
        op.requestBody?.content['application/json'],
        ...Object.values(op.responses).map((r) => r.content?.['application/json']),
      ]),
    )
    const checked = examples.filter((e) => e?.example !== undefined)
    expect(checked.length).toBeGreaterThan(20)
    for (const e of checked) expect(schemaProblems(e!.schema.$ref, e!.example), e!.schema.$ref).toEqual([])
  })

  it.skipIf(!swaggerParser)('is a valid OpenAPI 3.1 document (swagger-parser)', async () => {
    await expect(swaggerParser!.validate(openApiDocument())).resolves.toBeDefined()
  })
})

describe('the answer check', () => {
  const created = {
    statusCode: 201,
    headers: { 'content-type': 'application/json', location: '/jobs/a' },
    body: JSON.stringify({ id: 'a', queue: 'orders', status: 'scheduled', runAt: 'x', createdAt: 'y' }),
  }
  const event = request('POST', '/jobs', { body: {} })

  it('passes a documented answer', () => {
    expect(answerProblems(event, created)).toEqual([])
  })

  it('refuses a status not listed for the route, a missing required header, and a body off its schema', () => {
    expect(answerProblems(event, { ...created, statusCode: 202 })).toEqual([
      'POST /jobs answered 202: a status docs/openapi.yaml does not list for the route',
    ])
    expect(answerProblems(event, { ...created, headers: { 'content-type': 'application/json' } })).toEqual([
      'POST /jobs answered 201: no location header',
    ])
    expect(answerProblems(event, { ...created, body: JSON.stringify({ id: 'a' }) })[0]).toMatch(
      /body does not match #\/components\/schemas\/Job/,
    )
  })
})
