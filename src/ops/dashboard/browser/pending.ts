// The pending-jobs panel: a page of jobs in due-time order (all target queues or one), paged with the API's cursor,
// each row with its actions (run now, reschedule, cancel) and a link to the job (#job=<id>). A search narrows the page
// shown to the jobs whose id or group holds the text; an id that is not on the page can be looked up whole. With a tag
// (./tag-filter.ts), the page is that tag's jobs in id order, and they can all be cancelled at once; the recurring
// schedules with the tag follow the table (./tagged-schedules.ts).
// Read when the panel opens, when the queue changes, and by its buttons; the live refresh re-reads the first page only
// (a deeper page stays as read, so it does not move under the reader).
import { html } from 'lit-html'
import { api, type PendingPage } from './api'
import { jobHash } from './job-link'
import { TagFilter, type Act } from './tag-filter'
import { when } from './times'

export const PAGE_SIZE = 20

type PendingJob = PendingPage['jobs'][number]

interface PanelState {
  queue: string
  /** Cursors of the pages before the one shown (to go back), and the one shown ('' for the first). */
  trail: string[]
  page?: PendingPage
  error?: string
  /** The search text: rows whose id or group holds it (any case). */
  search: string
}

/** The rows of `jobs` the search text matches (all of them for no text). */
export function matching(jobs: readonly PendingJob[], search: string): PendingJob[] {
  const text = search.trim().toLowerCase()
  if (!text) return [...jobs]
  return jobs.filter((j) => j.id.toLowerCase().includes(text) || (j.groupId ?? '').toLowerCase().includes(text))
}

/** What a row's buttons do: the app's actions, each reported in the page's notice line. */
export interface RowActions {
  runNow(id: string): void
  reschedule(id: string): void
  cancel(id: string): void
}

const matchLine = (n: number, of: number, text: string) => `${n} of ${of} on this page match "${text}"`

export class PendingPanel {
  private readonly s: PanelState = { queue: '', trail: [''], search: '' }
  /** Loads asked for so far: an answer is shown only if no load was asked for after its own. */
  private asked = 0
  private readonly tags: TagFilter

  constructor(
    private readonly redraw: () => void,
    private readonly open: (id: string) => void,
    private readonly fetchPage: typeof api.pending = api.pending,
    private readonly actions?: RowActions,
    act?: Act,
  ) {
    this.tags = new TagFilter(() => void this.go(['']), act)
  }

  /** What the panel shows: the page of the last cursor asked for, or its error. */
  get shown(): { page?: PendingPage; error?: string; trail: readonly string[] } {
    return { page: this.s.page, error: this.s.error, trail: this.s.trail }
  }

  /** The queue chosen ('' for all): the bulk run-now form acts on it. */
  get queue(): string {
    return this.s.queue
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
      const tag = this.tags.tag
      const [read] = await Promise.all([
        this.fetchPage(this.s.queue, this.s.trail.at(-1)!, PAGE_SIZE, tag),
        this.tags.schedules.load(tag),
      ])
      page = read
    } catch (e) {
      error = e instanceof Error ? e.message : String(e)
    }
    // A click after this one (Previous while a slow Next loads): its page is the one to show, not this answer.
    if (mine !== this.asked) return
    if (page) this.s.page = page
    this.s.error = error
    this.redraw()
  }

  private go(trail: string[]) {
    this.s.trail = trail
    return this.load()
  }

  /** The link's own URL (#job=<id>) is what a copied link opens; a click shows the job at once. */
  private openJob(e: Event, id: string) {
    e.preventDefault()
    this.open(id)
  }

  private searchFor = (e: Event) => {
    // An <input>, typed without the DOM library: tests load this file in Node.
    this.s.search = (e.target as unknown as { value: string }).value
    this.redraw()
  }

  /** `extra`: more controls under the panel's own (the bulk run-now form). */
  view(queues: string[], extra: unknown = '') {
    const { page, trail, error, search } = this.s
    const first = (trail.length - 1) * PAGE_SIZE
    const rows = matching(page?.jobs ?? [], search)
    const text = search.trim()
    return html`<section>
      <h2>Pending jobs</h2>
      <div class="actions">
        <label>queue
          <select data-testid="pending-queue" @change=${(e: Event) => {
            this.s.queue = (e.target as unknown as { value: string }).value
            void this.go([''])
          }}>
            <option value="" ?selected=${this.s.queue === ''}>all</option>
            ${queues.map((q) => html`<option value=${q} ?selected=${this.s.queue === q}>${q}</option>`)}
          </select>
        </label>
        ${this.tags.view()}
        <label>search <input data-testid="pending-search" placeholder="id or group, on this page" .value=${search}
          @input=${this.searchFor} /></label>
        <button ?disabled=${trail.length === 1} @click=${this.first}>First page</button>
        <button ?disabled=${trail.length === 1} @click=${this.previous}>Previous page</button>
        <button ?disabled=${!page?.cursor} @click=${this.next}>Next page</button>
        <span class="muted" data-testid="pending-range">${
          page
            ? page.jobs.length
              ? `jobs ${first + 1}–${first + page.jobs.length} in ${this.tags.tag ? 'id' : 'due'} order`
              : 'none'
            : ''
        }</span>
        ${error ? html`<span class="bad">${error}</span>` : ''}
      </div>
      ${extra}
      ${
        text && page && rows.length < page.jobs.length
          ? html`<p class="muted" data-testid="pending-matches">${matchLine(rows.length, page.jobs.length, text)}${
              rows.some((j) => j.id === text) ? '' : html`; <a href=${jobHash(text)}>look up the job "${text}"</a>`
            }</p>`
          : ''
      }
      <table data-testid="pending">
        <thead><tr><th>runs at</th><th>id</th><th>queue</th><th>group</th><th>payload</th><th></th></tr></thead>
        <tbody>${rows.map((j) => this.row(j))}</tbody>
      </table>
      ${this.tags.schedules.view()}
    </section>`
  }

  private row(j: PendingJob) {
    const a = this.actions
    return html`<tr data-pending-id=${j.id}>
      <td>${when(j.runAt)}</td>
      <td><a href=${jobHash(j.id)} @click=${(e: Event) => this.openJob(e, j.id)}><code>${j.id}</code></a></td>
      <td>${j.queue}</td><td>${j.groupId ?? ''}</td><td>${j.payloadBytes} B</td>
      <td class="actions row">${
        a
          ? html`<button data-action="run" @click=${() => a.runNow(j.id)}>Run now</button>
            <button data-action="reschedule" @click=${() => a.reschedule(j.id)}>Reschedule</button>
            <button data-action="cancel" class="danger" @click=${() => a.cancel(j.id)}>Cancel</button>`
          : ''
      }</td>
    </tr>`
  }
}
