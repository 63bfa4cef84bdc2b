// What the template checks share: findings (where, which rule, what), and a walk over CloudFormation's intrinsic
// functions. Used by test/support/cfn-spec.ts, cfn-refs.ts, iam-check.ts and metric-check.ts.

/** CloudFormation templates are plain JSON, read field by field. */
export type Json = any
export type Template = Record<string, Json>

/** One broken rule: the resource (or template section), the property path inside it, the rule and the detail. */
export interface Finding {
  resource: string
  path: string
  rule: string
  detail: string
}

export const finding = (resource: string, path: string, rule: string, detail: string): Finding => ({
  resource,
  path,
  rule,
  detail,
})

/** One line per finding, for a test failure that names all of them. */
export const describeFindings = (findings: Finding[]): string[] =>
  findings.map((f) => `${f.resource} ${f.path}: ${f.rule} (${f.detail})`)

/** The intrinsic functions and condition functions CloudFormation evaluates in a template. */
const INTRINSICS = new Set([
  'Ref',
  'Condition',
  'Fn::Base64',
  'Fn::Cidr',
  'Fn::FindInMap',
  'Fn::GetAtt',
  'Fn::GetAZs',
  'Fn::If',
  'Fn::ImportValue',
  'Fn::Join',
  'Fn::Length',
  'Fn::Select',
  'Fn::Split',
  'Fn::Sub',
  'Fn::ToJsonString',
  'Fn::Transform',
  'Fn::And',
  'Fn::Equals',
  'Fn::Not',
  'Fn::Or',
])

/** The name of the intrinsic function `value` is ({ "Fn::Join": ... } -> "Fn::Join"), or undefined. */
export function intrinsicName(value: Json): string | undefined {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined
  const keys = Object.keys(value)
  if (keys.length !== 1) return undefined
  const key = keys[0]!
  return INTRINSICS.has(key) || key.startsWith('Fn::') ? key : undefined
}

export const isNoValue = (value: Json): boolean => intrinsicName(value) === 'Ref' && value.Ref === 'AWS::NoValue'

/** Calls `visit` for every object and array in `value` (depth first), with its path below `path`. */
export function walk(value: Json, path: string, visit: (node: Json, path: string) => void): void {
  if (!value || typeof value !== 'object') return
  visit(value, path)
  if (Array.isArray(value)) value.forEach((v, i) => walk(v, `${path}[${i}]`, visit))
  else for (const [k, v] of Object.entries(value)) walk(v, path ? `${path}.${k}` : k, visit)
}

/** A deep copy, for planting a defect in a real template without touching the original. */
export const copy = <T>(value: T): T => structuredClone(value)
