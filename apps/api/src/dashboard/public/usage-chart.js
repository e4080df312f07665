// The usage chart: an account's operations per hour as stacked bars (confirmed, failed, still
// pending), drawn as inline SVG by the page itself: no charting library to load for one chart.
/* global document */

/**
 * @typedef {{ hour: string, confirmed: number, failed: number, pending: number }} UsageHour
 * @typedef {{ count: number, p50: number | null, p90: number | null, p99: number | null }} Latency
 * @typedef {{ total: number, by_network: Record<string, number> }} PendingNow
 * @typedef {{ window: 'day' | 'week', hours: UsageHour[],
 *   totals: { confirmed: number, failed: number, pending: number },
 *   confirmation_latency_ms: Latency, pending_now: PendingNow }} Usage
 */

const SVG = 'http://www.w3.org/2000/svg';
const WIDTH = 720;
const HEIGHT = 180;
const AXIS = 28;
/** Bottom to top; the class gives each its colour (dashboard.css). */
const SERIES = /** @type {const} */ (['confirmed', 'failed', 'pending']);

/**
 * @param {string} tag
 * @param {Record<string, string | number>} attributes
 * @param {string} [text]
 */
function svg(tag, attributes, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

/** @param {string} iso @param {'day' | 'week'} window */
function hourLabel(iso, window) {
  const date = new Date(iso);
  return window === 'day'
    ? date.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' })
    : date.toLocaleDateString(undefined, { weekday: 'short', day: 'numeric' });
}

/** @param {UsageHour} hour */
const totalOf = (hour) => hour.confirmed + hour.failed + hour.pending;

/**
 * The chart of `usage`, one bar per hour, with a hover title per bar and a text summary for
 * screen readers.
 * @param {Usage} usage
 * @returns {SVGSVGElement}
 */
export function usageChart(usage) {
  const peak = Math.max(1, ...usage.hours.map(totalOf));
  const plotHeight = HEIGHT - AXIS;
  const slot = WIDTH / usage.hours.length;
  const barWidth = Math.max(1, slot * 0.8);
  const { confirmed, failed, pending } = usage.totals;
  const chart = /** @type {SVGSVGElement} */ (
    svg('svg', {
      viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
      class: 'usage-chart',
      role: 'img',
      'aria-label':
        `Operations per hour over the last ${usage.window}: ${confirmed} confirmed, ` +
        `${failed} failed, ${pending} pending; the busiest hour had ${peak}.`,
    })
  );
  chart.append(svg('line', { x1: 0, y1: plotHeight, x2: WIDTH, y2: plotHeight, class: 'axis' }));
  chart.append(svg('text', { x: 2, y: 10, class: 'axis-label' }, `${peak}`));
  const labelEvery = usage.window === 'day' ? 6 : 24;
  usage.hours.forEach((hour, index) => {
    const x = index * slot + (slot - barWidth) / 2;
    const bar = svg('g', { class: 'bar', 'data-hour': hour.hour });
    bar.append(
      svg(
        'title',
        {},
        `${hourLabel(hour.hour, usage.window)}: ${hour.confirmed} confirmed, ` +
          `${hour.failed} failed, ${hour.pending} pending`,
      ),
    );
    let top = plotHeight;
    for (const series of SERIES) {
      const height = (hour[series] / peak) * (plotHeight - 14);
      if (height <= 0) continue;
      top -= height;
      bar.append(svg('rect', { x, y: top, width: barWidth, height, class: series }));
    }
    chart.append(bar);
    if (index % labelEvery === 0) {
      chart.append(
        svg('text', { x, y: HEIGHT - 8, class: 'axis-label' }, hourLabel(hour.hour, usage.window)),
      );
    }
  });
  return chart;
}

/** @param {number | null} ms */
function duration(ms) {
  if (ms === null) return '—';
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/**
 * One line on confirmation latency: how long confirmed operations took from acceptance.
 * @param {Latency} latency
 */
export function latencySummary(latency) {
  if (latency.count === 0) return 'No operation confirmed in this window yet.';
  return (
    `Time to confirmation (${latency.count} confirmed): p50 ${duration(latency.p50)}, ` +
    `p90 ${duration(latency.p90)}, p99 ${duration(latency.p99)}.`
  );
}

/**
 * The operations pending now, whatever their age (unlike the chart, not bounded by the window):
 * the count, and its split by network, busiest first.
 * @param {PendingNow} pending
 * @returns {{ count: string, split: string }}
 */
export function pendingNowSummary(pending) {
  if (pending.total === 0) return { count: 'Nothing pending now', split: '' };
  const split = Object.entries(pending.by_network)
    .sort(([a, countA], [b, countB]) => countB - countA || a.localeCompare(b))
    .map(([network, count]) => `${network} ${count}`)
    .join(', ');
  return { count: `${pending.total} pending now`, split: `(${split})` };
}
