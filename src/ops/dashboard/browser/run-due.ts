// "Run now everything due before ...": the bulk form of run now, over the queue the pending panel shows (or all). The
// server moves a bounded share per request and answers a cursor; the page asks again until it is null, so a large
// backlog never holds Redis (each script run reads at most 500 jobs) nor one request for long.
import { html } from 'lit-html'
import { api } from './api'

type Act = (label: string, action: () => Promise<unknown>) => Promise<void>

/**
 * Every step until the cursor is null; the number of jobs moved. The window is counted by the server on Redis's clock
 * (this browser's may be off); every step after the first sends the time the first one fixed.
 */
export async function runAllDue(
  withinMs: number,
  queue: string,
  step: typeof api.runDue = api.runDue,
): Promise<number> {
  let promoted = 0
  let cursor: string | null = null
  let when: { withinMs: number } | { before: number } = { withinMs }
  do {
    const r = await step(when, queue, cursor)
    promoted += r.promoted
    cursor = r.cursor
    when = { before: r.before }
  } while (cursor)
  return promoted
}

export class RunDueForm {
  constructor(
    private readonly act: Act,
    private readonly queueOf: () => string,
  ) {}

  private submit = async (e: Event) => {
    e.preventDefault()
    const minutes = Number(String(new FormData(e.target as HTMLFormElement).get('minutes') ?? ''))
    const queue = this.queueOf()
    const what = `every ${queue ? `${queue} ` : ''}job due in the next ${minutes} min`
    if (!confirm(`Run ${what} now?`)) return
    await this.act(`ran ${what} now`, async () => ({
      notice: `ran ${what} now: ${await runAllDue(Math.round(minutes * 60_000), queue)} moved`,
    }))
  }

  view() {
    return html`<form class="actions" data-testid="run-due" @submit=${this.submit}>
      <label>due in the next <input name="minutes" type="number" min="1" value="60" size="5" /> min</label>
      <button type="submit">Run all now</button>
      <span class="muted">(the queue chosen above, or all)</span>
    </form>`
  }
}
