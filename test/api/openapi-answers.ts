// Checks an answer of the API against docs/openapi.yaml: its status is one the document lists for the route, the
// headers it marks required are there, and the body matches the response schema (ajv, JSON Schema 2020-12).
// testApi() (api-helpers.ts) runs it on every answer, so an API test fails when an answer is not documented.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { APIGatewayProxyEventV2 } from 'aws-lambda'
import Ajv2020 from 'ajv/dist/2020'
import yaml from 'js-yaml'
import type { ApiResponse } from '../../src/api/response'
import { matchRoute, ROUTES } from '../../src/api/router'

interface Documented {
  headers?: Record<string, { required?: boolean }>
  content?: Record<string, { schema: object }>
}

const DOCUMENT = yaml.load(readFileSync(join(__dirname, '../../docs/openapi.yaml'), 'utf8')) as {
  paths: Record<string, Record<string, { responses: Record<string, Documented> }>>
  components: object
}

const ajv = new Ajv2020({ strict: false, allErrors: true })
ajv.addSchema({ $id: 'openapi', components: DOCUMENT.components })

/** Why the answer does not match the document, or [] when it does. A request no route matches is not checked. */
export function answerProblems(event: APIGatewayProxyEventV2, answer: ApiResponse): string[] {
  let name: string
  try {
    name = matchRoute(event).name
  } catch {
    return []
  }
  const [method, path] = ROUTES.find((r) => r.name === name)!.key.split(' ') as [string, string]
  const where = `${method} ${path} answered ${answer.statusCode}`
  const documented = DOCUMENT.paths[path]?.[method.toLowerCase()]?.responses[String(answer.statusCode)]
  if (!documented) return [`${where}: a status docs/openapi.yaml does not list for the route`]
  const problems: string[] = []
  const headers = Object.fromEntries(Object.entries(answer.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]))
  for (const [header, spec] of Object.entries(documented.headers ?? {})) {
    if (spec.required && headers[header] === undefined) problems.push(`${where}: no ${header} header`)
  }
  const schema = documented.content?.['application/json']?.schema as { $ref?: string } | undefined
  if (!schema) {
    if (answer.body) problems.push(`${where}: a body the document does not describe`)
    return problems
  }
  const body = answer.body === undefined ? undefined : JSON.parse(answer.body)
  return [...problems, ...schemaProblems(schema.$ref!, body).map((p) => `${where}: body ${p}`)]
}

/** Why a value does not match a schema of the document ("#/components/schemas/Job"), or []. */
export function schemaProblems(ref: string, value: unknown): string[] {
  const validate = ajv.getSchema(`openapi${ref}`)
  if (!validate) return [`schema ${ref} not found`]
  return validate(value) ? [] : [`does not match ${ref}: ${ajv.errorsText(validate.errors)}`]
}

/** Throws when the answer does not match the document. */
export function expectDocumented(event: APIGatewayProxyEventV2, answer: ApiResponse): ApiResponse {
  const problems = answerProblems(event, answer)
  if (problems.length) throw new Error(`answer not as docs/openapi.yaml says:\n${problems.join('\n')}`)
  return answer
}
