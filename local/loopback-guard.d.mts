import type { IncomingMessage, Server, ServerResponse } from 'node:http'

export interface Refusal {
  status: 421 | 403
  code: 'MisdirectedRequest' | 'Forbidden'
  message: string
}

/** Whether `host` (a Host header) names this machine's loopback, at any port (local/loopback-guard.mjs). */
export function isLoopbackHost(host: string | undefined): boolean
/** Why a request must not be answered, or null (local/loopback-guard.mjs says what is refused). */
export function refusal(req: Pick<IncomingMessage, 'headers'>, port: number, allowedOrigins?: string[]): Refusal | null
/** The origins allowed by SDQ_LOCAL_ALLOWED_ORIGINS; throws naming the setting when one is not an origin. */
export function allowedOriginsFrom(env: NodeJS.ProcessEnv): string[]
/** Drops every access-control-* header the server's own code sets on `res`. */
export function withoutCorsHeaders<R extends ServerResponse>(res: R): R
/** The refusal as an HTTP answer with the API's error body. */
export function answerRefusal(res: ServerResponse, refused: Refusal): void
/** Guards one server's 'request' and 'upgrade' events. */
export function guardServer<S extends Server>(server: S, allowedOrigins?: string[]): S
