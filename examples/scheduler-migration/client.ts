// The EventBridge Scheduler client of an application moving to the delay queue. Everything else in this example is
// code written for EventBridge Scheduler, unchanged. Where the client points:
//   - EventBridge Scheduler itself: neither variable set (the SDK's defaults).
//   - `npm run dev` of the delay queue: SCHEDULER_ENDPOINT from its .dev/env (dummy credentials are fine there).
//   - the deployed delay queue: SCHEDULER_ENDPOINT = the stack's SchedulerApiUrl output, and SCHEDULER_SIGNING_NAME =
//     execute-api (HTTP API) or lambda (Function URL): IAM authorization there checks the signature's service name.
import { SchedulerClient } from '@aws-sdk/client-scheduler'

export function schedulerClient(env: NodeJS.ProcessEnv = process.env): SchedulerClient {
  return new SchedulerClient({
    ...(env.SCHEDULER_ENDPOINT ? { endpoint: env.SCHEDULER_ENDPOINT } : {}),
    // `signingName` is a client option the SDK reads but its config type does not list: hence the spread.
    ...(env.SCHEDULER_SIGNING_NAME ? { ...{ signingName: env.SCHEDULER_SIGNING_NAME } } : {}),
  })
}
