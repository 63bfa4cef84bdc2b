// Docs state what holds, the command that reproduces it and the machine it ran on; how and when a figure was
// reached (who ran what, what else ran on the machine, a day's load, a run's clock times) is git history. Each
// pattern is a phrase that only a lab notebook writes.
import { describe, expect, it } from 'vitest'
import { docPages } from '../support/doc-pages'

const JOURNAL_PHRASES: { pattern: RegExp; why: string }[] = [
  { pattern: /\bat this stop\b/i, why: 'a stop in somebody’s work' },
  { pattern: /\bload averages? (?:was |were |of |read )?~?\d/i, why: 'a measured load average of one run' },
  { pattern: /\b\d{1,2}:\d{2}\s*(?:–|-|to)\s*\d{1,2}:\d{2}\s*UTC\b/i, why: 'the clock times of a run' },
  { pattern: /\bround (?:one|two|three|four|five|\d+)\b/i, why: 'a review round' },
  { pattern: /\bbusy loops?\b/i, why: 'what else ran on the machine' },
  {
    pattern: /\b(?:other|another) (?:helpers?|sessions?|workers?'|agents?)\b.{0,40}\b(?:ran|running|were|was)\b/i,
    why: 'who else worked on the machine',
  },
  { pattern: /\b(?:helper|session) h?\d{2,}\b/i, why: 'who ran what' },
  { pattern: /\b(?:today|yesterday|this morning|this afternoon|tonight)\b/i, why: 'a day' },
  { pattern: /\b(?:measured|ran|run|taken|recorded) (?:on|at) 20\d\d-\d\d-\d\d\b/i, why: 'a dated run' },
  {
    pattern: /\bload(?: averages?)? ~?\d+(?:\.\d+)?\s*(?:→|->)\s*~?\d/i,
    why: 'a run’s load readings (say the machine’s condition: quiet, loaded beyond its cores)',
  },
  { pattern: /\|[^|]*\bload averages?\s*\|/i, why: 'a table column of load readings' },
]

/** Every line of every page that matches a journal phrase, as `page:line: phrase (why)`. */
function journalLines(): string[] {
  return docPages().flatMap((page) =>
    page.text
      .split('\n')
      .flatMap((line, index) =>
        JOURNAL_PHRASES.filter(({ pattern }) => pattern.test(line)).map(
          ({ pattern, why }) => `${page.name}:${index + 1}: ${line.match(pattern)?.[0]} (${why})`,
        ),
      ),
  )
}

describe('docs journal phrases', () => {
  it('finds each phrase of the deny-list in a sentence a notebook would write', () => {
    // prepare: one sentence per phrase, as a notebook writes them
    const samples = [
      'The figures at this stop are good.',
      'quiet (load average 1.5 → 1.0)',
      'the cut ran 16:27–16:33 UTC',
      '## 12. The new surfaces, round three',
      '12 beside two busy loops',
      'while another helper was running the benches',
      'helper h42 measured it',
      'Today REDIS_URL comes from SSM',
      'measured on 2026-11-26 with the defaults',
      '| `npm run bench:flow-rate` | 2 CPUs, one redis-server; load 3.7 → 3.4 | 498.2/s |',
      '| command | machine, load average | key’s rate |',
    ]
    // act / assess: every sample is caught, each by its own phrase
    expect(samples.map((sample) => JOURNAL_PHRASES.findIndex(({ pattern }) => pattern.test(sample)))).toEqual(
      JOURNAL_PHRASES.map((_, index) => index),
    )
  })

  it('finds none in README.md, RELIABILITY.md or any page of docs/', () => {
    // act
    const found = journalLines()
    // assess
    expect(found).toEqual([])
  })
})
