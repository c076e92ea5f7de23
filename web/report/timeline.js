/* global uPlot, document, window */
/*
 * The client report's timeline (src/journal/report-html.ts inlines this file after uPlot):
 * one point per request, its latency over wall time, coloured by its status class. Reads the
 * numbers the page carries in #timeline-data; the table under the chart says the same in text.
 */
;(function drawTimeline() {
  const source = document.getElementById('timeline-data')
  const target = document.getElementById('timeline-chart')
  if (source === null || target === null || typeof uPlot !== 'function') return
  const data = JSON.parse(source.textContent)
  if (data.ids.length === 0) return

  // The colours of the legend (report.css, .swatch-*), by status class.
  const CLASSES = [
    ['2xx', '#2e7d32'],
    ['3xx', '#1565c0'],
    ['4xx', '#e65100'],
    ['5xx', '#c62828'],
    ['none', '#616161']
  ]
  const classOf = (status) =>
    status >= 200 && status < 300 ? '2xx' : status >= 300 && status < 400 ? '3xx' : status >= 400 && status < 500 ? '4xx' : status >= 500 ? '5xx' : 'none'

  // uPlot wants x ascending; journal ids follow answers, not arrivals, so sort by arrival.
  const seconds = data.offsetsMs.map((offset) => (data.fromMs + offset) / 1000)
  const order = seconds.map((_, k) => k).sort((a, b) => seconds[a] - seconds[b])
  const xs = order.map((k) => seconds[k])
  const shown = CLASSES.map(([name, colour]) => ({
    name,
    colour,
    ys: order.map((k) => (classOf(data.statuses[k]) === name ? data.durationsMs[k] : null))
  })).filter((klass) => klass.ys.some((y) => y !== null))

  const options = {
    width: Math.max(320, target.clientWidth),
    height: 280,
    // The report's times are UTC (ISO 8601 with Z); so is the axis.
    tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
    legend: { show: false },
    scales: {
      x: { time: true, range: (_u, min, max) => (min === max ? [min - 1, max + 1] : [min, max]) },
      y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] }
    },
    axes: [{ label: 'wall time (UTC)' }, { label: 'latency (ms)' }],
    series: [
      {},
      ...shown.map((klass) => ({
        label: klass.name,
        stroke: klass.colour,
        // Points only: a line between requests would suggest values between them.
        paths: () => null,
        points: { show: true, size: 6, width: 1, stroke: klass.colour, fill: klass.colour }
      }))
    ]
  }
  const chart = new uPlot(options, [xs, ...shown.map((klass) => klass.ys)], target)
  window.addEventListener('resize', () => chart.setSize({ width: Math.max(320, target.clientWidth), height: 280 }))
})()
