// Must be the bench's first import. scripts/run-ts.mjs bundles to CommonJS with node_modules external, so
// local/sqs-endpoint.ts's `import { startFauxqs } from 'fauxqs'` becomes require('fauxqs'), and fauxqs exports only
// an "import" condition: the require fails (ERR_PACKAGE_PATH_NOT_EXPORTED) before the bench starts. Node 24 can
// require() an ES module; it just needs to be resolved with the "import" condition. This hook retries exactly that
// resolution failure with it. The proper fix belongs in local/sqs-endpoint.ts (see docs/benchmarks.md).
import { registerHooks } from 'node:module'

registerHooks({
  resolve(specifier, context, nextResolve) {
    try {
      return nextResolve(specifier, context)
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ERR_PACKAGE_PATH_NOT_EXPORTED') throw e
      return nextResolve(specifier, { ...context, conditions: [...(context.conditions ?? []), 'import'] })
    }
  },
})
