// Debian's Chromium for the browser tests, driven by playwright-core (which never downloads a browser). `npm test`
// needs only Node and redis-server: without Chromium a file's browser scenarios are skipped, saying how to get it;
// CI installs it (.ci/run), so there a missing browser fails the run instead.
import { existsSync } from 'node:fs'
import { chromium, type Browser } from 'playwright-core'

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
export const HAVE_CHROMIUM = existsSync(CHROMIUM)

/** Call at a file's top: throws in CI without Chromium, else warns that `what` is skipped. */
export function requireChromium(what: string): void {
  if (HAVE_CHROMIUM) return
  const why = `no Chromium at ${CHROMIUM} (apt-get install -y chromium, or set CHROMIUM_PATH)`
  if (process.env.CI) throw new Error(`${what} need Chromium: ${why}`)
  console.warn(`skipping ${what}: ${why}`)
}

/**
 * Headless, as root (no sandbox), and quiet: without the background-networking flags Chromium keeps trying hosts this
 * closed network refuses. `extraArgs`: e.g. a --host-resolver-rules mapping for a page of "another site".
 */
export function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      ...extraArgs,
    ],
  })
}
