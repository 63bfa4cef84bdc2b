// Under the tag filter (./tag-filter.ts): the recurring schedules with the tag (the first 20 by id), and "Delete all
// tagged schedules" once the reader confirmed the count it shows (how many schedules hold the tag now). A schedule's
// pending occurrence carries its tags and shows in the tag's pending list, but a cancel by tag leaves it (removing it
// would end the series without a word): deleting the schedules is what stops them.
import { html } from 'lit-html'
import { api, type ScheduleView } from './api'
import type { Act } from './tag-filter'
import { utc } from './times'

/** Schedules shown under the filter; the section says when the tag has more. */
export const TAGGED_SCHEDULES_SHOWN = 20

export class TaggedSchedules {
  private tag = ''
  private schedules: ScheduleView[] = []
  private more = false
  private error = ''
  /** What the last delete by tag did. */
  private outcome = ''

  constructor(
    /** The schedules were deleted: the panel reads its page and this list again. */
    private readonly changed: () => void,
    private readonly act: Act,
  ) {}

  /** The schedules with `tag` ('' for none: nothing to show). */
  async load(tag: string): Promise<void> {
    if (tag !== this.tag) this.outcome = ''
    this.tag = tag
    if (!tag) {
      this.schedules = []
      return
    }
    try {
      const page = await api.taggedSchedules(tag)
      // A tag typed while this was read: the answer is not for the filter shown.
      if (this.tag !== tag) return
      this.schedules = page.schedules
      this.more = page.cursor !== null
      this.error = ''
    } catch (e) {
      this.error = e instanceof Error ? e.message : String(e)
    }
  }

  private deleteAll = async () => {
    const tag = this.tag
    const { schedules } = await api.tagCount(tag)
    // Typed without the DOM library: tests load the panel's files in Node.
    const page = globalThis as unknown as { confirm: (text: string) => boolean }
    if (!page.confirm(`Delete all ${schedules} recurring schedules tagged "${tag}"? No occurrence of them follows.`))
      return
    await this.act(`deleted schedules tagged ${tag}`, async () => {
      const r = await api.deleteTaggedSchedules(tag)
      this.outcome = `${r.deleted} schedules deleted`
    })
    this.changed()
  }

  view() {
    if (!this.tag || (!this.schedules.length && !this.outcome && !this.error)) return ''
    return html`<h3>Recurring schedules tagged "${this.tag}"</h3>
      <div class="actions">
        ${this.schedules.length ? html`<button class="danger" @click=${this.deleteAll}>Delete all tagged schedules</button>` : ''}
        ${this.outcome ? html`<span data-testid="tag-schedules-outcome">${this.outcome}</span>` : ''}
        ${this.more ? html`<span class="muted">the first ${TAGGED_SCHEDULES_SHOWN} by id</span>` : ''}
        ${this.error ? html`<span class="bad">${this.error}</span>` : ''}
      </div>
      ${
        this.schedules.length
          ? html`<table data-testid="tagged-schedules">
              <thead><tr><th>id</th><th>queue</th><th>rule</th><th>next run</th><th>tags</th></tr></thead>
              <tbody>${this.schedules.map(
                (s) => html`<tr data-schedule-id=${s.id}><td><code>${s.id}</code></td><td>${s.queue}</td>
                  <td>${s.cron ?? `every ${s.everyMs} ms`}</td>
                  <td>${s.nextRunAt ? utc(s.nextRunAt) : s.paused ? 'paused' : 'ended'}</td>
                  <td>${(s.tags ?? []).join(', ')}</td></tr>`,
              )}</tbody>
            </table>`
          : ''
      }`
  }
}
