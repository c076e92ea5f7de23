/*
 * The Traffic page: the request journal live, the fault rules, the client report.
 *
 * The list: the stream's first `journal` event says where the journal is; the page then loads
 * what it holds (GET /admin/requests, with the filter) and adds what the stream sends after
 * that, keeping the newest rows. Rows are known by id, so nothing is shown twice and nothing
 * between the load and the stream is lost. An opened row reads its entry in full
 * (GET /admin/requests/<id>): request and answer, bodies included.
 */
/* global FleetsimConsole */
;(function () {
  'use strict'
  var C = FleetsimConsole
  var $ = function (id) {
    return document.getElementById(id)
  }
  var table = $('journal')
  var maxRows = Number(table.getAttribute('data-rows')) || 200
  var summary = $('journal-summary')
  var follow = $('follow')
  /** id → the row group (<tbody>) of that request */
  var shown = new Map()
  var loaded = false
  /** the number of the latest load, so an older answer that comes late is ignored */
  var loading = 0

  function filter() {
    return { operation: $('f-operation').value, status: $('f-status').value }
  }

  function matches(line, f) {
    if (f.operation !== '' && line.operation !== f.operation) return false
    if (f.status === '') return true
    if (/^[1-5]xx$/.test(f.status)) return Math.floor(line.status / 100) === Number(f.status[0])
    return line.status === Number(f.status)
  }

  function time(iso) {
    return iso.replace('T', ' ').replace(/Z$/, '')
  }

  // ---- rows -----------------------------------------------------------------------------

  function td(row, text, className) {
    var cell = document.createElement('td')
    if (className) cell.className = className
    cell.textContent = text
    row.appendChild(cell)
    return cell
  }

  function group(line, fresh) {
    var body = document.createElement('tbody')
    body.setAttribute('data-id', String(line.id))
    var row = document.createElement('tr')
    row.setAttribute('data-operation', line.operation)
    row.setAttribute('data-status', String(line.status))
    if (fresh) row.className = 'fresh'
    var toggleCell = document.createElement('td')
    var toggle = document.createElement('button')
    toggle.type = 'button'
    toggle.className = 'toggle'
    toggle.textContent = '▸'
    toggle.setAttribute('aria-expanded', 'false')
    toggle.setAttribute('aria-controls', 'entry-' + line.id)
    toggle.setAttribute('aria-label', 'Request ' + line.id + ': ' + line.method + ' ' + (line.operation || line.path) + ', status ' + line.status + ', in full')
    toggle.addEventListener('click', function () {
      toggleEntry(body, toggle, line.id)
    })
    toggleCell.appendChild(toggle)
    row.appendChild(toggleCell)
    td(row, String(line.id), 'num')
    td(row, time(line.time))
    td(row, line.method)
    td(row, line.operation === '' ? line.path : line.operation)
    td(row, String(line.status), 'num status-' + String(line.status)[0])
    td(row, Number(line.durationMs).toFixed(1), 'num')
    td(row, line.fault || '')
    body.appendChild(row)
    return body
  }

  /** Adds a request's row where its id belongs (newest first); false when it is there already. */
  function add(line, fresh) {
    if (shown.has(line.id)) return false
    var body = group(line, fresh)
    var before = null
    var groups = table.tBodies
    for (var k = 0; k < groups.length; k++) {
      var id = Number(groups[k].getAttribute('data-id'))
      if (id > 0 && id < line.id) {
        before = groups[k]
        break
      }
    }
    table.insertBefore(body, before)
    shown.set(line.id, body)
    return true
  }

  /** Keeps the newest maxRows rows. */
  function trim() {
    if (shown.size <= maxRows) return
    var ids = Array.from(shown.keys()).sort(function (a, b) {
      return a - b
    })
    ids.slice(0, ids.length - maxRows).forEach(function (id) {
      shown.get(id).remove()
      shown.delete(id)
    })
  }

  function clearRows() {
    shown.forEach(function (body) {
      body.remove()
    })
    shown.clear()
  }

  function describe() {
    var f = filter()
    var what = (f.operation === '' ? 'all operations' : f.operation) + (f.status === '' ? '' : ', status ' + f.status)
    return 'Showing ' + C.count(shown.size) + (shown.size === 1 ? ' request' : ' requests') + ' (' + what + '), newest first' + (follow.checked ? '; following live.' : '; not following.')
  }

  /** Loads what the journal holds for the filter, then the stream adds to it. */
  function load() {
    var f = filter()
    var params = new URLSearchParams({ limit: String(maxRows) })
    if (f.operation !== '') params.set('operation', f.operation)
    if (f.status !== '') params.set('status', f.status)
    var mine = ++loading
    return C.api('GET', '/admin/requests?' + params.toString()).then(function (result) {
      if (mine !== loading) return
      if (!result.ok) return C.say(summary, C.messageOf(result), 'error')
      clearRows()
      result.data.entries.forEach(function (entry) {
        add(entry, false)
      })
      trim()
      loaded = true
      table.setAttribute('aria-busy', 'false')
      C.say(summary, describe(), '')
    })
  }

  function onJournal(event) {
    if (event.entries.length === 0 && event.skipped === 0) {
      // A stream's first event (also after it reconnected): where the journal is. Load what
      // came before it; the stream brings what comes after.
      load()
      return
    }
    if (!loaded) return
    // Not following: the list stays still to be read; turning Follow live on loads it again.
    if (!follow.checked) return
    var f = filter()
    var added = 0
    event.entries.forEach(function (line) {
      if (matches(line, f) && add(line, true)) added++
    })
    if (added > 0) trim()
    soon()
  }

  /**
   * New calls change the report and what fault rules have used up (failFirst): both are read
   * again a while after calls came, at most every REFRESH_MS, not on every call.
   */
  var REFRESH_MS = 5000
  var refreshTimer = null
  function soon() {
    if (refreshTimer !== null) return
    refreshTimer = setTimeout(function () {
      refreshTimer = null
      loadRules()
      loadReport()
    }, REFRESH_MS)
  }

  // ---- one request in full --------------------------------------------------------------

  function dl(pairs) {
    var list = document.createElement('dl')
    pairs.forEach(function (pair) {
      if (pair[1] === undefined || pair[1] === null || pair[1] === '') return
      var dt = document.createElement('dt')
      dt.textContent = pair[0]
      var dd = document.createElement('dd')
      dd.textContent = pair[1]
      list.appendChild(dt)
      list.appendChild(dd)
    })
    return list
  }

  /** A kept body as text, JSON laid out when the whole of it was kept. */
  function bodyText(body) {
    if (body.truncated) return body.text + '\n… (the first ' + C.count(body.text.length) + ' characters of ' + C.count(body.bytes) + ' bytes)'
    try {
      return JSON.stringify(JSON.parse(body.text), null, 2)
    } catch {
      return body.text
    }
  }

  function kept(title, body, shape) {
    var wrap = document.createElement('div')
    var caption = document.createElement('p')
    caption.className = 'body-title'
    caption.textContent = title
    var pre = document.createElement('pre')
    if (body) pre.textContent = bodyText(body)
    else if (shape) pre.textContent = 'Kept by its shape only:\n' + JSON.stringify(shape, null, 2)
    else pre.textContent = '(none)'
    // Focusable, so a long body scrolls from the keyboard; named for screen readers.
    pre.tabIndex = 0
    pre.setAttribute('aria-label', title)
    wrap.appendChild(caption)
    wrap.appendChild(pre)
    return wrap
  }

  function queryText(query) {
    var params = new URLSearchParams()
    Object.keys(query || {}).forEach(function (key) {
      query[key].forEach(function (value) {
        params.append(key, value)
      })
    })
    var text = params.toString()
    return text === '' ? '' : '?' + decodeURIComponent(text)
  }

  function part(title, pairs, body) {
    var wrap = document.createElement('div')
    var h = document.createElement('h3')
    h.textContent = title
    wrap.appendChild(h)
    wrap.appendChild(dl(pairs))
    wrap.appendChild(body)
    return wrap
  }

  function details(entry) {
    var wrap = document.createElement('div')
    wrap.className = 'entry'
    wrap.appendChild(
      part(
        'Request',
        [
          ['Call', entry.method + ' ' + entry.path + queryText(entry.query)],
          ['Wall time', time(entry.time)],
          ['Virtual time', time(entry.virtualTime)],
          ['Accept', entry.accept],
          ['Content-Type', entry.contentType],
          ['Strict rules broken', (entry.violations || []).map(function (v) {
            return v.rule + ': ' + v.detail
          }).join('; ')]
        ],
        kept('Request body', entry.requestBody, entry.body && entry.body.shape)
      )
    )
    wrap.appendChild(
      part(
        'Answer',
        [
          ['Status', String(entry.status) + (entry.rejected ? ' (rejected by --strict)' : '')],
          ['Format', entry.format],
          ['Took', Number(entry.durationMs).toFixed(1) + ' ms'],
          ['Fault', entry.fault],
          ['Error codes', (entry.errorCodes || []).join(', ')],
          ['Failed agents', (entry.partialErrors || []).map(function (p) {
            return p.agent + ': ' + p.message
          }).join('; ')]
        ],
        kept('Answer body', entry.responseBody, null)
      )
    )
    return wrap
  }

  function toggleEntry(body, toggle, id) {
    var open = toggle.getAttribute('aria-expanded') === 'true'
    var existing = body.querySelector('tr.details')
    if (open) {
      if (existing) existing.remove()
      toggle.setAttribute('aria-expanded', 'false')
      toggle.textContent = '▸'
      return
    }
    toggle.setAttribute('aria-expanded', 'true')
    toggle.textContent = '▾'
    var row = document.createElement('tr')
    row.className = 'details'
    row.id = 'entry-' + id
    var cell = document.createElement('td')
    cell.colSpan = 8
    cell.textContent = 'Loading request ' + id + '…'
    row.appendChild(cell)
    body.appendChild(row)
    C.api('GET', '/admin/requests/' + id).then(function (result) {
      cell.textContent = ''
      if (!result.ok) {
        cell.textContent = C.messageOf(result)
        return
      }
      cell.appendChild(details(result.data))
    })
  }

  // ---- filter, follow, clear ------------------------------------------------------------

  $('f-operation').addEventListener('change', load)
  $('f-status').addEventListener('change', load)
  $('journal-filter').addEventListener('submit', function (event) {
    event.preventDefault()
    load()
  })
  follow.addEventListener('change', function () {
    if (follow.checked) load()
    else C.say(summary, describe(), '')
  })
  $('clear-journal').addEventListener('click', function () {
    C.api('DELETE', '/admin/requests').then(function (result) {
      if (!result.ok) return C.say(summary, C.messageOf(result), 'error')
      clearRows()
      C.say(summary, 'The journal is cleared. ' + describe(), 'ok')
      loadReport()
    })
  })

  table.setAttribute('aria-busy', 'true')
  C.stream({ journal: onJournal })

  // ---- fault rules ----------------------------------------------------------------------

  var faultMessage = $('fault-message')
  var ruleText = $('fault-rule')

  function seconds(s) {
    if (s % 3600 === 0 && s > 0) return s / 3600 + 'h'
    if (s % 60 === 0 && s > 0) return s / 60 + 'm'
    return s + 's'
  }

  function percent(rate) {
    return Math.round(rate * 10000) / 100 + '%'
  }

  function distribution(d) {
    if (d.kind === 'fixed') return d.value + ' ms'
    if (d.kind === 'uniform') return d.min + '–' + d.max + ' ms'
    return (
      d.kind +
      ' (' +
      Object.keys(d)
        .filter(function (k) {
          return k !== 'kind'
        })
        .map(function (k) {
          return k + ' ' + d[k]
        })
        .join(', ') +
      ') ms'
    )
  }

  function effects(rule) {
    var out = []
    if (rule.latencyMs) out.push('latency ' + distribution(rule.latencyMs))
    if (rule.error) out.push('error ' + rule.error.status + ' at ' + percent(rule.error.rate))
    if (rule.reset) out.push('connection reset at ' + percent(rule.reset.rate))
    if (rule.stall) out.push('stall ' + rule.stall.forMs + ' ms at ' + percent(rule.stall.rate))
    if (rule.failFirst) out.push('first ' + rule.failFirst.count + ' calls fail with ' + rule.failFirst.status + (rule.failFirstLeft === undefined ? '' : ' (' + rule.failFirstLeft + ' left)'))
    if (rule.body) {
      if (rule.body.slowBytesPerSecond !== null) out.push('body at ' + rule.body.slowBytesPerSecond + ' B/s')
      if (rule.body.truncateRate > 0) out.push('body cut short at ' + percent(rule.body.truncateRate))
    }
    if (rule.during) out.push('from ' + seconds(rule.during.from) + (rule.during.until === null ? '' : ' until ' + seconds(rule.during.until)) + ' (virtual)')
    return out.join('; ')
  }

  var ORIGINS = { scenario: 'the scenario', flag: 'a serve flag', admin: 'added here' }

  var shownRules = ''

  function showRules(state) {
    var text = JSON.stringify(state.rules) + state.enabled
    if (text === shownRules) return
    shownRules = text
    $('faults-enabled').checked = state.enabled
    var body = $('faults').tBodies[0]
    // A Remove button that has the focus gets it back after the table is drawn again.
    var focused = document.activeElement && body.contains(document.activeElement) ? document.activeElement.closest('tr').getAttribute('data-rule') : null
    body.textContent = ''
    if (state.rules.length === 0) {
      var empty = document.createElement('tr')
      td(empty, 'No fault rule is in force.', 'note').colSpan = 6
      body.appendChild(empty)
      return
    }
    state.rules.forEach(function (rule) {
      var row = document.createElement('tr')
      row.setAttribute('data-rule', rule.id)
      var id = document.createElement('td')
      var code = document.createElement('code')
      code.textContent = rule.id
      id.appendChild(code)
      row.appendChild(id)
      td(row, rule.name)
      td(row, ORIGINS[rule.origin] || rule.origin)
      td(row, rule.operations === null ? 'all' : rule.operations.join(', '))
      td(row, effects(rule))
      var actions = document.createElement('td')
      var remove = document.createElement('button')
      remove.type = 'button'
      remove.className = 'secondary'
      remove.textContent = 'Remove'
      remove.setAttribute('aria-label', 'Remove fault rule ' + rule.name + ' (' + rule.id + ')')
      remove.addEventListener('click', function () {
        removeRule(rule)
      })
      actions.appendChild(remove)
      row.appendChild(actions)
      body.appendChild(row)
      if (rule.id === focused) remove.focus()
    })
  }

  function loadRules() {
    return C.api('GET', '/admin/faults').then(function (result) {
      if (!result.ok) return C.say(faultMessage, C.messageOf(result), 'error')
      showRules(result.data)
    })
  }

  function removeRule(rule) {
    C.api('DELETE', '/admin/faults/' + encodeURIComponent(rule.id)).then(function (result) {
      if (!result.ok) return C.say(faultMessage, C.messageOf(result), 'error')
      showRules(result.data)
      C.say(faultMessage, 'Removed fault rule ' + rule.name + ' (' + rule.id + ').', 'ok')
      $('fault-rule').focus()
    })
  }

  function clearRuleProblems() {
    var old = $('fault-problems')
    if (old) old.remove()
    ruleText.removeAttribute('aria-invalid')
  }

  $('fault-form').addEventListener('submit', function (event) {
    event.preventDefault()
    clearRuleProblems()
    if (ruleText.value.trim() === '') {
      C.say(faultMessage, 'Write the rule first, e.g. { operation: agentinfo, latency: 300 }.', 'error')
      ruleText.focus()
      return
    }
    C.api('POST', '/admin/faults', ruleText.value, 'application/yaml').then(function (result) {
      if (!result.ok) {
        var errors = result.data && Array.isArray(result.data.errors) ? result.data.errors : []
        var placed = errors.filter(function (e) {
          return typeof e.problem === 'string'
        })
        if (placed.length === 0) return C.say(faultMessage, C.messageOf(result), 'error')
        ruleText.setAttribute('aria-invalid', 'true')
        var list = document.createElement('ul')
        list.id = 'fault-problems'
        list.className = 'faults-problems'
        var texts = placed.map(function (e) {
          return (e.path ? e.path + ': ' : '') + e.problem + (typeof e.line === 'number' ? ' (line ' + e.line + ', column ' + e.column + ')' : '')
        })
        texts.forEach(function (text) {
          var item = document.createElement('li')
          item.textContent = text
          list.appendChild(item)
        })
        faultMessage.after(list)
        return C.say(faultMessage, 'The rule was not added: ' + texts.join('; '), 'error')
      }
      showRules(result.data)
      ruleText.value = ''
      C.say(faultMessage, 'Added fault rule ' + result.data.added + '.', 'ok')
    })
  })

  $('faults-enabled').addEventListener('change', function (event) {
    var enabled = event.target.checked
    C.api('PUT', '/admin/faults', { enabled: enabled }).then(function (result) {
      if (!result.ok) return C.say(faultMessage, C.messageOf(result), 'error')
      showRules(result.data)
      C.say(faultMessage, enabled ? 'Fault rules act on calls.' : 'Fault rules are switched off.', 'ok')
    })
  })

  loadRules()

  // ---- the client report ----------------------------------------------------------------

  function loadReport() {
    var place = $('report')
    return C.api('GET', '/admin/report').then(function (result) {
      place.textContent = ''
      if (!result.ok) {
        place.textContent = C.messageOf(result)
        return
      }
      var report = result.data
      var findings = Array.isArray(report.findings) ? report.findings : []
      var verdict = report.verdict || { outcome: '', reason: '', counts: {} }
      var counts = verdict.counts || {}
      var OUTCOMES = { pass: 'Pass', 'pass-with-warnings': 'Pass with warnings', fail: 'Fail' }
      if (verdict.outcome) {
        var line = document.createElement('p')
        line.className = 'verdict verdict-' + verdict.outcome
        var strong = document.createElement('strong')
        strong.textContent = OUTCOMES[verdict.outcome] || verdict.outcome
        line.appendChild(strong)
        if (verdict.reason) line.appendChild(document.createTextNode(': ' + verdict.reason))
        place.appendChild(line)
      }
      var figures = document.createElement('dl')
      figures.className = 'report-figures'
      ;[
        ['Requests judged', C.count(counts.requests !== undefined ? counts.requests : report.journal ? report.journal.entries : 0)],
        ['Problems', C.count(counts.problems || 0)],
        ['Warnings', C.count(counts.warnings || 0)],
        ['Notes', C.count(counts.notes || 0)],
        ['Faults injected', C.count(report.faults ? report.faults.injected : 0)]
      ].forEach(function (pair) {
        var div = document.createElement('div')
        var dt = document.createElement('dt')
        dt.textContent = pair[0]
        var dd = document.createElement('dd')
        dd.textContent = pair[1]
        div.appendChild(dt)
        div.appendChild(dd)
        figures.appendChild(div)
      })
      place.appendChild(figures)
      if (findings.length > 0) {
        var LEVELS = { problem: 'Problem', warning: 'Warning', note: 'Note' }
        var list = document.createElement('ul')
        list.className = 'findings'
        findings.slice(0, 12).forEach(function (f) {
          var item = document.createElement('li')
          item.className = f.level
          var ids = Array.isArray(f.requests) && f.requests.length > 0 ? ' (requests ' + f.requests.map(function (id) {
            return '#' + id
          }).join(', ') + ')' : ''
          item.textContent = (LEVELS[f.level] || f.level) + ': ' + f.text + ids
          list.appendChild(item)
        })
        place.appendChild(list)
      }
    })
  }

  $('refresh-report').addEventListener('click', loadReport)
  loadReport()
})()
