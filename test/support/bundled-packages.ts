// Which npm packages a Lambda bundle contains, read from its source map, and which of them are not runtime
// dependencies of this package. "Runtime" is what `npm ls --omit=dev` and `npm audit --omit=dev` see: a package
// reachable from package.json's `dependencies` (through the installed packages' dependencies, optional
// dependencies and required peers, resolved the way Node and npm do, from package-lock.json's layout), and not
// flagged `dev` / `devOptional` in package-lock.json (which a lock left stale after moving a package would still say).

type Json = Record<string, any>

/**
 * The install paths ("node_modules/a", "node_modules/a/node_modules/b") of the packages among a source map's
 * `sources` (esbuild lists every file it bundled, relative to the output, node_modules included).
 */
export function bundledPackages(sources: string[]): string[] {
  const found = new Set<string>()
  for (const source of sources) {
    const at = source.indexOf('node_modules/')
    if (at < 0) continue
    const m = /^node_modules\/(?:@[^/]+\/)?[^/]+(?:\/node_modules\/(?:@[^/]+\/)?[^/]+)*(?=\/)/.exec(source.slice(at))
    if (m) found.add(m[0])
  }
  return [...found].sort()
}

/** Every install path reachable from package.json's runtime dependencies. */
export function runtimePackages(pkg: Json, lock: Json): Set<string> {
  const packages: Record<string, Json> = lock.packages
  const reached = new Set<string>()
  const visit = (from: string, deps: Record<string, string>) => {
    for (const name of Object.keys(deps)) {
      const at = resolveIn(packages, from, name)
      if (at === undefined || reached.has(at)) continue
      reached.add(at)
      visit(at, runtimeEdges(packages[at]!))
    }
  }
  visit('', { ...pkg.dependencies, ...pkg.optionalDependencies })
  return reached
}

/** One line per bundled package that `npm audit --omit=dev` would not see, saying why. */
export function notRuntimeDependencies(bundled: string[], pkg: Json, lock: Json): string[] {
  const runtime = runtimePackages(pkg, lock)
  const problems: string[] = []
  for (const at of bundled) {
    const entry = lock.packages[at]
    const name = at.slice(at.lastIndexOf('node_modules/') + 'node_modules/'.length)
    if (!entry) problems.push(`${name} (${at}) is not in package-lock.json`)
    else if (!runtime.has(at)) problems.push(`${name} is not in dependencies, nor a dependency of one`)
    else if (entry.dev || entry.devOptional) problems.push(`${name} is flagged dev in package-lock.json (stale lock?)`)
  }
  return problems
}

/** What npm installs with a package: its dependencies, optional dependencies and non-optional peers. */
function runtimeEdges(entry: Json): Record<string, string> {
  const peers = Object.keys(entry.peerDependencies ?? {}).filter((n) => !entry.peerDependenciesMeta?.[n]?.optional)
  return {
    ...entry.dependencies,
    ...entry.optionalDependencies,
    ...Object.fromEntries(peers.map((n) => [n, entry.peerDependencies[n]])),
  }
}

/** Node's lookup over package-lock.json's paths: <from>/node_modules/<name>, then each enclosing node_modules. */
function resolveIn(packages: Record<string, Json>, from: string, name: string): string | undefined {
  let dir = from
  for (;;) {
    const key = dir ? `${dir}/node_modules/${name}` : `node_modules/${name}`
    if (packages[key]) return key
    if (!dir) return undefined
    const up = dir.lastIndexOf('/node_modules/')
    dir = up < 0 ? '' : dir.slice(0, up)
  }
}
