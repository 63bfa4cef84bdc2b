// The overview's tables: target queues, due jobs by horizon, the dead set and the recurring schedules, each a
// lit-html template over the overview the page polls. Actions go through `act` (the page's notice line).
import { html } from 'lit-html'
import { api, type DeadJob, type Overview } from './api'
import { cssWidth } from './css-width'
import { utc, when } from './times'

type Act = (label: string, action: () => Promise<unknown>) => Promise<void>

export function queues(o: Overview) {
  const rows = Object.entries(o.queues)
  return html`<section>
    <h2>Target queues</h2>
    <table data-testid="queues">
      <thead><tr><th>queue</th><th>pending</th><th>in flight</th><th>dead</th><th>dispatched</th></tr></thead>
      <tbody>
        ${rows.length === 0 ? html`<tr><td colspan="5" class="muted">no jobs yet</td></tr>` : ''}
        ${rows.map(
          ([name, q]) => html`<tr data-queue=${name}>
            <td>${name}</td><td data-count="pending">${q.pending}</td><td data-count="inFlight">${q.inFlight}</td>
            <td data-count="dead" class=${q.dead ? 'bad' : ''}>${q.dead}</td><td data-count="dispatched">${q.dispatched}</td>
          </tr>`,
        )}
      </tbody>
    </table>
  </section>`
}

export function timeline(o: Overview) {
  const t = o.timeline
  const rows: [string, string, number][] = [
    ['overdue', 'due now', t.overdue],
    ['minute', 'next minute', t.minute],
    ['hour', 'next hour', t.hour],
    ['day', 'next day', t.day],
    ['month', 'next 30 days', t.month],
    ['all', 'all scheduled', t.all],
  ]
  const widest = Math.max(1, t.all)
  return html`<section>
    <h2>Due jobs</h2>
    <div class="bars" data-testid="timeline">
      ${rows.map(
        ([key, label, n]) => html`<div class="bar" data-horizon=${key}>
          <span class="label">${label}</span>
          <span class="track"><span class="fill" ${cssWidth((100 * n) / widest)}></span></span>
          <span class="n">${n}</span>
        </div>`,
      )}
    </div>
  </section>`
}

export function dead(jobs: DeadJob[], act: Act) {
  return html`<section>
    <h2>Dead set</h2>
    <table data-testid="dead">
      <thead><tr><th>id</th><th>queue</th><th>died</th><th>last error</th><th>payload</th><th></th></tr></thead>
      <tbody>
        ${jobs.length === 0 ? html`<tr><td colspan="6" class="muted">empty</td></tr>` : ''}
        ${jobs.map(
          (j) => html`<tr data-dead-id=${j.id}>
            <td><code>${j.id}</code></td><td>${j.queue}</td><td>${when(j.diedAt)}</td>
            <td>${j.lastError ? `${j.lastError.message} (attempt ${j.lastError.attempts})` : ''}</td>
            <td><code class="payload">${j.payloadPreview}</code></td>
            <td class="actions">
              <button @click=${() => act(`retried ${j.id}`, () => api.retryDead(j.id))}>Retry</button>
              <button class="danger" @click=${() => confirm(`Delete dead job ${j.id}?`) && act(`deleted ${j.id}`, () => api.deleteDead(j.id))}>Delete</button>
            </td>
          </tr>`,
        )}
      </tbody>
    </table>
  </section>`
}

export function schedules(o: Overview, act: Act) {
  // Recurring schedules (the first 50 by id): the section shows only when there are some.
  if (!o.schedules?.length) return ''
  return html`<section>
    <h2>Schedules</h2>
    <table data-testid="schedules">
      <thead><tr><th>id</th><th>queue</th><th>rule</th><th>time zone</th><th>next run</th><th>last run</th><th>runs</th>
        <th>paused</th><th>tags</th><th></th></tr></thead>
      <tbody>
        ${o.schedules.map(
          (s) => html`<tr data-schedule-id=${s.id}><td><code>${s.id}</code></td><td>${s.queue}</td>
            <td>${s.cron ?? `every ${s.everyMs} ms`}</td><td>${s.timezone}</td>
            <td data-field="nextRunAt">${s.nextRunAt ? utc(s.nextRunAt) : s.paused ? 'paused' : 'ended'}</td>
            <td>${s.lastRunAt ? utc(s.lastRunAt) : 'never'}</td><td data-field="runs">${s.runs}</td>
            <td data-field="paused">${s.paused ? 'yes' : 'no'}</td>
            <td data-field="tags">${(s.tags ?? []).join(', ')}</td>
            <td class="actions">
              ${
                s.paused
                  ? html`<button @click=${() => act(`resumed ${s.id}`, () => api.pauseSchedule(s.id, false))}>Resume</button>`
                  : html`<button @click=${() => act(`paused ${s.id}`, () => api.pauseSchedule(s.id, true))}>Pause</button>`
              }
              <button class="danger" @click=${() => confirm(`Delete schedule ${s.id}? No occurrence follows.`) && act(`deleted schedule ${s.id}`, () => api.deleteSchedule(s.id))}>Delete</button>
            </td></tr>`,
        )}
      </tbody>
    </table>
  </section>`
}
