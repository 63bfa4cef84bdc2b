// `parsePayload`: a Standard Schema (zod, valibot, arktype, … — the interface is copied here as types, as the spec
// intends), a type guard, or a sync function that returns the payload or throws. Whatever it is, the toolkit awaits
// what comes back (a schema may validate asynchronously; an async function typed loosely still gets awaited, so its
// rejection is a rejection and never an unhandled one), and a boolean answer is a guard's verdict, never the payload.
import { clip, issuesOf, summarizeIssues, type PayloadIssue, type SchemaIssue } from './issues'

/** The Standard Schema v1 interface (standardschema.dev), structurally: any library implementing it fits. */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly '~standard': StandardSchemaProps<Input, Output>
}

export interface StandardSchemaProps<Input = unknown, Output = Input> {
  readonly version: 1
  readonly vendor: string
  readonly validate: (value: unknown) => StandardSchemaResult<Output> | Promise<StandardSchemaResult<Output>>
  readonly types?: { readonly input: Input; readonly output: Output } | undefined
}

export type StandardSchemaResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | { readonly issues: ReadonlyArray<SchemaIssue> }

/** `(payload: unknown) => payload is Order`: true keeps the payload as it is, false rejects it. */
export type PayloadGuard<Payload> = (payload: unknown) => payload is Payload
/** Returns the (validated, possibly transformed) payload, or throws. */
export type PayloadParseFunction<Payload> = (payload: unknown) => Payload

export type PayloadParser<Payload> =
  | StandardSchemaV1<unknown, Payload>
  | PayloadGuard<Payload>
  | PayloadParseFunction<Payload>

/**
 * Compile-time refusals for jobHandler's options: a parser whose result is a Promise (`OrderSchema.parseAsync`: pass
 * the schema itself) or a plain boolean (a guard that was not declared as one: its `true` would become the payload).
 */
export type ParserCheck<Payload> = 0 extends 1 & Payload
  ? unknown
  : [Payload] extends [PromiseLike<unknown>]
    ? { parsePayload?: 'parsePayload returns a Promise: pass the schema itself (Standard Schema) or a sync parser' }
    : [Payload] extends [boolean]
      ? { parsePayload?: StandardSchemaV1<unknown, Payload> | PayloadGuard<Payload> }
      : unknown

export type PayloadOutcome<Payload> =
  | { ok: true; payload: Payload }
  | { ok: false; reason: string; issues?: PayloadIssue[]; issueCount?: number }

export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  const props = (value as { '~standard'?: { validate?: unknown } } | null)?.['~standard']
  return typeof props?.validate === 'function'
}

export async function applyPayloadParser<Payload>(
  parser: PayloadParser<Payload>,
  payload: unknown,
): Promise<PayloadOutcome<Payload>> {
  try {
    if (isStandardSchema(parser)) {
      const result = await parser['~standard'].validate(payload)
      if (result.issues) return rejected(result.issues)
      return { ok: true, payload: result.value as Payload }
    }
    const value: unknown = await (parser as (p: unknown) => unknown)(payload)
    if (typeof value === 'boolean') {
      return value
        ? { ok: true, payload: payload as Payload }
        : { ok: false, reason: 'payload rejected by parsePayload' }
    }
    return { ok: true, payload: value as Payload }
  } catch (error) {
    const issues = issuesOf(error)
    if (issues) return rejected(issues)
    return { ok: false, reason: clip(`payload rejected: ${error instanceof Error ? error.message : String(error)}`) }
  }
}

function rejected(raw: readonly SchemaIssue[]): PayloadOutcome<never> {
  const { reason, issues, issueCount } = summarizeIssues(raw)
  return { ok: false, reason, issues, issueCount }
}
