// Shared by vitest and the esbuild runner: `import src from './x.lua'` yields the file's text,
// exactly as the Lambda bundles get it from esbuild's text loader.
import { readFileSync } from 'node:fs'

export function luaTextVitePlugin() {
  return {
    name: 'lua-text',
    enforce: 'pre',
    load(id) {
      if (!id.endsWith('.lua')) return null
      return `export default ${JSON.stringify(readFileSync(id, 'utf8'))}`
    },
  }
}
