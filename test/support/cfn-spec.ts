// A CloudFormation template against the resource specification the AWS CDK itself is built from
// (@aws-cdk/aws-service-spec: every resource type of the CloudFormation registry schemas, with the legacy resource
// specification merged in). Checks what `serverless package` cannot: each resource type exists, each property
// exists and has the type the specification gives it (nested property types too), required properties are present,
// and values with a fixed set of allowed values use one of them. Ref, GetAtt, Sub, conditions, exports and the size
// limits are in cfn-refs.ts.
import { loadAwsServiceSpecSync } from '@aws-cdk/aws-service-spec'
import type { Property, PropertyType, Resource, SpecDatabase } from '@aws-cdk/service-spec-types'
import { type Finding, finding, intrinsicName, isNoValue, type Json, type Template } from './cfn-template'

let loaded: SpecDatabase | undefined

/** The specification database (about 0.3 s to load; loaded once per test file). */
export function specDatabase(): SpecDatabase {
  loaded ??= loadAwsServiceSpecSync()
  return loaded
}

/** The specification of a resource type, or undefined when CloudFormation has no such type. */
export function resourceSpec(type: string, db = specDatabase()): Resource | undefined {
  return db.lookup('resource', 'cloudFormationType', 'equals', type)[0]
}

/**
 * Required by CloudFormation's own schema although the CDK's database does not mark them (it relaxes
 * AWS::CloudWatch::Alarm for metric-math alarms; the registry schema still requires both).
 */
const ALSO_REQUIRED: Record<string, string[]> = {
  'AWS::CloudWatch::Alarm': ['ComparisonOperator', 'EvaluationPeriods'],
}

/** Attributes a resource may carry beside Type and Properties. */
const RESOURCE_ATTRIBUTES = new Set([
  'Type',
  'Properties',
  'DependsOn',
  'Condition',
  'DeletionPolicy',
  'UpdateReplacePolicy',
  'Metadata',
  'CreationPolicy',
  'UpdatePolicy',
])

/** Every resource's type, attributes and properties against the specification. */
export function checkResourceSpecs(template: Template, db = specDatabase()): Finding[] {
  const findings: Finding[] = []
  for (const [id, resource] of Object.entries<Json>(template.Resources ?? {})) {
    for (const key of Object.keys(resource)) {
      if (!RESOURCE_ATTRIBUTES.has(key)) findings.push(finding(id, key, 'unknown resource attribute', key))
    }
    if (String(resource.Type).startsWith('Custom::') || resource.Type === 'AWS::CloudFormation::CustomResource')
      continue
    const spec = resourceSpec(resource.Type, db)
    if (!spec) {
      findings.push(finding(id, 'Type', 'resource type does not exist', String(resource.Type)))
      continue
    }
    const properties = resource.Properties ?? {}
    findings.push(...checkProperties(id, 'Properties', properties, spec.properties, db))
    for (const name of ALSO_REQUIRED[resource.Type] ?? [])
      if (properties[name] === undefined)
        findings.push(finding(id, `Properties.${name}`, 'required property missing', name))
  }
  return findings
}

/** An object of properties (a resource's, or a nested property type's) against their specification. */
export function checkProperties(
  id: string,
  path: string,
  value: Json,
  specs: Record<string, Property>,
  db: SpecDatabase,
): Finding[] {
  if (intrinsicName(value) === 'Fn::If')
    return ifBranches(value).flatMap((v) => checkProperties(id, path, v, specs, db))
  if (intrinsicName(value)) return []
  if (!value || typeof value !== 'object' || Array.isArray(value))
    return [finding(id, path, 'wrong type', `expected an object, got ${JSON.stringify(value)}`)]
  const findings: Finding[] = []
  for (const [name, spec] of Object.entries(specs)) {
    if (spec.required && value[name] === undefined)
      findings.push(finding(id, `${path}.${name}`, 'required property missing', name))
  }
  for (const [name, v] of Object.entries<Json>(value)) {
    const spec = specs[name]
    if (!spec) {
      findings.push(finding(id, `${path}.${name}`, 'property does not exist', `not a property of ${path}`))
      continue
    }
    if (isNoValue(v)) continue
    const types = [spec.type, ...(spec.previousTypes ?? [])]
    const attempts = types.map((t) => checkValue(id, `${path}.${name}`, v, t, db))
    // The current type, or an earlier one CloudFormation still accepts: the fewest complaints win.
    if (attempts.every((a) => a.length > 0)) findings.push(...attempts.sort((a, b) => a.length - b.length)[0]!)
  }
  return findings
}

/** One value against one property type. */
export function checkValue(id: string, path: string, value: Json, type: PropertyType, db: SpecDatabase): Finding[] {
  const name = intrinsicName(value)
  if (name === 'Fn::If') return ifBranches(value).flatMap((v) => checkValue(id, path, v, type, db))
  // Any other function resolves at deploy time; its arguments are checked by cfn-refs.ts.
  if (name) return []
  const wrong = (expected: string) => [
    finding(id, path, 'wrong type', `expected ${expected}, got ${JSON.stringify(value)?.slice(0, 80)}`),
  ]
  switch (type.type) {
    case 'string':
    case 'date-time':
      if (typeof value === 'object' || value === null) return wrong('a string')
      if (type.type === 'string' && type.allowedValues?.length && !type.allowedValues.includes(String(value)))
        return [finding(id, path, 'value not allowed', `${value} is not one of ${type.allowedValues.join(', ')}`)]
      return []
    case 'integer':
    case 'number': {
      const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value
      if (typeof n !== 'number' || Number.isNaN(n)) return wrong(`a ${type.type}`)
      if (type.type === 'integer' && !Number.isInteger(n)) return wrong('an integer')
      if (type.type === 'integer' && type.allowedValues?.length && !type.allowedValues.includes(n))
        return [finding(id, path, 'value not allowed', `${n} is not one of ${type.allowedValues.join(', ')}`)]
      return []
    }
    case 'boolean':
      return typeof value === 'boolean' || value === 'true' || value === 'false' ? [] : wrong('a boolean')
    case 'json':
      return typeof value === 'object' || typeof value === 'string' ? [] : wrong('a JSON object')
    case 'null':
      return value === null ? [] : wrong('null')
    case 'tag':
      return checkProperties(id, path, value, TAG, db)
    case 'array':
      if (!Array.isArray(value)) return wrong('a list')
      return value.flatMap((v, i) => (isNoValue(v) ? [] : checkValue(id, `${path}[${i}]`, v, type.element, db)))
    case 'map':
      if (!value || typeof value !== 'object' || Array.isArray(value)) return wrong('a map')
      return Object.entries<Json>(value).flatMap(([k, v]) => checkValue(id, `${path}.${k}`, v, type.element, db))
    case 'ref': {
      const def = db.get('typeDefinition', type.reference)
      return checkProperties(id, path, value, def.properties, db)
    }
    case 'union': {
      const attempts = type.types.map((t) => checkValue(id, path, value, t, db))
      return attempts.some((a) => a.length === 0) ? [] : attempts.sort((a, b) => a.length - b.length)[0]!
    }
    default:
      return []
  }
}

const TAG: Record<string, Property> = {
  Key: { type: { type: 'string' }, required: true },
  Value: { type: { type: 'string' }, required: true },
}

/** The two values of an Fn::If, without AWS::NoValue. */
function ifBranches(value: Json): Json[] {
  const args = value['Fn::If']
  return Array.isArray(args) ? args.slice(1).filter((v) => !isNoValue(v)) : []
}
