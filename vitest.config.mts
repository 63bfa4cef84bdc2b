import { defineConfig } from 'vitest/config'
// @ts-expect-error plain ESM helper without types
import { luaTextVitePlugin } from './scripts/lua-text.mjs'

export default defineConfig({
  plugins: [luaTextVitePlugin()],
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
})
