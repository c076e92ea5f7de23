/*
 * The fleet chart: agents by state over virtual time, shared by the console's Fleet page and
 * the index.html of `fleetsim run`. A classic script (no modules, no bundler) so that it also
 * works inlined into a page opened from file://. It needs the global `uPlot` (uPlot 1.6,
 * loaded before it) and defines the global `FleetChart`.
 *
 *   const chart = FleetChart.create(element, options)
 *   chart.setData(series)   // replaces everything drawn
 *   chart.push(sample)      // appends one sample (a live chart)
 *   chart.destroy()         // removes the chart and its listeners from element
 *
 * options (all optional):
 *   states      state names in stacking order, bottom first (default FleetChart.STATES)
 *   colours     { STATE: css colour } overriding FleetChart.COLOURS
 *   calm        states drawn only in the main panel (default ['ONLINE']); every other state
 *               also gets its own line in the second panel, scaled to the largest of them, so
 *               that 0.5% FORGED or a 3% UNTRUSTED band is visible next to 99% ONLINE
 *   startTime   epoch ms of virtual second 0 (default 0): the axis and the legend show
 *               absolute virtual times, in UTC
 *   events      [{ second, label }]: timeline events, a dashed line each, labelled where
 *               there is room
 *   lockouts    [{ from, to, label? }]: manager-restart lockouts, a shaded band each; `to`
 *               null while the lockout is still on (the band reaches the last sample and
 *               says so)
 *   title       what the chart shows, for screen readers (default 'Agents by state')
 *   height      height of the main panel in CSS px (default 320); detailHeight the second
 *               panel's (default 220); the width follows the element
 *   maxPoints   most samples kept by push() (default 10080: a week of minutes); older ones
 *               are dropped
 *   showTable   true: the summary table is shown under the chart (default false: it is
 *               there for screen readers only)
 *
 * series: { seconds: number[], byState: { STATE: number[] }, events?, lockouts? } with one
 *   count per second in each byState array (a missing state counts 0); events and lockouts,
 *   when given, replace the options'.
 * sample: { second, byState: { STATE: number }, events?: [{ second, label }], lockedOut?: boolean }
 *   events are appended; lockedOut true opens a lockout band at this second if none is open,
 *   false closes the open one.
 *
 * The element gets role="figure", an aria-label, and a summary table (per state: now, peak
 * and when) that the canvases, hidden from assistive technology, stand for.
 */
/* global uPlot, window, document, ResizeObserver */
;(function (global) {
  'use strict'

  var STATES = ['ONLINE', 'ERROR', 'UNTRUSTED', 'FORGED', 'UNMANAGED', 'OFFLINE']
  // ONLINE calm, UNMANAGED neutral, everything that means trouble in a warning or alarm colour.
  var COLOURS = {
    ONLINE: '#43a047',
    ERROR: '#f57c00',
    UNTRUSTED: '#c79100',
    FORGED: '#ad1457',
    UNMANAGED: '#78909c',
    OFFLINE: '#d32f2f'
  }
  // Line styles of the second panel, so states differ by more than their colour.
  var DASHES = { ERROR: [], UNTRUSTED: [8, 4], FORGED: [2, 3], UNMANAGED: [12, 3, 2, 3], OFFLINE: [] }
  // The shortest stretch of virtual time the x axis spans (a lone sample sits in its middle).
  var MIN_SPAN_SECONDS = 600
  var LOCKOUT_FILL = 'rgba(33, 33, 33, 0.16)'
  var LOCKOUT_EDGE = 'rgba(33, 33, 33, 0.7)'
  var EVENT_STROKE = 'rgba(17, 17, 17, 0.6)'
  var EVENT_ROWS = 3
  var FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif'
  var chartCount = 0

  function pad(n) {
    return n < 10 ? '0' + n : String(n)
  }

  /** 2026-01-01 00:15:00 UTC */
  function isoUtc(ms) {
    var d = new Date(ms)
    return d.getUTCFullYear() + '-' + pad(d.getUTCMonth() + 1) + '-' + pad(d.getUTCDate()) + ' ' + pad(d.getUTCHours()) + ':' + pad(d.getUTCMinutes()) + ':' + pad(d.getUTCSeconds()) + ' UTC'
  }

  /** 00:15, or 01-02 00:15 when the chart spans more than a day */
  function shortUtc(ms, withDay) {
    var d = new Date(ms)
    var time = pad(d.getUTCHours()) + ':' + pad(d.getUTCMinutes())
    return withDay ? pad(d.getUTCMonth() + 1) + '-' + pad(d.getUTCDate()) + ' ' + time : time
  }

  /** 1h05m: the virtual time since the start */
  function elapsed(seconds) {
    if (seconds === 0) return '0s'
    var d = Math.floor(seconds / 86400)
    var h = Math.floor((seconds % 86400) / 3600)
    var m = Math.floor((seconds % 3600) / 60)
    var s = seconds % 60
    var out = ''
    if (d > 0) out += d + 'd'
    if (h > 0) out += h + 'h'
    if (m > 0) out += (out && m < 10 ? '0' : '') + m + 'm'
    if (s > 0) out += (out && s < 10 ? '0' : '') + s + 's'
    return out
  }

  function count(n) {
    return n == null ? '–' : Number(n).toLocaleString('en-US')
  }

  function el(tag, attrs, text) {
    var node = document.createElement(tag)
    for (var key in attrs) node.setAttribute(key, attrs[key])
    if (text != null) node.textContent = text
    return node
  }

  function create(element, options) {
    options = options || {}
    var states = (options.states || STATES).slice()
    var colours = {}
    states.forEach(function (s) {
      colours[s] = (options.colours && options.colours[s]) || COLOURS[s] || '#607d8b'
    })
    var calm = options.calm || ['ONLINE']
    var small = states.filter(function (s) {
      return calm.indexOf(s) < 0
    })
    var startMs = options.startTime || 0
    var title = options.title || 'Agents by state'
    var height = options.height || 320
    var detailHeight = options.detailHeight || 220
    var maxPoints = options.maxPoints || 10080
    var id = 'fleet-chart-' + ++chartCount

    var data = { seconds: [], byState: {} }
    states.forEach(function (s) {
      data.byState[s] = []
    })
    var events = (options.events || []).slice()
    var lockouts = (options.lockouts || []).map(function (l) {
      return { from: l.from, to: l.to == null ? null : l.to, label: l.label }
    })

    // Layout: the canvases (hidden from assistive technology) and the table standing for them.
    element.classList.add('fleet-chart')
    element.setAttribute('role', 'figure')
    element.setAttribute('aria-label', title)
    element.setAttribute('aria-describedby', id + '-caption')
    var plots = el('div', { class: 'fleet-chart-plots', 'aria-hidden': 'true' })
    var mainBox = el('div', { class: 'fleet-chart-main' })
    var detailBox = el('div', { class: 'fleet-chart-detail' })
    plots.appendChild(mainBox)
    plots.appendChild(detailBox)
    var table = el('table', { class: options.showTable ? 'fleet-chart-table' : 'fleet-chart-table fleet-chart-sr-only' })
    var caption = el('caption', { id: id + '-caption' })
    table.appendChild(caption)
    var head = el('tr')
    ;['State', 'Now', 'Peak', 'Peak at'].forEach(function (h) {
      head.appendChild(el('th', { scope: 'col' }, h))
    })
    var thead = el('thead')
    thead.appendChild(head)
    var tbody = el('tbody')
    table.appendChild(thead)
    table.appendChild(tbody)
    element.appendChild(plots)
    element.appendChild(table)

    var xs = []
    var stacked = [] // stacked[k]: sum of states[0..k] per sample, drawn top state first
    var peaks = {} // state -> { value, index }

    function msAt(second) {
      return startMs + second * 1000
    }
    function spansDays() {
      var n = data.seconds.length
      return n > 1 && data.seconds[n - 1] - data.seconds[0] > 86400
    }
    function secondAtIndex(i) {
      return data.seconds[i]
    }

    function recompute() {
      xs = data.seconds.map(function (s) {
        return msAt(s) / 1000
      })
      var running = data.seconds.map(function () {
        return 0
      })
      stacked = states.map(function (s) {
        var values = data.byState[s]
        running = running.map(function (r, i) {
          return r + (values[i] || 0)
        })
        return running.slice()
      })
      peaks = {}
      small.forEach(function (s) {
        var best = { value: 0, index: -1 }
        data.byState[s].forEach(function (v, i) {
          if (v > best.value) best = { value: v, index: i }
        })
        peaks[s] = best
      })
    }

    function totalAt(i) {
      return stacked.length ? stacked[stacked.length - 1][i] : 0
    }

    function renderTable() {
      var n = data.seconds.length
      var last = n - 1
      caption.textContent =
        n === 0
          ? title + ': no samples yet.'
          : title + ' from ' + isoUtc(msAt(data.seconds[0])) + ' to ' + isoUtc(msAt(data.seconds[last])) + ', ' + count(totalAt(last)) + (totalAt(last) === 1 ? ' agent' : ' agents') + ' at the end' + describeMarks() + '.'
      tbody.textContent = ''
      states.forEach(function (s) {
        var row = el('tr')
        row.appendChild(el('th', { scope: 'row' }, s))
        row.appendChild(el('td', {}, n ? count(data.byState[s][last] || 0) : '–'))
        var peak = peaks[s] || maxOf(data.byState[s])
        row.appendChild(el('td', {}, peak.index >= 0 ? count(peak.value) : '0'))
        row.appendChild(el('td', {}, peak.index >= 0 && peak.value > 0 ? isoUtc(msAt(secondAtIndex(peak.index))) : '–'))
        tbody.appendChild(row)
      })
    }

    function maxOf(values) {
      var best = { value: 0, index: -1 }
      values.forEach(function (v, i) {
        if (v > best.value) best = { value: v, index: i }
      })
      return best
    }

    function describeMarks() {
      var parts = []
      if (events.length) parts.push(events.length + ' timeline event' + (events.length === 1 ? '' : 's') + ' (' + events.slice(0, 5).map(function (e) {
        return e.label + ' at ' + isoUtc(msAt(e.second))
      }).join('; ') + (events.length > 5 ? '; …' : '') + ')')
      lockouts.forEach(function (l) {
        parts.push((l.label || 'manager lockout') + ' from ' + isoUtc(msAt(l.from)) + (l.to == null ? ', still on' : ' to ' + isoUtc(msAt(l.to))))
      })
      return parts.length ? '; ' + parts.join('; ') : ''
    }

    // ----- drawing on the canvases (device pixels: every length is scaled by pxRatio)

    function px(n) {
      return n * uPlot.pxRatio
    }

    function lastSecond() {
      return data.seconds.length ? data.seconds[data.seconds.length - 1] : 0
    }

    function xPos(u, second) {
      return u.valToPos(msAt(second) / 1000, 'x', true)
    }

    function drawLockouts(u, labelled) {
      var ctx = u.ctx
      var box = u.bbox
      lockouts.forEach(function (l) {
        var to = l.to == null ? lastSecond() : l.to
        var left = Math.max(box.left, xPos(u, l.from))
        var right = Math.min(box.left + box.width, xPos(u, to))
        if (right < left) return
        ctx.save()
        ctx.fillStyle = LOCKOUT_FILL
        ctx.fillRect(left, box.top, Math.max(right - left, px(2)), box.height)
        // Stripes, so that the band reads as "blocked" over any colour under it.
        ctx.beginPath()
        ctx.rect(left, box.top, Math.max(right - left, px(2)), box.height)
        ctx.clip()
        ctx.strokeStyle = 'rgba(255, 255, 255, 0.35)'
        ctx.lineWidth = px(2)
        for (var x = left - box.height; x < right; x += px(10)) {
          ctx.beginPath()
          ctx.moveTo(x, box.top + box.height)
          ctx.lineTo(x + box.height, box.top)
          ctx.stroke()
        }
        ctx.restore()
        ctx.save()
        ctx.strokeStyle = LOCKOUT_EDGE
        ctx.lineWidth = px(1.5)
        ctx.beginPath()
        ctx.moveTo(left, box.top)
        ctx.lineTo(left, box.top + box.height)
        if (l.to != null) {
          ctx.moveTo(right, box.top)
          ctx.lineTo(right, box.top + box.height)
        }
        ctx.stroke()
        if (labelled) {
          var text = (l.label || 'manager lockout') + (l.to == null ? ': still on' : ' (' + elapsed(l.to - l.from) + ')')
          ctx.font = 'bold ' + px(12) + 'px ' + FONT
          var width = ctx.measureText(text).width + px(10)
          var tx = Math.min(left + px(6), box.left + box.width - width)
          var ty = box.top + px(8)
          ctx.fillStyle = 'rgba(255, 255, 255, 0.92)'
          ctx.fillRect(tx, ty, width, px(18))
          ctx.strokeRect(tx, ty, width, px(18))
          ctx.fillStyle = '#212121'
          ctx.textAlign = 'left'
          ctx.textBaseline = 'middle'
          ctx.fillText(text, tx + px(5), ty + px(9))
        }
        ctx.restore()
      })
    }

    function drawEvents(u, labelled) {
      var ctx = u.ctx
      var box = u.bbox
      var rowEnds = []
      for (var r = 0; r < EVENT_ROWS; r++) rowEnds.push(-Infinity)
      ctx.save()
      ctx.font = px(11) + 'px ' + FONT
      ctx.textAlign = 'left'
      ctx.textBaseline = 'bottom'
      events
        .slice()
        .sort(function (a, b) {
          return a.second - b.second
        })
        .forEach(function (e) {
          var x = xPos(u, e.second)
          if (x < box.left - 1 || x > box.left + box.width + 1) return
          ctx.strokeStyle = EVENT_STROKE
          ctx.lineWidth = px(1)
          ctx.setLineDash([px(4), px(3)])
          ctx.beginPath()
          ctx.moveTo(x, box.top)
          ctx.lineTo(x, box.top + box.height)
          ctx.stroke()
          ctx.setLineDash([])
          if (!labelled) return
          // A label in the first row above the plot where it fits; none where none does.
          var text = e.label + ' ' + shortUtc(msAt(e.second), spansDays())
          var width = ctx.measureText(text).width
          var left = Math.max(px(2), Math.min(x - width / 2, box.left + box.width - width))
          for (var row = 0; row < EVENT_ROWS; row++) {
            if (left > rowEnds[row] + px(6)) {
              rowEnds[row] = left + width
              var y = box.top - px(4) - row * px(14)
              ctx.fillStyle = '#212121'
              ctx.fillText(text, left, y)
              break
            }
          }
        })
      ctx.restore()
    }

    function drawPeaks(u) {
      var ctx = u.ctx
      var box = u.bbox
      var placed = []
      ctx.save()
      ctx.font = 'bold ' + px(11) + 'px ' + FONT
      ctx.textAlign = 'left'
      ctx.textBaseline = 'middle'
      small
        .filter(function (s) {
          return peaks[s] && peaks[s].value > 0 && u.series[small.indexOf(s) + 1].show
        })
        .sort(function (a, b) {
          return peaks[b].value - peaks[a].value
        })
        .forEach(function (s) {
          var peak = peaks[s]
          var x = xPos(u, data.seconds[peak.index])
          var y = u.valToPos(peak.value, 'y', true)
          var total = totalAt(peak.index)
          var share = total > 0 ? ' (' + ((100 * peak.value) / total).toFixed(peak.value / total < 0.01 ? 2 : 1) + '%)' : ''
          var text = s + ' peak ' + count(peak.value) + share + ' at ' + shortUtc(msAt(data.seconds[peak.index]), spansDays())
          ctx.fillStyle = colours[s]
          ctx.beginPath()
          ctx.arc(x, y, px(4), 0, 2 * Math.PI)
          ctx.fill()
          var width = ctx.measureText(text).width
          var tx = x + px(8) + width > box.left + box.width ? x - px(8) - width : x + px(8)
          var ty = Math.max(box.top + px(8), y)
          // Labels do not overlap: each moves down below the ones already placed near it.
          placed.forEach(function (p) {
            if (Math.abs(p.y - ty) < px(15) && tx < p.x + p.width && tx + width > p.x) ty = p.y + px(15)
          })
          placed.push({ x: tx, y: ty, width: width })
          ctx.fillStyle = 'rgba(255, 255, 255, 0.85)'
          ctx.fillRect(tx - px(2), ty - px(7), width + px(4), px(14))
          ctx.fillStyle = colours[s]
          ctx.fillText(text, tx, ty)
        })
      ctx.restore()
    }

    // ----- the two uPlot panels

    function tzDate(ts) {
      return uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC')
    }

    function xValue(u, v) {
      return v == null ? '–' : isoUtc(v * 1000) + ' (+' + elapsed(Math.round(v - startMs / 1000)) + ')'
    }

    /**
     * The x range, in seconds, when the samples span less than MIN_SPAN_SECONDS: that much
     * around them; else undefined (uPlot's own). With one sample (a paused clock) uPlot's own
     * range ran over years, its labels on top of one another.
     */
    function shortSpan() {
      if (xs.length === 0) return undefined
      var min = xs[0]
      var max = xs[xs.length - 1]
      var short = MIN_SPAN_SECONDS - (max - min)
      return short > 0 ? { min: min - short / 2, max: max + short / 2 } : undefined
    }

    /** Tick labels in 24-hour UTC, with the date under the first tick and where the day changes. */
    function timeTicks(u, splits, axisIdx, space, incr) {
      var previousDay = null
      return splits.map(function (v, i) {
        var d = new Date(v * 1000)
        var time = pad(d.getUTCHours()) + ':' + pad(d.getUTCMinutes()) + (incr < 60 ? ':' + pad(d.getUTCSeconds()) : '')
        var day = d.getUTCFullYear() + '-' + pad(d.getUTCMonth() + 1) + '-' + pad(d.getUTCDate())
        var label = i === 0 || day !== previousDay ? time + '\n' + day : time
        previousDay = day
        return label
      })
    }

    /** 0, 1, 10, 100, ... up to the top of the scale: the ticks of the log panel. */
    function powersOfTen(u, axisIdx, min, max) {
      var out = [0]
      for (var p = 1; p <= max; p *= 10) out.push(p)
      return out
    }

    function width() {
      return Math.max(320, element.clientWidth || 800)
    }

    var cursor = { sync: { key: id }, drag: { x: false, y: false } }

    var mainSeries = [{ label: 'virtual time', value: xValue }]
    states
      .slice()
      .reverse()
      .forEach(function (s) {
        mainSeries.push({
          label: s,
          stroke: colours[s],
          fill: colours[s],
          width: 1,
          points: { show: false },
          // The stacked value is drawn; the legend says the state's own count.
          value: function (u, v, si, i) {
            return i == null ? '–' : count(data.byState[s][i] || 0)
          }
        })
      })

    var main = new uPlot(
      {
        width: width(),
        height: height,
        tzDate: tzDate,
        cursor: cursor,
        // Room above the plot for the event labels.
        padding: [EVENT_ROWS * 14 + 10, 36, 0, 0],
        scales: { x: { time: true }, y: { range: function (u, min, max) { return [0, Math.max(1, max)] } } },
        axes: [
          { size: 44, values: timeTicks, grid: { stroke: 'rgba(0,0,0,0.07)' } },
          { label: 'agents, all states (stacked)', labelSize: 30, size: 60, grid: { stroke: 'rgba(0,0,0,0.07)' } }
        ],
        series: mainSeries,
        hooks: {
          draw: [
            function (u) {
              drawLockouts(u, true)
              drawEvents(u, true)
            }
          ]
        }
      },
      [[]].concat(mainSeries.slice(1).map(function () { return [] })),
      mainBox
    )

    var detailSeries = [{ label: 'virtual time', value: xValue }]
    small.forEach(function (s) {
      detailSeries.push({
        label: s,
        stroke: colours[s],
        width: 2,
        dash: DASHES[s] || [],
        points: { show: false },
        value: function (u, v) {
          return count(v)
        }
      })
    })

    var detail = new uPlot(
      {
        width: width(),
        height: detailHeight,
        tzDate: tzDate,
        cursor: cursor,
        legend: { show: false },
        padding: [12, 36, 0, 0],
        scales: {
          x: { time: true },
          // asinh: linear near 0 and logarithmic above, so 9 FORGED agents stay visible next to
          // 1,500 OFFLINE ones, and 0 (which a log scale cannot show) sits on the axis.
          y: { distr: 4, log: 10, asinh: 1, range: function (u, min, max) { return [0, Math.max(10, max * 3)] } }
        },
        axes: [
          { label: 'virtual time (UTC)', labelSize: 24, size: 56, values: timeTicks, grid: { stroke: 'rgba(0,0,0,0.07)' } },
          {
            label: 'not ' + calm.join(', ') + ' (log)',
            labelSize: 30,
            size: 60,
            splits: powersOfTen,
            space: 12,
            values: function (u, splits) {
              return splits.map(function (v) {
                return v == null ? null : count(v)
              })
            },
            grid: { stroke: 'rgba(0,0,0,0.07)' }
          }
        ],
        series: detailSeries,
        hooks: {
          draw: [
            function (u) {
              drawLockouts(u, false)
              drawEvents(u, false)
              drawPeaks(u)
            }
          ]
        }
      },
      [[]].concat(small.map(function () { return [] })),
      detailBox
    )

    // One legend under both panels: they share the cursor, so it describes both.
    var legend = main.root.querySelector('.u-legend')
    if (legend) plots.appendChild(legend)

    function redraw() {
      recompute()
      var topFirst = states.slice().reverse()
      main.setData(
        [xs].concat(
          topFirst.map(function (s) {
            return stacked[states.indexOf(s)]
          })
        )
      )
      detail.setData(
        [xs].concat(
          small.map(function (s) {
            return data.byState[s].map(function (v) {
              return v || 0
            })
          })
        )
      )
      var span = shortSpan()
      if (span) {
        main.setScale('x', span)
        detail.setScale('x', span)
      }
      renderTable()
    }

    var resizer = null
    if (typeof ResizeObserver === 'function') {
      resizer = new ResizeObserver(function () {
        var w = width()
        if (w !== main.width) {
          main.setSize({ width: w, height: height })
          detail.setSize({ width: w, height: detailHeight })
        }
      })
      resizer.observe(element)
    }

    renderTable()

    return {
      setData: function (series) {
        data = { seconds: (series.seconds || []).slice(), byState: {} }
        states.forEach(function (s) {
          var values = (series.byState && series.byState[s]) || []
          data.byState[s] = data.seconds.map(function (_, i) {
            return values[i] || 0
          })
        })
        if (series.events) events = series.events.slice()
        if (series.lockouts) {
          lockouts = series.lockouts.map(function (l) {
            return { from: l.from, to: l.to == null ? null : l.to, label: l.label }
          })
        }
        redraw()
      },
      push: function (sample) {
        data.seconds.push(sample.second)
        states.forEach(function (s) {
          data.byState[s].push((sample.byState && sample.byState[s]) || 0)
        })
        if (data.seconds.length > maxPoints) {
          var drop = data.seconds.length - maxPoints
          data.seconds.splice(0, drop)
          states.forEach(function (s) {
            data.byState[s].splice(0, drop)
          })
        }
        if (sample.events) events = events.concat(sample.events)
        var open = lockouts.filter(function (l) {
          return l.to == null
        })[0]
        if (sample.lockedOut === true && !open) lockouts.push({ from: sample.second, to: null })
        if (sample.lockedOut === false && open) open.to = sample.second
        redraw()
      },
      destroy: function () {
        if (resizer) resizer.disconnect()
        main.destroy()
        detail.destroy()
        element.textContent = ''
        element.classList.remove('fleet-chart')
        element.removeAttribute('role')
        element.removeAttribute('aria-label')
        element.removeAttribute('aria-describedby')
      }
    }
  }

  global.FleetChart = { create: create, STATES: STATES, COLOURS: COLOURS, formatTime: isoUtc }
})(typeof window !== 'undefined' ? window : globalThis)
