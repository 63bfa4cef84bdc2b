// The consumer side panel: each target queue's DLQ (what a consumer gave up on): its depth when the page opens (queue
// attributes only), a peek at its messages when asked (a receive, so a POST, never on the 2 s refresh), and a redrive
// back into the delay queue. Says so when the dashboard has no SQS access, instead of failing.
import { html } from 'lit-html'
import { api, type DlqReport } from './api'

export class DlqPanel {
  private report?: DlqReport
  private error?: string

  constructor(
    private readonly redraw: () => void,
    private readonly act: (label: string, action: () => Promise<unknown>) => Promise<void>,
  ) {}

  /** The depths (`peek`: and the first messages) of every DLQ. */
  async load(peek = false): Promise<void> {
    try {
      this.report = peek ? await api.peekDlqs() : await api.dlqs()
      this.error = undefined
    } catch (e) {
      this.error = e instanceof Error ? e.message : String(e)
    }
    this.redraw()
  }

  private async redrive(queue: string) {
    if (!confirm(`Move every message of the ${queue} DLQ back into the delay queue, due now?`)) return
    // Says how many moved (each keeps its createdAt), and what was refused and why: those stay in the DLQ.
    await this.act(`redrove the ${queue} DLQ`, async () => {
      const r = await api.redriveDlq(queue)
      const refused = r.skipped.map((s) => `${s.jobId ?? '(no job id)'}: ${s.reason}`).join('; ')
      return r.skipped.length
        ? {
            notice: `redrove the ${queue} DLQ: ${r.moved} moved, ${r.skipped.length} refused (left in the DLQ: ${refused})`,
            bad: true,
          }
        : { notice: `redrove the ${queue} DLQ: ${r.moved} moved` }
    })
    await this.load()
  }

  view() {
    const r = this.report
    return html`<section>
      <h2>Consumer failures (DLQs)</h2>
      <p class="muted">Messages a consumer failed on until SQS moved them to the target queue's DLQ. Not the dead set
        above: that holds jobs SQS refused at dispatch, which never reached a consumer.</p>
      <div class="actions"><button @click=${() => this.load(true)}>Read the DLQs</button>
        <span class="muted">(from SQS, on demand: a peek counts as a receive)</span></div>
      ${this.error ? html`<p class="bad">${this.error}</p>` : ''}
      ${r && !r.available ? html`<p class="muted" data-testid="dlq-unavailable">${r.reason}</p>` : ''}
      ${
        r?.available
          ? html`<table data-testid="dlqs">
          <thead><tr><th>queue</th><th>in its DLQ</th><th>oldest (peeked)</th><th>peek: job id, receives, sent, body</th>
            <th></th></tr></thead>
          <tbody>${r.dlqs.map(
            (d) => html`<tr data-dlq=${d.queue}><td>${d.queue}</td>
              <td data-field="depth" class=${d.depth ? 'bad' : ''}>${d.error ? html`<span class="bad">${d.error}</span>` : d.depth}</td>
              <td>${d.oldestSentAt ? `${d.oldestSentAt.replace('T', ' ').slice(0, 19)}Z` : ''}</td>
              <td>${d.inFlight ? html`<div class="muted" data-field="inFlight">${d.inFlight} being received now</div>` : ''}${d.messages.map(
                (
                  m,
                ) => html`<div data-dlq-job=${m.jobId ?? ''}><code>${m.jobId ?? '(no job id)'}</code>, ${m.receives} receives,
                  ${m.sentAt.replace('T', ' ').slice(0, 19)}Z <code class="payload">${m.bodyPreview}</code></div>`,
              )}</td>
              <td class="actions">${d.depth ? html`<button @click=${() => this.redrive(d.queue)}>Redrive</button>` : ''}</td>
            </tr>`,
          )}</tbody></table>
          <p class="muted">The consumer's error for a job is in its log: the toolkit's "last attempt: to the DLQ" line
            with that jobId.</p>`
          : ''
      }
    </section>`
  }
}
