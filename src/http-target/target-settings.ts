// HTTP_TARGETS: which target queues are HTTP target queues, with each one's defaults (URL, method, headers), and
// whether this is a real stage (https only). Read by the API (to check jobs at enqueue) and by the forwarder.
import { ConfigError } from '../errors'
import { checkHttpRequest, HTTP_METHODS, type HttpDefaults, type HttpMethod } from './request-spec'

export interface HttpTargets {
  /** Target name -> its defaults; a name listed here takes HTTP request payloads. */
  queues: Record<string, HttpDefaults>
  /** Not a real stage (DEPLOY_STAGE=local, or serverless-offline): http:// and the loopback setting are allowed. */
  local: boolean
}

type Env = Record<string, string | undefined>

/** Stages that never run in AWS. */
const LOCAL_STAGES = new Set(['local'])

/**
 * A stage is only a name: `sls deploy --stage local` puts a "local" stage in AWS. The Lambda runtime gives itself away
 * (AWS_LAMBDA_RUNTIME_API, AWS_EXECUTION_ENV; serverless-offline sets neither), and there the local allowances
 * (http, loopback, secrets in a setting, unsigned calls) never apply.
 */
export function isLocalStage(env: Env): boolean {
  const inLambda = Boolean(env.AWS_LAMBDA_RUNTIME_API || env.AWS_EXECUTION_ENV?.startsWith('AWS_Lambda_'))
  return !inLambda && (LOCAL_STAGES.has(env.DEPLOY_STAGE ?? '') || env.IS_OFFLINE === 'true')
}

/**
 * `{"webhooks":{},"partner":{"url":"https://api.example.com/hook","method":"PUT","headers":{"x-team":"a"}}}`, or
 * plain names `webhooks,partner`. Unset: no HTTP target queue.
 */
export function readHttpTargets(env: Env): HttpTargets {
  const raw = env.HTTP_TARGETS?.trim() ?? ''
  const queues: Record<string, HttpDefaults> = Object.create(null)
  const local = isLocalStage(env)
  if (!raw) return { queues, local }
  if (!raw.startsWith('{')) {
    for (const name of raw
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean))
      queues[name] = {}
    return { queues, local }
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(raw)
  } catch {
    throw new ConfigError('HTTP_TARGETS', 'is not valid JSON')
  }
  if (!isObject(parsed)) throw new ConfigError('HTTP_TARGETS', 'must be a JSON object of queue name -> defaults')
  for (const [name, value] of Object.entries(parsed)) queues[name] = readDefaults(name, value, local)
  return { queues, local }
}

function readDefaults(name: string, value: unknown, local: boolean): HttpDefaults {
  const bad = (rule: string) => new ConfigError('HTTP_TARGETS', `"${name}": ${rule}`)
  if (!isObject(value)) throw bad('must be an object { url?, method?, headers? }')
  const { url, method, headers, ...rest } = value
  if (Object.keys(rest).length) throw bad(`unknown fields ${Object.keys(rest).join(', ')}`)
  const out: HttpDefaults = {}
  if (url !== undefined) {
    if (typeof url !== 'string' || !(local ? /^https?:\/\//i : /^https:\/\//i).test(url)) {
      throw bad(`url must be an ${local ? 'http(s)' : 'https'} URL`)
    }
    out.url = url
  }
  if (method !== undefined) {
    if (!HTTP_METHODS.includes(method as HttpMethod)) throw bad(`method must be one of ${HTTP_METHODS.join(', ')}`)
    out.method = method as HttpMethod
  }
  if (headers !== undefined) {
    if (!isObject(headers) || Object.values(headers).some((v) => typeof v !== 'string')) {
      throw bad('headers must be an object of strings')
    }
    out.headers = headers as Record<string, string>
  }
  // The rules a job's own url and headers meet (no Host, no line breaks, no credentials in the URL): a default that
  // breaks one would refuse every job of the queue, so the deployment stops here instead, naming it.
  const problems: string[] = []
  checkHttpRequest(
    {},
    out,
    { httpsOnly: !local },
    (path, message) => {
      if (path !== `${name}.url` || out.url !== undefined) problems.push(`${path} ${message}`)
    },
    name,
  )
  if (problems.length) throw new ConfigError('HTTP_TARGETS', problems.join('; '))
  return out
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}
