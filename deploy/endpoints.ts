// osls plugin: with --param="createEndpoints=true" (and egress=endpoints), the interface VPC endpoints the functions
// reach AWS through, created in the stack: SQS always, and Lambda whenever a function may invoke one (the API in
// on-demand mode starts scans, the scan function starts scan workers where fan-out can run: deploy/scan-fan-out.ts),
// with private DNS (the SDK's usual hostnames resolve to them) and a security group that lets the functions' first
// security group in on 443. A deploy into a bare VPC then works; without it egress=endpoints assumes the VPC has them
// already, or a NAT gateway. One `resources` entry: ${endpoints:resources}.
// An interface endpoint takes at most one subnet per Availability Zone (CloudFormation refuses two in one AZ), while
// the functions may use several: the endpoints' subnets are an SSM parameter of their own (endpointSubnetIdsSsm),
// the functions' list by default. Each endpoint is billed per AZ (subnet) and hour, and per GB: docs/cost.md.
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
      SubnetIds: { Ref: 'EndpointSubnetIds' },
      SecurityGroupIds: [{ Ref: 'EndpointSecurityGroup' }],
      PrivateDnsEnabled: true,
    },
  }
}

interface EndpointChoices {
  ssmPrefix: string
  /** SSM parameter name of the endpoints' subnets (one per AZ). */
  subnetIdsSsm: string
  /** A function may invoke Lambda: the API in on-demand mode, or the scan function's fan-out. */
  invokesLambda: boolean
}

/** The endpoints' resources. */
function endpointResources({ ssmPrefix, subnetIdsSsm, invokesLambda }: EndpointChoices): EndpointNode {
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
  if (invokesLambda) Resources.LambdaVpcEndpoint = endpoint('lambda')
  return {
    Parameters: {
      VpcId: {
        Type: 'AWS::SSM::Parameter::Value<AWS::EC2::VPC::Id>',
        Default: `${ssmPrefix}/vpc-id`,
        Description: 'The VPC of SubnetIds, where createEndpoints=true creates the interface endpoints',
      },
      EndpointSubnetIds: {
        Type: 'AWS::SSM::Parameter::Value<List<AWS::EC2::Subnet::Id>>',
        Default: subnetIdsSsm,
        Description: 'Subnets of the interface endpoints, at most one per Availability Zone (StringList)',
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
          const subnetIdsSsm = String(await resolveVariable('param:endpointSubnetIdsSsm'))
          const onDemand = String(await resolveVariable('param:scanMode')) === 'on-demand'
          const fanOut = (await resolveVariable('scanFanOut:enabled')) === true
          return { value: endpointResources({ ssmPrefix, subnetIdsSsm, invokesLambda: onDemand || fanOut }) }
        },
      },
    }
  }
}

module.exports = ServerlessEndpoints
