// Loaded into serverless-offline's process before it starts (`node --import`, local/offline.ts): every HTTP server it
// opens (the API, the Lambda endpoint, the WebSocket and ALB listeners) answers only as local/loopback-guard.mjs says.
// Its ports cannot be hidden (serverless-offline binds TCP ports only), and the Lambda endpoint would run any event
// posted to it, `text/plain` from another site's page included: with this guard a page's request is refused before
// serverless-offline reads it. No origin is allowed here: browsers reach the API through the gate (local/api-gate.ts),
// which decides on origins and drops the Origin header before it forwards.
import http from 'node:http'
import { guardServerEvents } from './loopback-guard.mjs'

const emit = http.Server.prototype.emit
http.Server.prototype.emit = function (event, ...args) {
  return guardServerEvents(emit, this, event, args)
}
