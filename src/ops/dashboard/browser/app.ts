// The dashboard page: polls /api/overview every 2 s and re-renders in place. Every value goes through lit-html
// templates, which insert it as text: a job id, payload or error message holding HTML or script shows as characters.
import { html, render, type TemplateResult } from 'lit-html'
import { ApiError, api, type DeadJob, type JobView, type Overview } from './api'
import { LatenessChart } from './lateness-chart'
import { PendingPanel } from './pending'
import { DlqPanel } from './dlq'
import { cssWidth } from './css-width'

const REFRESH_MS = 2_000

interface State {
  overview?: Overview
  error?: string
  /** Result of the last action, shown until the next one. */
  notice?: { text: string; bad?: boolean }
  found?: JobView
  live: boolean
}

const state: State = { live: true }
const chart = new LatenessChart()
const dlqs = new DlqPanel(
  () => draw(),
  (label, action) => act(label, action),
)
const pending = new PendingPanel(
  () => draw(),
  (id) => void lookUp(id),
  api.pending,
  (label, action) => act(label, action),
)
const root = document.getElementById('app')!
root.replaceChildren() // the shell's "Loading…"

const time = (ms: number | string) => `${new Date(ms).toISOString().replace('T', ' ').slice(0, 19)}Z`
const ms = (value: number) => `${Math.round(value)} ms`
const message = (e: unknown) => (e instanceof ApiError || e instanceof Error ? e.message : String(e))

async function refresh() {
  try {
    state.overview = await api.overview()
    state.error = undefined
    await pending.refresh()
  } catch (e) {
    state.error = `refresh failed: ${message(e)}`
  }
  draw()
}

async function act(label: string, action: () => Promise<unknown>) {
  try {
    await action()
    state.notice = { text: label }
  } catch (e) {
    state.notice = { text: `${label} failed: ${message(e)}`, bad: true }
  }
  await refresh()
}

function draw() {
  render(page(), root)
  const container = document.getElementById('lateness-chart')
  if (container && state.overview) chart.update(container, state.overview.windows)
}

function page(): TemplateResult {
  const o = state.overview
  return html`
    <header>
      <h1>Delay queue</h1>
      <span class="muted" data-testid="updated">${o ? `updated ${time(o.at)}` : 'loading…'}</span>
      <label><input type="checkbox" .checked=${state.live} @change=${toggleLive} /> live</label>
      ${state.error ? html`<span class="bad">${state.error}</span>` : ''}
    </header>
    ${state.notice ? html`<p class=${state.notice.bad ? 'notice bad' : 'notice'} data-testid="notice">${state.notice.text}</p>` : ''}
    ${o ? html`${queues(o)}${timeline(o)}${lateness(o)}${pending.view(Object.keys(o.queues))}${dead(o.dead)}${dlqs.view()}${lookup()}${schedules(o)}` : ''}
  `
}

function queues(o: Overview) {
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

function timeline(o: Overview) {
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

function lateness(o: Overview) {
  const last = [...o.windows].reverse().find((w) => w.lateness)
  return html`<section>
    <h2>Dispatch lateness, recent scan windows</h2>
    <p class="muted" data-testid="lateness">
      ${
        last
          ? `last window with sends (${time(last.at)}): ${last.dispatched} sent, p50 ${ms(last.lateness!.p50)}, p99 ${ms(last.lateness!.p99)}, max ${ms(last.lateness!.max)}`
          : o.windows.length
            ? 'no job sent in the recent windows'
            : 'no scan window recorded yet'
      }
    </p>
    <div id="lateness-chart"></div>
  </section>`
}

function dead(jobs: DeadJob[]) {
  return html`<section>
    <h2>Dead set</h2>
    <table data-testid="dead">
      <thead><tr><th>id</th><th>queue</th><th>died</th><th>last error</th><th>payload</th><th></th></tr></thead>
      <tbody>
        ${jobs.length === 0 ? html`<tr><td colspan="6" class="muted">empty</td></tr>` : ''}
        ${jobs.map(
          (j) => html`<tr data-dead-id=${j.id}>
            <td><code>${j.id}</code></td><td>${j.queue}</td><td>${time(j.diedAt)}</td>
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

/** An occurrence of a recurring schedule ("<schedule id>@<epoch ms>"): its schedule and the time it stands for. */
function occurrenceOf(id: string) {
  const m = /^(.+)@(\d+)$/.exec(id)
  if (!m) return ''
  return html`<dt>schedule</dt><dd data-field="schedule"><code>${m[1]}</code>, its run of ${time(Number(m[2]))}</dd>`
}

function lookup() {
  const j = state.found
  return html`<section>
    <h2>Find a job</h2>
    <form @submit=${find}>
      <input name="id" placeholder="job id" size="40" required />
      <button type="submit">Look up</button>
    </form>
    ${
      j?.status === 'dispatched'
        ? html`<dl class="job" data-testid="job">
          <dt>id</dt><dd><code>${j.id}</code></dd>
          <dt>queue</dt><dd>${j.queue}</dd>
          ${occurrenceOf(j.id)}
          <dt>status</dt><dd data-field="status">dispatched (in SQS; the consumer side has it now)</dd>
          <dt>was due</dt><dd data-field="dueAt">${time(j.dueAt!)}</dd>
          <dt>SQS accepted it</dt><dd data-field="acceptedAt">${time(j.acceptedAt!)}
            (${Date.parse(j.acceptedAt!) - Date.parse(j.dueAt!)} ms after due)</dd>
          <dt>SQS message id</dt><dd><code data-field="messageId">${j.messageId}</code></dd>
          <dt>dispatch attempts</dt><dd data-field="attempts">${j.attempts}</dd>
        </dl>`
        : j
          ? html`<dl class="job" data-testid="job">
          <dt>id</dt><dd><code>${j.id}</code></dd>
          <dt>queue</dt><dd>${j.queue}</dd>
          ${occurrenceOf(j.id)}
          <dt>status</dt><dd data-field="status">${j.status}</dd>
          <dt>runs at</dt><dd data-field="runAt">${time(j.runAt)}</dd>
          <dt>created</dt><dd>${j.createdAt ? time(j.createdAt) : ''}</dd>
          ${j.attempts ? html`<dt>dispatch attempts</dt><dd data-field="attempts">${j.attempts}</dd>` : ''}
          ${j.lastError ? html`<dt>last error</dt><dd data-field="lastError">${j.lastError.message}</dd>` : ''}
          <dt>payload</dt><dd><pre data-field="payload">${JSON.stringify(j.payload, null, 2)}</pre></dd>
        </dl>
        <form class="actions" @submit=${(e: Event) => reschedule(e, j.id)}>
          <button type="button" class="danger" @click=${() =>
            act(`cancelled ${j.id}`, async () => {
              await api.cancel(j.id)
              state.found = undefined
            })}>Cancel job</button>
          <label>run in <input name="seconds" type="number" min="0" value="60" size="6" /> s</label>
          <button type="submit">Reschedule</button>
        </form>`
          : ''
    }
  </section>`
}

function schedules(o: Overview) {
  // Recurring schedules (the first 50 by id): the section shows only when there are some.
  if (!o.schedules?.length) return ''
  return html`<section>
    <h2>Schedules</h2>
    <table data-testid="schedules">
      <thead><tr><th>id</th><th>queue</th><th>rule</th><th>time zone</th><th>next run</th><th>last run</th><th>runs</th>
        <th>paused</th><th></th></tr></thead>
      <tbody>
        ${o.schedules.map(
          (s) => html`<tr data-schedule-id=${s.id}><td><code>${s.id}</code></td><td>${s.queue}</td>
            <td>${s.cron ?? `every ${s.everyMs} ms`}</td><td>${s.timezone}</td>
            <td data-field="nextRunAt">${s.nextRunAt ? time(s.nextRunAt) : s.paused ? 'paused' : 'ended'}</td>
            <td>${s.lastRunAt ? time(s.lastRunAt) : 'never'}</td><td data-field="runs">${s.runs}</td>
            <td data-field="paused">${s.paused ? 'yes' : 'no'}</td>
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

async function find(e: Event) {
  e.preventDefault()
  await lookUp(String(new FormData(e.target as HTMLFormElement).get('id') ?? '').trim())
}

async function lookUp(id: string) {
  state.found = undefined
  await act(`look up ${id}`, async () => (state.found = await api.getJob(id)))
}

async function reschedule(e: Event, id: string) {
  e.preventDefault()
  const field = String(new FormData(e.target as HTMLFormElement).get('seconds') ?? '').trim()
  // An empty field is not "now": the server refuses a reschedule without a time.
  const seconds = field === '' ? Number.NaN : Number(field)
  await act(`rescheduled ${id}`, async () => (state.found = await api.reschedule(id, Math.round(seconds * 1000))))
}

let timer: ReturnType<typeof setInterval> | undefined
function toggleLive(e: Event) {
  state.live = (e.target as HTMLInputElement).checked
  clearInterval(timer)
  if (state.live) timer = setInterval(refresh, REFRESH_MS)
}

void refresh()
void dlqs.load()
timer = setInterval(refresh, REFRESH_MS)
