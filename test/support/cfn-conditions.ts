// A template's optional parts as CloudFormation deploys them: its Conditions evaluated with the stack parameters'
// values (their defaults unless given), each `Fn::If` replaced by the branch taken, `AWS::NoValue` dropped, and a Ref to
// a String parameter replaced by its value (SSM-typed ones stay Refs). Only what the Conditions of serverless.yml use
// (Ref to a parameter, Fn::Equals, Fn::Not, Fn::And, Fn::Or); other functions stay as they are.
type Json = Record<string, any>

const NO_VALUE = Symbol('AWS::NoValue')

/** `node` (a part of `template`) as deployed with the parameter values `given` (the rest at their defaults). */
export function deployedWith<T>(template: Json, node: T, given: Record<string, string> = {}): T {
  const parameter = (name: string): string => {
    if (name in given) return given[name]!
    const declared = template.Parameters?.[name]
    if (!declared) throw new Error(`no parameter ${name} in the template`)
    return declared.Default ?? ''
  }
  const value = (v: any): any => (v && typeof v === 'object' && 'Ref' in v ? parameter(v.Ref) : v)
  const holds = (c: any): boolean => {
    if (typeof c === 'object' && 'Condition' in c) return holds(template.Conditions[c.Condition])
    if ('Fn::Equals' in c) return value(c['Fn::Equals'][0]) === value(c['Fn::Equals'][1])
    if ('Fn::Not' in c) return !holds(c['Fn::Not'][0])
    if ('Fn::And' in c) return c['Fn::And'].every(holds)
    if ('Fn::Or' in c) return c['Fn::Or'].some(holds)
    throw new Error(`condition not understood: ${JSON.stringify(c)}`)
  }
  const resolve = (n: any): any => {
    if (Array.isArray(n)) return n.map(resolve).filter((x) => x !== NO_VALUE)
    if (!n || typeof n !== 'object') return n
    if (n.Ref === 'AWS::NoValue') return NO_VALUE
    if (typeof n.Ref === 'string' && template.Parameters?.[n.Ref]?.Type === 'String') return parameter(n.Ref)
    if ('Fn::If' in n) {
      const [name, then, otherwise] = n['Fn::If']
      return resolve(holds(template.Conditions[name]) ? then : otherwise)
    }
    const out: Json = {}
    for (const [k, v] of Object.entries(n)) {
      const r = resolve(v)
      if (r !== NO_VALUE) out[k] = r
    }
    return out
  }
  return resolve(node)
}
