// osls plugin: with --param="createEndpoints=true" (and egress=endpoints), the interface VPC endpoints the functions
// reach AWS through, created in the stack: SQS always, Lambda in on-demand mode (enqueuers start scans through its
// Invoke API), in the functions' subnets, with private DNS (the SDK's usual hostnames resolve to them) and a security
// group that lets the functions' first security group in on 443. A deploy into a bare VPC then works; without it
// egress=endpoints assumes the VPC has them already. One `resources` entry: ${endpoints:resources}. Each endpoint is
// billed per AZ (subnet) and hour, and per GB: docs/cost.md.
// CommonJS with erasable types only, like deploy/monitoring.ts.

interface EndpointsArgs {
  resolveVariable: (variable: string) => Promise<unknown>
}

// biome-ignore lint/suspicious/noExplicitAny: CloudFormation resources as plain JSON
type EndpointNode = Record<string, any>

class EndpointsError extends Error {}

function endpoint(service: string): EndpointNode {
  return {
    Type: 'AWS::EC2::VPCEndpoint',
    Properties: {
      VpcEndpointType: 'Interface',
      ServiceName: { 'Fn::Sub': `com.amazonaws.\${AWS::Region}.${service}` },
      VpcId: { Ref: 'VpcId' },
      SubnetIds: { Ref: 'SubnetIds' },
      SecurityGroupIds: [{ Ref: 'EndpointSecurityGroup' }],
      PrivateDnsEnabled: true,
    },
  }
}

/** The endpoints' resources for a scan mode. */
function endpointResources(ssmPrefix: string, scanMode: string): EndpointNode {
  const Resources: EndpointNode = {
    EndpointSecurityGroup: {
      Type: 'AWS::EC2::SecurityGroup',
      Properties: {
        GroupDescription: 'Interface VPC endpoints of the delay queue: HTTPS from its functions',
        VpcId: { Ref: 'VpcId' },
        SecurityGroupIngress: [
          {
            IpProtocol: 'tcp',
            FromPort: 443,
            ToPort: 443,
            // Every function has all of SecurityGroupIds: the first one names them all.
            SourceSecurityGroupId: { 'Fn::Select': [0, { Ref: 'SecurityGroupIds' }] },
          },
        ],
      },
    },
    SqsVpcEndpoint: endpoint('sqs'),
  }
  if (scanMode === 'on-demand') Resources.LambdaVpcEndpoint = endpoint('lambda')
  return {
    Parameters: {
      VpcId: {
        Type: 'AWS::SSM::Parameter::Value<AWS::EC2::VPC::Id>',
        Default: `${ssmPrefix}/vpc-id`,
        Description: 'The VPC of SubnetIds, where createEndpoints=true creates the interface endpoints',
      },
    },
    Resources,
  }
}

class ServerlessEndpoints {
  configurationVariablesSources: Record<string, { resolve: (args: EndpointsArgs) => Promise<{ value: unknown }> }>

  constructor() {
    this.configurationVariablesSources = {
      endpoints: {
        resolve: async ({ resolveVariable }) => {
          if (String(await resolveVariable('param:createEndpoints')) !== 'true') return { value: { Resources: {} } }
          const egress = String(await resolveVariable('param:egress'))
          if (egress !== 'endpoints')
            throw new EndpointsError(
              `createEndpoints=true needs egress=endpoints (got egress=${egress}): over IPv6 the functions need no endpoint`,
            )
          const ssmPrefix = String(await resolveVariable('param:ssmPrefix'))
          const scanMode = String(await resolveVariable('param:scanMode'))
          return { value: endpointResources(ssmPrefix, scanMode) }
        },
      },
    }
  }
}

module.exports = ServerlessEndpoints
