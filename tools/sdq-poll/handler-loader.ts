// Loads a user's Lambda handler for sdq-poll: `path/to/file.ts#export` (default export name `handler`). TypeScript
// is bundled with the user's own esbuild (serverless-esbuild brings it), so extensionless imports work as they do
// when serverless packages the function; without esbuild, Node loads the file itself (type stripping on Node 24).
import { createRequire, isBuiltin } from 'node:module'
import { mkdirSync } from 'node:fs'
import { basename, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda'
import type { Plugin } from 'esbuild'

export type SqsHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | void>

export async function loadHandler(spec: string, cwd = process.cwd()): Promise<SqsHandler> {
  const [file, exportName = 'handler'] = spec.split('#') as [string, string?]
  let path = resolve(cwd, file)
  if (/\.[mc]?ts$/.test(path)) {
    path = (await bundleWithUsersEsbuild(path, cwd)) ?? path
    // The bundle carries an inline source map: with it on, a failing job's stack names the user's .ts lines, not
    // the bundle's (Node reads source maps only when asked to).
    process.setSourceMapsEnabled(true)
  }
  const mod = await import(pathToFileURL(path).href).catch((e: { code?: string }) => {
    if (e?.code !== 'ERR_UNKNOWN_FILE_EXTENSION') throw e
    throw new Error(
      `cannot load ${file}: this Node (${process.version}) runs no TypeScript. Add esbuild to your service ` +
        '(serverless-esbuild brings it), use Node 22.18 or later, or point --handler at compiled JavaScript',
    )
  })
  const fn = mod[exportName] ?? mod.default?.[exportName]
  if (typeof fn !== 'function') throw new Error(`${file} has no exported function "${exportName}"`)
  return fn as SqsHandler
}

async function bundleWithUsersEsbuild(entry: string, cwd: string): Promise<string | undefined> {
  let esbuild: typeof import('esbuild')
  try {
    esbuild = createRequire(resolve(cwd, 'package.json'))('esbuild')
  } catch {
    return undefined
  }
  const outDir = resolve(cwd, '.dev/sdq-poll')
  mkdirSync(outDir, { recursive: true })
  const outfile = resolve(outDir, basename(entry).replace(/\.[mc]?ts$/, '.cjs'))
  await esbuild.build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node24',
    plugins: [externalWhereRequireable()],
    sourcemap: 'inline',
    logLevel: 'warning',
  })
  return outfile
}

const OWN_LOOKUP = Symbol('externalWhereRequireable')

/**
 * Packages stay external (the bundle require()s them from node_modules, as before), except two kinds that must be
 * bundled: an import the tsconfig's `paths` map to source (in this repository, `serverless-delay-queue/consumer` is
 * `src/consumer/index.ts`), and a package require() cannot load because its `exports` offer only `import`, such as
 * @middy/core (the package's own build inlines it for the same reason).
 */
function externalWhereRequireable(): Plugin {
  return {
    name: 'external-where-requireable',
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, async (args) => {
        if (args.pluginData === OWN_LOOKUP) return undefined
        if (isBuiltin(args.path)) return { external: true }
        const found = await build.resolve(args.path, {
          kind: args.kind,
          importer: args.importer,
          resolveDir: args.resolveDir,
          pluginData: OWN_LOOKUP,
        })
        // Not found at all: left to Node, which names the missing package when the handler loads.
        if (found.errors.length > 0) return { external: true }
        const inNodeModules = found.path.split(/[\\/]/).includes('node_modules')
        if (inNodeModules && requireable(args.path, args.importer)) return { external: true }
        return { path: found.path, namespace: found.namespace, sideEffects: found.sideEffects }
      })
    },
  }
}

function requireable(specifier: string, importer: string): boolean {
  try {
    createRequire(importer).resolve(specifier)
    return true
  } catch {
    return false
  }
}

/** A Lambda context for an in-process invocation, counting down from `timeoutMs`. */
export function localContext(functionName: string, timeoutMs: number): Context {
  const end = Date.now() + timeoutMs
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${functionName}`,
    memoryLimitInMB: '256',
    awsRequestId: crypto.randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, end - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  }
}
