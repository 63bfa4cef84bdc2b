// The "Find a job" panel: one job by id, with its actions (run now, reschedule, cancel). Its URL is "#job=<id>"
// (./job-link.ts): a look-up sets it, and opening such a link looks the job up. A failed look-up says so here, in the
// panel, where the operator is looking, not in the page's notice line.
import { html } from 'lit-html'
import { api, type JobView } from './api'
import { deliveryRows } from './delivery'
import { jobHash, jobOfHash } from './job-link'
import { utc, when } from './times'

type Act = (label: string, action: () => Promise<unknown>) => Promise<void>

export class LookupPanel {
  private found?: JobView
  private error?: string
  /** Look-ups asked for so far: only the last one's answer is shown. */
  private asked = 0

  constructor(
    private readonly redraw: () => void,
    private readonly act: Act,
  ) {}

  /** Opens the job the location's fragment names (at start, and on every change of it). */
  followHash(): void {
    const id = jobOfHash(location.hash)
    if (id !== undefined) void this.open(id)
  }

  /** Looks `id` up and shows it, or why not. */
  async open(id: string): Promise<void> {
    const mine = ++this.asked
    let found: JobView | undefined
    let error: string | undefined
    try {
      found = await api.getJob(id)
    } catch (e) {
      error = `look-up of "${id}" failed: ${e instanceof Error ? e.message : String(e)}`
    }
    if (mine !== this.asked) return
    this.found = found
    this.error = error
    this.redraw()
  }

  /** Shows `id` and gives it its URL; the same URL again looks it up again. */
  show(id: string): void {
    if (location.hash === jobHash(id)) void this.open(id)
    else location.hash = jobHash(id)
  }

  private find = (e: Event) => {
    e.preventDefault()
    const id = String(new FormData(e.target as HTMLFormElement).get('id') ?? '').trim()
    if (id) this.show(id)
  }

  private reschedule = async (e: Event, id: string) => {
    e.preventDefault()
    const field = String(new FormData(e.target as HTMLFormElement).get('seconds') ?? '').trim()
    // An empty field is not "now": the server refuses a reschedule without a time.
    const seconds = field === '' ? Number.NaN : Number(field)
    await this.act(`rescheduled ${id}`, async () => (this.found = await api.reschedule(id, Math.round(seconds * 1000))))
  }

  private runNow = (id: string) =>
    this.act(`ran ${id} now`, async () => {
      await api.runNow(id)
      await this.open(id)
    })

  // Asked first, as a row's Cancel is: a shared link (#job=<id>) opens this panel one click from it.
  private cancel = (id: string) =>
    confirm(`Cancel job ${id}?`) &&
    this.act(`cancelled ${id}`, async () => {
      await api.cancel(id)
      this.found = undefined
      history.replaceState(null, '', location.pathname)
    })

  view() {
    const j = this.found
    return html`<section data-testid="lookup">
      <h2>Find a job</h2>
      <form @submit=${this.find}>
        <input name="id" placeholder="job id" size="40" required />
        <button type="submit">Look up</button>
        ${j ? html`<a class="muted" href=${jobHash(j.id)} data-testid="job-link">link to this job</a>` : ''}
      </form>
      ${this.error ? html`<p class="bad" data-testid="lookup-error">${this.error}</p>` : ''}
      ${j?.status === 'dispatched' ? dispatched(j) : j ? html`${stored(j)}${this.actions(j)}` : ''}
    </section>`
  }

  private actions(j: JobView) {
    return html`<form class="actions" data-testid="job-actions" @submit=${(e: Event) => this.reschedule(e, j.id)}>
      ${
        // A dead job's way back is the dead set's Retry; one being sent or retried is the scanner's (409 here).
        j.status === 'scheduled'
          ? html`<button type="button" @click=${() => this.runNow(j.id)}>Run now</button>
            <label>run in <input name="seconds" type="number" min="0" value="60" size="6" /> s</label>
            <button type="submit">Reschedule</button>`
          : ''
      }
      <button type="button" class="danger" @click=${() => this.cancel(j.id)}>Cancel job</button>
    </form>`
  }
}

/** An occurrence of a recurring schedule ("<schedule id>@<epoch ms>"): its schedule and the time it stands for. */
function occurrenceOf(id: string) {
  const m = /^(.+)@(\d+)$/.exec(id)
  if (!m) return ''
  return html`<dt>schedule</dt><dd data-field="schedule"><code>${m[1]}</code>, its run of ${utc(Number(m[2]))}</dd>`
}

function dispatched(j: JobView) {
  return html`<dl class="job" data-testid="job">
    <dt>id</dt><dd><code>${j.id}</code></dd>
    <dt>queue</dt><dd>${j.queue}</dd>
    ${occurrenceOf(j.id)}
    <dt>status</dt><dd data-field="status">dispatched (in SQS; the consumer side has it now)</dd>
    <dt>was due</dt><dd data-field="dueAt">${utc(j.dueAt!)}</dd>
    <dt>SQS accepted it</dt><dd data-field="acceptedAt">${when(j.acceptedAt!)}
      (${Date.parse(j.acceptedAt!) - Date.parse(j.dueAt!)} ms after due)</dd>
    <dt>SQS message id</dt><dd><code data-field="messageId">${j.messageId}</code></dd>
    <dt>dispatch attempts</dt><dd data-field="attempts">${j.attempts}</dd>
    ${deliveryRows(j.delivery)}
  </dl>`
}

function stored(j: JobView) {
  return html`<dl class="job" data-testid="job">
    <dt>id</dt><dd><code>${j.id}</code></dd>
    <dt>queue</dt><dd>${j.queue}</dd>
    ${occurrenceOf(j.id)}
    <dt>status</dt><dd data-field="status">${j.status}</dd>
    <dt>runs at</dt><dd data-field="runAt">${when(j.runAt)}</dd>
    <dt>created</dt><dd>${j.createdAt ? when(j.createdAt) : ''}</dd>
    ${j.attempts ? html`<dt>dispatch attempts</dt><dd data-field="attempts">${j.attempts}</dd>` : ''}
    ${j.lastError ? html`<dt>last error</dt><dd data-field="lastError">${j.lastError.message}</dd>` : ''}
    <dt>payload</dt><dd><pre data-field="payload">${JSON.stringify(j.payload, null, 2)}</pre></dd>
  </dl>`
}
