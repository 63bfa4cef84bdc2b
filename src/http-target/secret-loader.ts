// The webhook secrets, loaded from their source and kept for a while (WEBHOOK_SECRET_CACHE_MS): one read per container
// and period, not one per delivery. A failed reload keeps signing with the secrets last read (a rotation waits a
// little, deliveries do not stop); with none read yet, the delivery fails and is retried, never sent unsigned.
import { SecretUnavailableError } from './errors'
import { fetchSecretText, type SecretFetcher, type SecretSource } from './secret-source'
import { signingKeys, type SigningKey } from './webhook-signature'

const RETRY_FAILED_LOAD_MS = 30_000

export interface SecretLoaderOptions {
  source: SecretSource
  cacheMs: number
  fetch?: SecretFetcher
  now?: () => number
}

export interface SecretLoader {
  keys(): Promise<SigningKey[]>
}

export function secretLoader(options: SecretLoaderOptions): SecretLoader {
  const fetch = options.fetch ?? fetchSecretText
  const now = options.now ?? Date.now
  let kept: { keys: SigningKey[]; until: number } | undefined
  let loading: Promise<SigningKey[]> | undefined
  const load = async (): Promise<SigningKey[]> => {
    try {
      const text = await fetch(options.source)
      const keys = signingKeys(text.split(/\s+/).filter(Boolean))
      if (keys.length === 0) throw new Error('the source holds no secret')
      kept = { keys, until: now() + options.cacheMs }
      return keys
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error)
      if (kept) {
        // Tried again after a short while, not by every delivery meanwhile.
        kept.until = now() + Math.min(options.cacheMs, RETRY_FAILED_LOAD_MS)
        return kept.keys
      }
      throw new SecretUnavailableError(`webhook secrets unavailable (${options.source.kind}): ${reason}`)
    } finally {
      loading = undefined
    }
  }
  return {
    keys: () => {
      if (kept && kept.until > now()) return Promise.resolve(kept.keys)
      loading ??= load()
      return loading
    },
  }
}
