// One function per route: read the request, call DelayQueue (which validates), shape the answer.
import type { APIGatewayProxyEventV2 } from 'aws-lambda'
import type { DelayQueue } from '../client/delay-queue'
import { JobNotFoundError } from '../errors'
import { validateBatch, validateJobId, validateJobRef } from '../client/validation'
import { parseJson, rawJsonBody } from './body'
import { errorBody } from './error-response'
import { BatchTooLargeError } from './errors'
import { json, jobLocation, noContent, type ApiResponse } from './response'
import type { RouteName } from './router'

export interface RouteOptions {
  /** Largest POST /jobs/batch body accepted, in bytes (413 above). */
  maxBatchBytes: number
}

export type RouteHandler = (
  queue: DelayQueue,
  event: APIGatewayProxyEventV2,
  id: string | undefined,
  options: RouteOptions,
) => Promise<ApiResponse>

export const routes: Record<RouteName, RouteHandler> = {
  async createJob(queue, event) {
    const job = await queue.schedule(parseJson(rawJsonBody(event)))
    return json(201, job, { location: jobLocation(job.id) })
  },

  async createBatch(queue, event, _id, options) {
    const raw = rawJsonBody(event)
    if (raw.bytes > options.maxBatchBytes) throw new BatchTooLargeError(raw.bytes, options.maxBatchBytes)
    const inputs = validateBatch(parseJson(raw))
    const results = await queue.scheduleMany(inputs)
    // Per-job errors are our own (validation, size, conflict); anything else throws out of scheduleMany (500/503).
    const internal = { code: 'InternalError', message: 'internal error' }
    return json(200, { results: results.map((r) => ('error' in r ? { error: errorBody(r.error) ?? internal } : r)) })
  },

  async getJob(queue, _event, id) {
    const jobId = validateJobRef(id)
    const view = await queue.get(jobId)
    if (!view) throw new JobNotFoundError(jobId)
    return json(200, view)
  },

  async putJob(queue, event, id) {
    const jobId = validateJobId(id)
    const { created, ...job } = await queue.reschedule(jobId, parseJson(rawJsonBody(event)))
    return created ? json(201, job, { location: jobLocation(job.id) }) : json(200, job)
  },

  async deleteJob(queue, _event, id) {
    await queue.cancel(validateJobRef(id))
    return noContent()
  },

  async stats(queue) {
    return json(200, await queue.stats())
  },
}
