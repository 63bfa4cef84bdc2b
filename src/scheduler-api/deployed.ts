// How the deployed `scheduler` function (functions/scheduler.ts) is reached: under /scheduler on the HTTP API, or at
// the root of a Function URL of its own. IAM authorization there has verified the signature before the function
// runs, for the service that front door checks: execute-api (HTTP API) or lambda (Function URL). A client signs for
// that service with one extra line, `signingName` (docs/scheduler-api.md); `scheduler` stays accepted for local use.
import type { SchedulerHandlerOptions } from './handler'

export const DEPLOYED_BASE_PATH = '/scheduler'

export const deployedOptions: Pick<SchedulerHandlerOptions, 'basePath' | 'acceptedServices' | 'trustFrontDoorIam'> = {
  basePath: DEPLOYED_BASE_PATH,
  acceptedServices: ['execute-api', 'lambda', 'scheduler'],
  // The front door's IAM check is the authentication; the header check stays for events that do not say so.
  trustFrontDoorIam: true,
}
