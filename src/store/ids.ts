import { randomBytes } from 'node:crypto'

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ' // Crockford base 32: sorts like the time it encodes

let lastMs = -1
let lastRandom = ''

/**
 * A time-ordered id (ULID layout: 10 chars of ms time, 16 of randomness, 26 in all). Generated ids sort in
 * creation order, so same-millisecond jobs in one bucket go out in the order they were created.
 */
export function newJobId(nowMs = Date.now()): string {
  let time = ''
  for (let t = nowMs, i = 0; i < 10; i++, t = Math.floor(t / 32)) time = ALPHABET[t % 32] + time
  let random: string
  if (nowMs === lastMs) {
    random = increment(lastRandom)
  } else {
    const bytes = randomBytes(16)
    random = ''
    for (let i = 0; i < 16; i++) random += ALPHABET[bytes[i]! % 32]
  }
  lastMs = nowMs
  lastRandom = random
  return time + random
}

function increment(s: string): string {
  const chars = s.split('')
  for (let i = chars.length - 1; i >= 0; i--) {
    const v = ALPHABET.indexOf(chars[i]!)
    if (v < 31) {
      chars[i] = ALPHABET[v + 1]!
      return chars.join('')
    }
    chars[i] = ALPHABET[0]!
  }
  return chars.join('')
}

/** A claim token: random, so a stale lease can never acknowledge or release a job another scanner holds. */
export function newToken(): string {
  return randomBytes(9).toString('base64url')
}
