// The pending-jobs panel: a page of jobs in due-time order (all target queues or one), paged with the API's cursor;
// or, filtered by a tag, the jobs with that tag in id order, with a button that cancels them all once the reader
// confirmed the count it shows.
// Read when the panel opens, when the queue changes, and by its buttons; the live refresh re-reads the first page only
// (a deeper page stays as read, so it does not move under the reader).
import { html } from 'lit-html'
import { api, type PendingPage } from './api'

export const PAGE_SIZE = 20

interface PanelState {
  queue: string
  /** '' for none: then the queue filter applies. */
  tag: string
  /** What the last cancel by tag did. */
  outcome?: string
  /** Cursors of the pages before the one shown (to go back), and the one shown ('' for the first). */
  trail: string[]
  page?: PendingPage
  error?: string
}

export class PendingPanel {
  private readonly s: PanelState = { queue: '', tag: '', trail: [''] }
  /** Loads asked for so far: an answer is shown only if no load was asked for after its own. */
  private asked = 0

  constructor(
    private readonly redraw: () => void,
    private readonly open: (id: string) => void,
    private readonly fetchPage: typeof api.pending = api.pending,
    /** Runs an action and shows its outcome (the page's notice). */
    private readonly act: (label: string, action: () => Promise<unknown>) => Promise<void> = async (_l, a) => {
      await a()
    },
  ) {}

  /** What the panel shows: the page of the last cursor asked for, or its error. */
  get shown(): { page?: PendingPage; error?: string; trail: readonly string[] } {
    return { page: this.s.page, error: this.s.error, trail: this.s.trail }
  }

  /** With the live refresh: the first page again (deeper pages are left as they are). */
  async refresh(): Promise<void> {
    if (this.s.trail.length === 1) await this.load()
  }

  first = () => this.go([''])
  previous = () => this.go(this.s.trail.slice(0, -1))
  next = () => this.s.page?.cursor && this.go([...this.s.trail, this.s.page.cursor])

  private async load(): Promise<void> {
    const mine = ++this.asked
    let page: PendingPage | undefined
    let error: string | undefined
    try {
      page = await this.fetchPage(this.s.queue, this.s.trail.at(-1)!, PAGE_SIZE, this.s.tag)
    } catch (e) {
      error = e instanceof Error ? e.message : String(e)
    }
    // A click after this one (Previous while a slow Next loads): its page is the one to show, not this answer.
    if (mine !== this.asked) return
    if (page) this.s.page = page
    this.s.error = error
    this.redraw()
  }

  private openJob(e: Event, id: string) {
    e.preventDefault()
    this.open(id)
  }

  /** Cancel every job with the tag shown, after a confirmation that says how many hold it now. */
  private async cancelTagged() {
    const tag = this.s.tag
    const { jobs } = await api.tagCount(tag)
    // Typed without the DOM library, as below: tests load this file in Node.
    const page = globalThis as unknown as { confirm: (text: string) => boolean }
    if (!page.confirm(`Cancel all ${jobs} jobs tagged "${tag}"? A job being sent right now still goes out.`)) return
    await this.act(`cancelled jobs tagged ${tag}`, async () => {
      const r = await api.cancelTag(tag)
      this.s.outcome = `${r.cancelled} cancelled${r.inFlight ? `, ${r.inFlight} in flight (not cancelled)` : ''}`
    })
    await this.go([''])
  }

  private go(trail: string[]) {
    this.s.trail = trail
    return this.load()
  }

  view(queues: string[]) {
    const { page, trail, error } = this.s
    const first = (trail.length - 1) * PAGE_SIZE
    return html`<section>
      <h2>Pending jobs</h2>
      <div class="actions">
        <label>queue
          <select data-testid="pending-queue" @change=${(e: Event) => {
            // A <select>, typed without the DOM library: tests load this file in Node.
            this.s.queue = (e.target as unknown as { value: string }).value
            void this.go([''])
          }}>
            <option value="" ?selected=${this.s.queue === ''}>all</option>
            ${queues.map((q) => html`<option value=${q} ?selected=${this.s.queue === q}>${q}</option>`)}
          </select>
        </label>
        <label>tag
          <input data-testid="pending-tag" placeholder="all" .value=${this.s.tag} @change=${(e: Event) => {
            this.s.tag = (e.target as unknown as { value: string }).value.trim()
            void this.go([''])
          }} />
        </label>
        ${this.s.tag ? html`<button class="danger" @click=${() => void this.cancelTagged()}>Cancel all tagged</button>` : ''}
        ${this.s.outcome ? html`<span data-testid="tag-outcome">${this.s.outcome}</span>` : ''}
        <button ?disabled=${trail.length === 1} @click=${this.first}>First page</button>
        <button ?disabled=${trail.length === 1} @click=${this.previous}>Previous page</button>
        <button ?disabled=${!page?.cursor} @click=${this.next}>Next page</button>
        <span class="muted" data-testid="pending-range">${
          page
            ? page.jobs.length
              ? `jobs ${first + 1}–${first + page.jobs.length} ${this.s.tag ? 'in id order' : 'in due order'}`
              : 'none'
            : ''
        }</span>
        ${error ? html`<span class="bad">${error}</span>` : ''}
      </div>
      <table data-testid="pending">
        <thead><tr><th>runs at</th><th>id</th><th>queue</th><th>group</th><th>payload</th></tr></thead>
        <tbody>
          ${(page?.jobs ?? []).map(
            (j) => html`<tr data-pending-id=${j.id}>
              <td>${j.runAt.replace('T', ' ').slice(0, 23)}Z</td>
              <td><a href="#" @click=${(e: Event) => this.openJob(e, j.id)}><code>${j.id}</code></a></td>
              <td>${j.queue}</td><td>${j.groupId ?? ''}</td><td>${j.payloadBytes} B</td>
            </tr>`,
          )}
        </tbody>
      </table>
    </section>`
  }
}
