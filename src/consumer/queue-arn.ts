// What a record's eventSourceARN tells us: region, queue URL and whether the queue is FIFO.

/** arn:aws:sqs:<region>:<account>:<name> */
export function parseQueueArn(arn: string): { region: string; account: string; name: string } {
  const parts = arn.split(':')
  if (parts.length < 6 || parts[2] !== 'sqs') throw new Error(`not an SQS queue ARN: ${arn}`)
  return { region: parts[3]!, account: parts[4]!, name: parts.slice(5).join(':') }
}

/** The queue URL an ARN names (the partition's standard endpoint; China regions use amazonaws.com.cn). */
export function queueUrlFromArn(arn: string): string {
  const { region, account, name } = parseQueueArn(arn)
  const domain = region.startsWith('cn-') ? 'amazonaws.com.cn' : 'amazonaws.com'
  return `https://sqs.${region}.${domain}/${account}/${name}`
}

export function isFifoArn(arn: string): boolean {
  return arn.endsWith('.fifo')
}
