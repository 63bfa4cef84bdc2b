// osls plugin, for `serverless offline` only: a path whose percent-encoding does not decode (`/jobs/%`, `/jobs/%ZZ`,
// `/jobs/%C0%AF`) reaches the api function, which answers it as it does deployed: our 400 ValidationError naming the
// id. serverless-offline's router (hapi) decodes every path to match a route and answered such paths itself, with
// hapi's own 400 body. So, before its server starts, every hapi server of this process gets an onRequest step that
// escapes each "%" of an undecodable path ("%ZZ" -> "%25ZZ"): hapi then matches the route and hands the api function
// the path parameter as sent ("%ZZ"), which src/api/router.ts refuses like a deployed API's. Decodable paths are
// left as they are. Nothing of this is packaged or deployed.
//
// Written in CommonJS with erasable types only, like deploy/target-queues.ts (osls loads plugins with require()).

interface HapiRequest {
  path: string
  url: URL
  setUrl(url: string): void
}

interface HapiServer {
  ext(event: 'onRequest', method: (request: HapiRequest, h: { continue: symbol }) => symbol): void
  start(): Promise<void>
}

const PATCHED = Symbol.for('serverless-delay-queue.offline-path-encoding')

/** The path with every "%" escaped when it does not decode, else null. */
function escapedPath(path: string): string | null {
  try {
    decodeURIComponent(path)
    return null
  } catch {
    return path.replaceAll('%', '%25')
  }
}

/** Adds the onRequest step to every hapi server this process starts (serverless-offline's, here). */
function patchHapi(): void {
  // The same module instance serverless-offline imports (one node_modules/@hapi/hapi).
  const hapi = require('@hapi/hapi') as { server(options: object): HapiServer }
  const proto = Object.getPrototypeOf(hapi.server({})) as HapiServer & { [PATCHED]?: true }
  if (proto[PATCHED]) return
  proto[PATCHED] = true
  const start = proto.start
  proto.start = async function (this: HapiServer) {
    this.ext('onRequest', (request, h) => {
      const escaped = escapedPath(request.path)
      if (escaped !== null) request.setUrl(`${escaped}${request.url.search}`)
      return h.continue
    })
    return start.call(this)
  }
}

class ServerlessOfflinePathEncoding {
  hooks: Record<string, () => void>

  constructor() {
    this.hooks = {
      'before:offline:start': patchHapi,
      'before:offline:start:init': patchHapi,
    }
  }
}

module.exports = ServerlessOfflinePathEncoding
