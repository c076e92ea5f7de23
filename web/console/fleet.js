/*
 * The Fleet page: live counts, the clock and its controls, and the fleet chart. The counts
 * and times come from the `fleet` topic of the console stream; the controls call the admin
 * API through the console and show its answer (or its error message) as it is.
 */
/* global FleetsimConsole, FleetChart */
;(function () {
  'use strict'
  var C = FleetsimConsole
  var $ = function (id) {
    return document.getElementById(id)
  }
  var message = $('clock-message')
  var chart = null
  var startTime = 0

  function showSummary(s) {
    var rows = document.querySelectorAll('#counts tbody tr')
    for (var k = 0; k < rows.length; k++) {
      var state = rows[k].getAttribute('data-state')
      var n = s.byState[state] || 0
      rows[k].querySelector('[data-count]').textContent = C.count(n)
      rows[k].querySelector('[data-share]').textContent = s.agents === 0 ? '0%' : ((100 * n) / s.agents).toFixed(1) + '%'
    }
    $('counts').setAttribute('data-agents', String(s.agents))
    // The live stream has been applied at least once (the console benchmark waits for it).
    $('counts').setAttribute('data-live', 'true')
    $('total').textContent = C.count(s.agents)
    var virtual = $('virtual-time')
    virtual.textContent = C.isoTime(s.virtualMs)
    virtual.setAttribute('datetime', new Date(s.virtualMs).toISOString())
    virtual.setAttribute('data-ms', String(s.virtualMs))
    $('speed').textContent = s.speed + '×'
    $('clock-state').textContent = s.paused ? 'paused' : 'running'
    $('pause').disabled = s.paused
    $('resume').disabled = !s.paused
    $('scenario').textContent = s.scenario === null ? 'Default fleet (no scenario)' : 'Scenario: ' + s.scenario + (s.lockedOut ? ' · manager locked out' : '')
  }

  function tickWall() {
    var wall = $('wall-time')
    var now = Date.now()
    wall.textContent = C.isoTime(now)
    wall.setAttribute('datetime', new Date(now).toISOString())
  }

  function showChart(event) {
    var element = $('chart')
    if (typeof FleetChart === 'undefined') {
      if (element.getAttribute('data-chart') !== 'missing') {
        element.setAttribute('data-chart', 'missing')
        element.textContent = 'The chart could not be loaded (web/chart/fleet-chart.js).'
      }
      return
    }
    if (event.series) {
      if (chart === null || event.series.startTime !== startTime) {
        if (chart !== null) chart.destroy()
        element.textContent = ''
        startTime = event.series.startTime
        chart = FleetChart.create(element, { startTime: startTime, title: 'Agents by state over virtual time' })
      }
      chart.setData(event.series)
    } else if (chart !== null && event.samples) {
      event.samples.forEach(function (sample) {
        chart.push(sample)
      })
    }
  }

  C.stream({
    fleet: function (event) {
      showSummary(event.summary)
      showChart(event)
    }
  })
  tickWall()
  setInterval(tickWall, 1000)

  function clock(path, body) {
    C.say(message, 'Working…', '')
    return C.api('POST', path, body).then(function (result) {
      if (!result.ok) return C.say(message, C.messageOf(result), 'error')
      var state = result.data
      C.say(message, 'Clock ' + (state.paused ? 'paused' : 'running') + ' at ' + state.speed + '×, virtual time ' + C.isoTime(Date.parse(state.now)) + '.', 'ok')
    })
  }

  $('pause').addEventListener('click', function () {
    clock('/admin/clock', { paused: true })
  })
  $('resume').addEventListener('click', function () {
    clock('/admin/clock', { paused: false })
  })
  $('speed-form').addEventListener('submit', function (event) {
    event.preventDefault()
    clock('/admin/clock', { speed: Number($('speed-input').value) })
  })
  $('advance-form').addEventListener('submit', function (event) {
    event.preventDefault()
    var text = $('advance-input').value.trim()
    // The console's advance runs the admin API's in steps, so the chart has the hour it skips.
    clock('/fleet/advance', { seconds: /^\d+$/.test(text) ? Number(text) : text })
  })
})()
