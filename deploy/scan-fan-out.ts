// osls plugin: whether the scan function can fan out (start scan workers, src/scan/run/fan-out.ts), decided from what
// the functions will run with, and what follows from it. functions/scan.ts fans out only with SCAN_MAX_WORKERS above 0
// and no FIFO target queue in QUEUES; the template grants the invoke and routes to Lambda under the same rule:
//   ${scanFanOut:resources}  ScanStartsWorkersPolicy (the scan role may invoke the scan function, nothing else) when
//                            fan-out can run, else nothing: a right no code path uses is not granted
//   ${scanFanOut:enabled}    true / false, for deploy/endpoints.ts (a Lambda endpoint whenever a function invokes)
// CommonJS with erasable types only, like deploy/target-queues.ts.

interface FanOutArgs {
  address?: string
  resolveConfigurationProperty: (path: string[]) => Promise<unknown>
}

class ScanFanOutError extends Error {}

/** Same rule as src/queues.ts isFifoQueue. */
const isFifo = (name: string) => name.endsWith('.fifo')

/** SCAN_MAX_WORKERS as src/config.ts reads it (0-100; unset: 4). */
function maxWorkers(value: unknown): number {
  if (value === undefined || value === null || value === '') return 4
  const text = String(value).trim()
  const n = Number(text)
  if (!/^\d+$/.test(text) || n > 100)
    throw new ScanFanOutError(`SCAN_MAX_WORKERS must be a whole number from 0 to 100, got ${JSON.stringify(value)}`)
  return n
}

/** Fan-out's own policy: inside ScanRole the role and the function would wait for each other (a circular dependency). */
const startsWorkersPolicy = {
  Type: 'AWS::IAM::Policy',
  Properties: {
    PolicyName: 'scan-starts-workers',
    Roles: [{ Ref: 'ScanRole' }],
    PolicyDocument: {
      Version: '2012-10-17',
      Statement: [
        { Effect: 'Allow', Action: 'lambda:InvokeFunction', Resource: { 'Fn::GetAtt': ['ScanLambdaFunction', 'Arn'] } },
      ],
    },
  },
}

class ServerlessScanFanOut {
  configurationVariablesSources: Record<string, { resolve: (args: FanOutArgs) => Promise<{ value: unknown }> }>

  constructor() {
    this.configurationVariablesSources = {
      scanFanOut: {
        resolve: async ({ address, resolveConfigurationProperty }) => {
          const env = ((await resolveConfigurationProperty(['provider', 'environment'])) ?? {}) as Record<
            string,
            unknown
          >
          const targets = (await resolveConfigurationProperty(['custom', 'delayQueue', 'targetQueues'])) ?? []
          const names = Array.isArray(targets) ? targets.map(String) : []
          const enabled = maxWorkers(env.SCAN_MAX_WORKERS) > 0 && !names.some(isFifo)
          switch (address) {
            case 'enabled':
              return { value: enabled }
            case 'resources':
              return { value: { Resources: enabled ? { ScanStartsWorkersPolicy: startsWorkersPolicy } : {} } }
            default:
              throw new ScanFanOutError(`\${scanFanOut:${address ?? ''}}: unknown address (resources, enabled)`)
          }
        },
      },
    }
  }
}

module.exports = ServerlessScanFanOut
