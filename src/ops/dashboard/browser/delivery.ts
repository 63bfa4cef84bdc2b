// A dispatched job of an HTTP target queue: what the forwarder's calls got (docs/http-targets.md), under the job in
// the look-up panel. The excerpt is the receiver's text, whatever it holds: lit-html puts it in as text, never markup.
import { html } from 'lit-html'
import type { JobView } from './api'
import { when } from './times'

type Delivery = NonNullable<JobView['delivery']>

const OUTCOMES: Record<Delivery['outcome'], string> = {
  delivered: 'delivered (a 2xx answer)',
  retrying: 'retrying (SQS brings the job back)',
  'dead-lettered': 'dead-lettered (in the DLQ, not retried)',
}

/** The rows of the job's definition list, or nothing for a job without a delivery record. */
export function deliveryRows(d: Delivery | undefined) {
  if (!d) return ''
  return html`<dt>HTTP delivery</dt><dd data-field="delivery-outcome">${OUTCOMES[d.outcome] ?? d.outcome}</dd>
    <dt>last answer</dt><dd data-field="delivery-status">${d.status === undefined ? 'none' : `HTTP ${d.status}`}
      (${when(d.at)})</dd>
    <dt>calls made</dt><dd data-field="delivery-attempts">${d.attempts}</dd>
    ${d.reason ? html`<dt>why</dt><dd data-field="delivery-reason">${d.reason}</dd>` : ''}
    ${d.excerpt ? html`<dt>answer's first bytes</dt><dd><pre data-field="delivery-excerpt">${d.excerpt}</pre></dd>` : ''}`
}
