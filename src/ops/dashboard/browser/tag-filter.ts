// The pending panel's tag filter: with a tag, the panel lists that tag's jobs (in id order), and "Cancel all tagged"
// cancels them once the reader confirmed the count it shows (how many jobs hold the tag now); the panel then says
// how many were cancelled and how many were being sent (in flight: not cancelled). "Run all tagged now" makes them due
// now, step by step (the server moves a bounded share per request and answers a cursor the page asks again with).
// The recurring schedules with the tag are listed under the jobs, to be deleted all at once (./tagged-schedules.ts).
import { html } from 'lit-html'
import { api } from './api'
import { TaggedSchedules } from './tagged-schedules'

/** The app's way to run an action and report it in the notice line. */
export type Act = (label: string, action: () => Promise<unknown>) => Promise<void>

export class TagFilter {
  /** '' for none: the queue filter applies then. */
  tag = ''
  /** What the last cancel by tag did. */
  private outcome = ''
  /** The schedules with the tag: the panel loads them with each page and shows them under it. */
  readonly schedules: TaggedSchedules

  constructor(
    /** The tag changed, or its jobs or schedules were removed: the panel reads its first page again. */
    private readonly changed: () => void,
    private readonly act: Act = async (_label, action) => {
      await action()
    },
  ) {
    this.schedules = new TaggedSchedules(changed, act)
  }

  private cancelAll = async () => {
    const tag = this.tag
    const { jobs } = await api.tagCount(tag)
    // Typed without the DOM library: tests load the panel's files in Node.
    const page = globalThis as unknown as { confirm: (text: string) => boolean }
    if (!page.confirm(`Cancel all ${jobs} jobs tagged "${tag}"? A job being sent right now still goes out.`)) return
    await this.act(`cancelled jobs tagged ${tag}`, async () => {
      const r = await api.cancelTag(tag)
      const recurring = r.recurring ? `, ${r.recurring} of recurring schedules left (delete the schedule)` : ''
      this.outcome = `${r.cancelled} cancelled${r.inFlight ? `, ${r.inFlight} in flight (not cancelled)` : ''}${recurring}`
    })
    this.changed()
  }

  private runAll = async () => {
    const tag = this.tag
    const { jobs } = await api.tagCount(tag)
    const page = globalThis as unknown as { confirm: (text: string) => boolean }
    if (!page.confirm(`Run all ${jobs} jobs tagged "${tag}" now?`)) return
    await this.act(`ran jobs tagged ${tag} now`, async () => {
      let promoted = 0
      let inFlight = 0
      let cursor: string | null = null
      do {
        const r = await api.runTag(tag, cursor)
        promoted += r.promoted
        inFlight += r.inFlight ?? 0
        cursor = r.cursor
      } while (cursor)
      this.outcome = `${promoted} due now${inFlight ? `, ${inFlight} being sent already` : ''}`
    })
    this.changed()
  }

  view() {
    return html`<label>tag
        <input data-testid="pending-tag" placeholder="all" .value=${this.tag} @change=${(e: Event) => {
          this.tag = (e.target as unknown as { value: string }).value.trim()
          this.changed()
        }} />
      </label>
      ${this.tag ? html`<button @click=${this.runAll}>Run all tagged now</button>` : ''}
      ${this.tag ? html`<button class="danger" @click=${this.cancelAll}>Cancel all tagged</button>` : ''}
      ${this.outcome ? html`<span data-testid="tag-outcome">${this.outcome}</span>` : ''}`
  }
}
