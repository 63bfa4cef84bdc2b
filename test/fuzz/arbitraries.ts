// fast-check generators of bad HTTP API requests: each one is wrong by construction (a wrong type, a broken body,
// a hostile key, a bad id, route or content type), so the API must refuse every one and write nothing.
import fc from 'fast-check'
import type { APIGatewayProxyEventV2 } from 'aws-lambda'
import { apiEvent } from '../support/lambda'

export const QUEUES = { orders: 'http://127.0.0.1:9/q/orders', 'events.fifo': 'http://127.0.0.1:9/q/events.fifo' }
const FIELDS = ['queue', 'payload', 'delayMs', 'runAt', 'id', 'groupId']
const ID_OK = /^[A-Za-z0-9_.:-]{1,128}$/
const HORIZON_MS = 400 * 86_400_000

export interface BadRequest {
  kind: string
  event: APIGatewayProxyEventV2
}

// ---- values ---------------------------------------------------------------------------------------------------
const hostileKey = fc.constantFrom(
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  '__defineGetter__',
)
const notString = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.object({ maxDepth: 2 }),
)
const badId = fc.oneof(
  fc.string({ minLength: 0, maxLength: 200 }).filter((s) => !ID_OK.test(s)),
  fc.constantFrom(
    '',
    ' ',
    'a b',
    'x'.repeat(129),
    '../../etc/passwd',
    'id/with/slash',
    'ünïcode',
    'a\u0000b',
    '\ud800',
    '%',
    'a?b',
    'a#b',
  ),
)
const notIntegerNumberText = fc.oneof(
  fc
    .double({ noNaN: true, noDefaultInfinity: true })
    .filter((d) => !Number.isInteger(d))
    .map(String),
  fc.constantFrom(
    '1e400',
    '-1e400',
    '-1',
    '1.5',
    '9007199254740993',
    '1e21',
    '"100"',
    'true',
    'null',
    '[]',
    '{}',
    '-0.1',
  ),
  fc.integer({ min: HORIZON_MS + 1, max: Number.MAX_SAFE_INTEGER }).map(String),
  fc.integer({ min: -1_000_000_000, max: -1 }).map(String),
)
const badRunAtText = fc.oneof(
  fc
    .string({ maxLength: 40 })
    .filter((s) => Number.isNaN(Date.parse(s)) || !/[zZ]|[+-]\d\d:?\d\d$/.test(s))
    .map((s) => JSON.stringify(s)),
  fc.constantFrom(
    '"2027-01-04T09:00:00"',
    '"2027-02-30T00:00:00Z"',
    '"2027-13-01T00:00:00Z"',
    '"9999999-01-01T00:00:00Z"',
    '"0999-01-01T00:00:00Z"',
    '-5',
    '1.5',
    '1e400',
    'true',
    '[]',
    '"now"',
    '"2027-01-04T25:00:00Z"',
  ),
  fc.constant(String(Date.now() + HORIZON_MS + 86_400_000)),
)
const depth = fc.integer({ min: 500, max: 120_000 })
const deep = depth.map((d) => '['.repeat(d) + ']'.repeat(d))
const deepObject = fc
  .integer({ min: 50, max: 5_000 })
  .map((d) => `${'{"a":'.repeat(d)}{"__proto__":{"polluted":true}}${'}'.repeat(d)}`)
const jsonText = fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v))

/** A job body (raw JSON text) that is wrong in at least one way. */
export const badJobBody: fc.Arbitrary<string> = fc.oneof(
  // queue: wrong type, unknown name, or an Object.prototype name
  fc
    .oneof(
      notString.map((q) => JSON.stringify(q)),
      fc
        .string({ maxLength: 30 })
        .filter((s) => !(s in QUEUES))
        .map((s) => JSON.stringify(s)),
      hostileKey.map((k) => JSON.stringify(k)),
      deep,
    )
    .map((q) => `{"queue":${q},"payload":{}}`),
  // payload missing
  fc.constant('{"queue":"orders"}'),
  fc.constant('{"queue":"orders","delayMs":10}'),
  // delayMs not an integer in range (non-finite, fractional, negative, too far, wrong type)
  notIntegerNumberText.map((d) => `{"queue":"orders","payload":1,"delayMs":${d}}`),
  // runAt malformed, zone-less, out of range, or both runAt and delayMs
  badRunAtText.map((r) => `{"queue":"orders","payload":1,"runAt":${r}}`),
  fc.constant(`{"queue":"orders","payload":1,"runAt":"2027-01-04T09:00:00Z","delayMs":5}`),
  // id and groupId against their rules
  badId.map((id) => `{"queue":"orders","payload":1,"id":${JSON.stringify(id)}}`),
  notString.map((id) => `{"queue":"orders","payload":1,"id":${JSON.stringify(id)}}`),
  fc.constant('{"queue":"orders","payload":1,"groupId":"g"}'),
  fc
    .string({ maxLength: 20 })
    .filter((g) => !/^[\x21-\x7e]{1,128}$/.test(g))
    .map((g) => `{"queue":"events.fifo","payload":1,"groupId":${JSON.stringify(g)}}`),
  // unknown and hostile top-level keys (raw text: an object literal would set the prototype instead)
  fc
    .tuple(
      fc.oneof(
        hostileKey,
        fc.string({ maxLength: 20 }).filter((k) => !FIELDS.includes(k)),
      ),
      jsonText,
    )
    .map(([k, v]) => `{"queue":"orders","payload":1,${JSON.stringify(k)}:${v}}`),
  fc
    .tuple(fc.constantFrom('delay_ms', 'runat', 'dealyMs', 'Queue', 'payLoad'), jsonText)
    .map(([k, v]) => `{"queue":"orders","payload":1,"${k}":${v}}`),
  // prototype-pollution payloads, shallow and deep
  fc.constantFrom(
    '{"queue":"orders","payload":{"__proto__":{"isAdmin":true}}}',
    '{"queue":"orders","payload":{"constructor":{"prototype":{"isAdmin":true}}}}',
    '{"queue":"orders","payload":[{"a":{"__proto__":null}}]}',
  ),
  deepObject.map((p) => `{"queue":"orders","payload":${p}}`),
  // payloads too deep to serialize
  fc.integer({ min: 20_000, max: 120_000 }).map((d) => `{"queue":"orders","payload":${'['.repeat(d) + ']'.repeat(d)}}`),
)

// ---- bodies that are not a job at all ----------------------------------------------------------------------------
const ONE_MIB = 1_048_576
const oversizedPayload = `{"queue":"orders","payload":"${'x'.repeat(ONE_MIB + 10)}"}`
const notAJob = fc.oneof(
  fc.string({ maxLength: 200 }).filter((s) => {
    try {
      JSON.parse(s)
      return false
    } catch {
      return true
    }
  }),
  fc.constantFrom(
    '{',
    '{"queue":"orders",',
    '[',
    'nul',
    '{"queue":"orders","payload":1}}',
    "{'queue':'orders'}",
    'NaN',
    '{"a":1,}',
    '\ufeff{}',
  ),
  fc
    .oneof(fc.integer(), fc.string(), fc.constant(null), fc.array(fc.integer(), { maxLength: 5 }), fc.boolean())
    .map((v) => JSON.stringify(v)),
  deep,
)

/** Random bytes, sent base64-encoded: mostly invalid UTF-8 and never a valid job. */
const randomBytesBody = fc.uint8Array({ minLength: 1, maxLength: 300 }).map((b) => Buffer.from(b))

/** URL-encoded like a client would; a lone surrogate (not encodable) goes raw, as a broken client would send it. */
function encodePathSegment(id: string): string {
  try {
    return encodeURIComponent(id)
  } catch {
    return id
  }
}

// ---- requests --------------------------------------------------------------------------------------------------
const jobBodyRoute = fc.constantFrom(['POST', '/jobs'], ['PUT', '/jobs/fuzz-existing'], ['PUT', '/jobs/fuzz-new'])

export const badRequest: fc.Arbitrary<BadRequest> = fc.oneof(
  {
    weight: 30,
    arbitrary: fc
      .tuple(jobBodyRoute, badJobBody)
      .map(([[m, p], body]) => ({ kind: 'bad job', event: apiEvent(m!, p!, undefined, { rawBody: body }) })),
  },
  {
    weight: 10,
    arbitrary: fc
      .tuple(jobBodyRoute, notAJob)
      .map(([[m, p], body]) => ({ kind: 'not a job', event: apiEvent(m!, p!, undefined, { rawBody: body }) })),
  },
  {
    weight: 5,
    arbitrary: fc
      .tuple(jobBodyRoute, randomBytesBody)
      .map(([[m, p], body]) => ({ kind: 'random bytes', event: apiEvent(m!, p!, undefined, { rawBytes: body }) })),
  },
  {
    weight: 1,
    arbitrary: jobBodyRoute.map(([m, p]) => ({
      kind: 'oversized payload',
      event: apiEvent(m!, p!, undefined, { rawBody: oversizedPayload }),
    })),
  },
  { weight: 3, arbitrary: jobBodyRoute.map(([m, p]) => ({ kind: 'no body', event: apiEvent(m!, p!) })) },
  // a valid job, wrong content type
  {
    weight: 8,
    arbitrary: fc
      .tuple(
        jobBodyRoute,
        fc.oneof(
          fc.constantFrom(
            'text/plain',
            'application/xml',
            'application/x-www-form-urlencoded',
            'multipart/form-data; boundary=x',
            'application/jsonx',
            'json',
            '',
            'application/json-seq',
            'text/json',
          ),
          fc.string({ maxLength: 30 }).filter((s) => !/json/i.test(s)),
        ),
      )
      .map(([[m, p], ct]) => ({
        kind: 'content type',
        event: apiEvent(m!, p!, undefined, { rawBody: '{"queue":"orders","payload":1}', contentType: ct }),
      })),
  },
  // bad ids in the path
  {
    weight: 8,
    // (GET /jobs/ with an empty id is the pending list, a read: not a bad id)
    arbitrary: fc
      .tuple(fc.constantFrom('GET', 'PUT', 'DELETE'), badId)
      .filter(([m, id]) => !(m === 'GET' && id === ''))
      .map(([m, id]) => ({
        kind: 'bad id',
        event: apiEvent(
          m,
          `/jobs/${encodePathSegment(id)}`,
          undefined,
          m === 'PUT' ? { rawBody: '{"queue":"orders","payload":1}' } : {},
        ),
      })),
  },
  // (written as Biome 2.6 formats it: from the one-line form its first pass gives another layout than its second)
  {
    weight: 2,
    arbitrary: fc.constantFrom('%E0%A4%A', '%ZZ', '%', '%C0%AF').map((seg) => ({
      kind: 'undecodable id',
      event: apiEvent('GET', `/jobs/${seg}`, undefined, { routeKey: '$default' }),
    })),
  },
  // routes and methods that do not exist (a catch-all route would hand them to us)
  {
    weight: 6,
    arbitrary: fc
      .tuple(
        fc.constantFrom('PATCH', 'HEAD', 'OPTIONS', 'TRACE', 'CONNECT', 'GET', 'POST', 'PUT', 'DELETE', 'get', 'FOO'),
        fc.oneof(
          fc.constantFrom('/', '/job', '/jobs/a/b', '/admin', '/stats/x', '/jobs/batch/1', '//jobs', '/../jobs'),
          fc.webPath(),
        ),
      )
      .filter(([m, p]) => !/^\/(jobs(\/[^/]+)?|stats)\/?$/.test(p) || !['GET', 'POST', 'PUT', 'DELETE'].includes(m))
      .map(([m, p]) => ({
        kind: 'bad route',
        event: apiEvent(m, p, undefined, { routeKey: '$default', rawBody: '{"queue":"orders","payload":1}' }),
      })),
  },
  // batches: not a batch, too many, unknown keys, or every item bad
  {
    weight: 10,
    arbitrary: fc
      .oneof(
        notAJob,
        fc.array(badJobBody, { minLength: 1, maxLength: 5 }).map((items) => `{"jobs":[${items.join(',')}]}`),
        fc.constant(`{"jobs":[${Array.from({ length: 101 }, () => '{"queue":"orders","payload":1}').join(',')}]}`),
        jsonText.map((v) => `{"jobs":[],"extra":${v}}`),
        fc.constantFrom('{"jobs":{}}', '{"jobs":"x"}', '{}', '{"__proto__":{"jobs":[]}}', '{"jobs":null}'),
      )
      .map((body) => ({ kind: 'bad batch', event: apiEvent('POST', '/jobs/batch', undefined, { rawBody: body }) })),
  },
)
