// The configurations docs/cost.md prices side by side (`npm run cost -- --configurations`): the default template and
// each default changed back, one --param at a time, then all at once (the API Gateway front door, continuous
// scanning and the dashboard). Each is packaged from serverless.yml: no figure of them is typed anywhere.
export const CONFIGURATIONS: readonly (readonly string[])[] = [
  [],
  ['scanMode=continuous'],
  ['apiEndpoint=httpApi'],
  ['dashboard=true'],
  ['createEndpoints=true'],
  ['apiEndpoint=httpApi', 'scanMode=continuous', 'dashboard=true'],
]
