// Dispatch lateness of the scanners' recent windows (p50 / p99 / max per window), drawn with uPlot.
import uPlot from 'uplot'
import type { ScanWindow } from './api'
import { TICK_SPACE_PX, utcTicks } from './time-axis'

export class LatenessChart {
  private plot?: uPlot

  update(container: HTMLElement, windows: ScanWindow[]): void {
    const sent = windows.filter((w) => w.lateness)
    const data: uPlot.AlignedData = [
      sent.map((w) => w.at / 1000),
      sent.map((w) => w.lateness!.p50),
      sent.map((w) => w.lateness!.p99),
      sent.map((w) => w.lateness!.max),
    ]
    if (this.plot && this.plot.root.parentElement === container) {
      this.plot.setData(data)
      return
    }
    this.plot?.destroy()
    this.plot = new uPlot(
      {
        width: Math.max(300, container.clientWidth),
        height: 220,
        // At least the last 5 minutes up to now, and from 0 ms up: one window must not stretch the axes.
        scales: {
          x: {
            time: true,
            range: (_u, min) => [Math.min(min ?? Infinity, Date.now() / 1000 - 300), Date.now() / 1000 + 5],
          },
          y: { range: (_u, _min, max) => [0, Math.max(10, (max ?? 0) * 1.15)] },
        },
        legend: { live: false },
        // UTC like the rest of the page (uPlot's default is the browser's zone, with am/pm on two lines).
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
        axes: [
          { label: 'UTC', space: TICK_SPACE_PX, values: (_u, splits) => utcTicks(splits) },
          { label: 'ms late', size: 60 },
        ],
        series: [
          {},
          { label: 'p50', stroke: '#2f7d32', width: 2, points: { show: true } },
          { label: 'p99', stroke: '#e08a00', width: 2, points: { show: true } },
          { label: 'max', stroke: '#c62828', width: 1, dash: [4, 4], points: { show: true } },
        ],
      },
      data,
      container,
    )
  }
}
