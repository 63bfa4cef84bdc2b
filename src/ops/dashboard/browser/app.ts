// The dashboard page: polls /api/overview every 2 s and re-renders in place. Every value goes through lit-html
// templates, which insert it as text: a job id, payload or error message holding HTML or script shows as characters.
// A job's URL is "#job=<id>" (./job-link.ts): opening one looks the job up.
import { html, render, type TemplateResult } from 'lit-html'
import { ApiError, api, type Overview } from './api'
import { LatenessChart } from './lateness-chart'
import { PendingPanel } from './pending'
import { DlqPanel } from './dlq'
import { LookupPanel } from './lookup'
import { RunDueForm } from './run-due'
import { dead, queues, schedules, timeline } from './tables'
import { utc } from './times'

const REFRESH_MS = 2_000

interface State {
  overview?: Overview
  error?: string
  /** Result of the last action, shown until the next one. */
  notice?: { text: string; bad?: boolean }
  live: boolean
}

/** What an action may answer to say more than its label: the notice to show instead (e.g. how many moved). */
export interface Outcome {
  notice: string
  bad?: boolean
}

const state: State = { live: true }
const chart = new LatenessChart()
const draw = () => {
  render(page(), root)
  const container = document.getElementById('lateness-chart')
  if (container && state.overview) chart.update(container, state.overview.windows)
}
const act = async (label: string, action: () => Promise<unknown>) => {
  try {
    const outcome = await action()
    state.notice = isOutcome(outcome) ? { text: outcome.notice, bad: outcome.bad } : { text: label }
  } catch (e) {
    state.notice = { text: `${label} failed: ${message(e)}`, bad: true }
  }
  await refresh()
}
const dlqs = new DlqPanel(draw, act)
const lookup = new LookupPanel(draw, act)
const pending = new PendingPanel(
  draw,
  (id) => lookup.show(id),
  api.pending,
  {
    runNow: (id) => void act(`ran ${id} now`, () => api.runNow(id)),
    reschedule: (id) => {
      const answer = prompt(`Run ${id} in how many seconds?`, '60')
      if (answer === null) return
      const seconds = answer.trim() === '' ? Number.NaN : Number(answer)
      void act(`rescheduled ${id}`, () => api.reschedule(id, Math.round(seconds * 1000)))
    },
    cancel: (id) => void (confirm(`Cancel job ${id}?`) && act(`cancelled ${id}`, () => api.cancel(id))),
  },
  act,
)
const runDue = new RunDueForm(act, () => pending.queue)
const root = document.getElementById('app')!
root.replaceChildren() // the shell's "Loading…"

const ms = (value: number) => `${Math.round(value)} ms`
const message = (e: unknown) => (e instanceof ApiError || e instanceof Error ? e.message : String(e))
const isOutcome = (v: unknown): v is Outcome => typeof v === 'object' && v !== null && 'notice' in v

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

function page(): TemplateResult {
  const o = state.overview
  return html`
    <header>
      <h1>Delay queue</h1>
      <span class="muted" data-testid="updated">${o ? `updated ${utc(o.at)}` : 'loading…'}</span>
      <label><input type="checkbox" .checked=${state.live} @change=${toggleLive} /> live</label>
      ${state.error ? html`<span class="bad">${state.error}</span>` : ''}
    </header>
    ${state.notice ? html`<p class=${state.notice.bad ? 'notice bad' : 'notice'} data-testid="notice">${state.notice.text}</p>` : ''}
    ${o ? html`${queues(o)}${timeline(o)}${lateness(o)}${pending.view(Object.keys(o.queues), runDue.view())}${dead(o.dead, act)}${dlqs.view()}${lookup.view()}${schedules(o, act)}` : ''}
  `
}

function lateness(o: Overview) {
  const last = [...o.windows].reverse().find((w) => w.lateness)
  return html`<section>
    <h2>Dispatch lateness, recent scan windows</h2>
    <p class="muted" data-testid="lateness">
      ${
        last
          ? `last window with sends (${utc(last.at)}): ${last.dispatched} sent, p50 ${ms(last.lateness!.p50)}, p99 ${ms(last.lateness!.p99)}, max ${ms(last.lateness!.max)}`
          : o.windows.length
            ? 'no job sent in the recent windows'
            : 'no scan window recorded yet'
      }
    </p>
    <div id="lateness-chart"></div>
  </section>`
}

let timer: ReturnType<typeof setInterval> | undefined
function toggleLive(e: Event) {
  state.live = (e.target as HTMLInputElement).checked
  clearInterval(timer)
  if (state.live) timer = setInterval(refresh, REFRESH_MS)
}

addEventListener('hashchange', () => lookup.followHash())
lookup.followHash()
void refresh()
void dlqs.load()
timer = setInterval(refresh, REFRESH_MS)
