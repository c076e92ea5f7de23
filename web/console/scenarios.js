/*
 * The Scenarios page: the running scenario (reset, stop), the library (start, edit) and the
 * editor (upload, check, load). Problems come from the admin API as error items with `line`,
 * `column` and `problem`; each is listed as a button that puts the cursor on its line, the
 * line is marked in the gutter, and the summary is announced (role=status).
 */
/* global FleetsimConsole */
;(function () {
  'use strict'
  var C = FleetsimConsole
  var $ = function (id) {
    return document.getElementById(id)
  }
  var text = $('scenario-text')
  var gutter = $('gutter')
  var source = $('scenario-source')
  var summary = $('problems-summary')
  var list = $('problem-list')
  /** line number → the problems' text, of the last check */
  var marked = {}

  // ---- the running scenario -------------------------------------------------------------

  function showRunning() {
    return C.api('GET', '/admin/scenario').then(function (result) {
      $('running').textContent = result.ok ? result.data.name + ': ' + result.data.description : 'The default fleet (no scenario).'
    })
  }

  function runningAction(button, method, path, done) {
    var message = $('running-message')
    C.say(message, 'Working…', '')
    button.disabled = true
    return C.api(method, path).then(function (result) {
      button.disabled = false
      if (!result.ok) return C.say(message, C.messageOf(result), 'error')
      C.say(message, done(result.data), 'ok')
      showRunning()
    })
  }

  $('reset').addEventListener('click', function (event) {
    runningAction(event.currentTarget, 'POST', '/admin/reset', function (data) {
      return (data.scenario === null ? 'The default fleet' : 'Scenario ' + data.scenario) + ' is back at its start: ' + C.count(data.agents) + ' agents.'
    })
  })
  $('stop').addEventListener('click', function (event) {
    runningAction(event.currentTarget, 'DELETE', '/admin/scenario', function (data) {
      return 'Back to the default fleet: ' + C.count(data.agents) + ' agents.'
    })
  })

  // ---- the library ----------------------------------------------------------------------

  function cell(row, content, className) {
    var td = document.createElement('td')
    if (className) td.className = className
    if (typeof content === 'string') td.textContent = content
    else td.appendChild(content)
    row.appendChild(td)
    return td
  }

  function button(label, accessibleName, onClick, secondary) {
    var b = document.createElement('button')
    b.type = 'button'
    b.textContent = label
    b.setAttribute('aria-label', accessibleName)
    if (secondary) b.className = 'secondary'
    b.addEventListener('click', onClick)
    return b
  }

  function contents(s) {
    var parts = []
    if (s.timeline.length > 0) parts.push('timeline: ' + s.timeline.join(', '))
    if (s.faults.length > 0) parts.push('faults: ' + s.faults.join(', '))
    return parts.length === 0 ? '—' : parts.join('; ')
  }

  function showLibrary(scenarios) {
    var body = $('library').querySelector('tbody')
    body.textContent = ''
    scenarios.forEach(function (s) {
      var row = document.createElement('tr')
      row.setAttribute('data-scenario', s.id)
      var name = document.createElement('th')
      name.scope = 'row'
      name.textContent = s.id
      row.appendChild(name)
      if (!s.valid) {
        cell(row, 'Does not validate: ' + s.problems.join('; '))
        cell(row, '', 'num')
        cell(row, '')
        cell(row, '')
      } else {
        cell(row, s.description)
        cell(row, C.count(s.agents), 'num')
        cell(row, contents(s))
        var actions = document.createElement('div')
        actions.className = 'row-actions'
        actions.appendChild(button('Start', 'Start ' + s.id, function (event) {
          start(event.currentTarget, s.id)
        }))
        actions.appendChild(button('Edit', 'Edit ' + s.id + ' in the editor', function () {
          edit(s.id)
        }, true))
        cell(row, actions)
      }
      body.appendChild(row)
    })
  }

  function start(b, id) {
    var message = $('library-message')
    C.say(message, 'Starting ' + id + '…', '')
    b.disabled = true
    C.api('POST', '/admin/scenarios/' + encodeURIComponent(id) + '/start').then(function (result) {
      b.disabled = false
      if (!result.ok) return C.say(message, C.messageOf(result), 'error')
      C.say(message, 'Started ' + result.data.name + ' at its second 0.', 'ok')
      showRunning()
    })
  }

  function edit(id) {
    var message = $('library-message')
    fetch('/console/api/admin/scenarios/' + encodeURIComponent(id), { credentials: 'same-origin', headers: { Accept: 'application/yaml' } })
      .then(function (response) {
        return response.text().then(function (body) {
          if (!response.ok) return C.say(message, 'HTTP ' + response.status + ': ' + body.slice(0, 300), 'error')
          text.value = body
          source.value = 'scenarios/' + id + '.yaml'
          clearProblems()
          C.say(message, id + ' is in the editor below.', 'ok')
          text.focus()
          text.setSelectionRange(0, 0)
          text.scrollTop = 0
        })
      })
  }

  C.api('GET', '/admin/scenarios').then(function (result) {
    if (!result.ok) return C.say($('library-message'), C.messageOf(result), 'error')
    showLibrary(result.data.scenarios)
  })

  // ---- the editor -----------------------------------------------------------------------

  /** The gutter: one number per line of the text, problems' lines marked. */
  function drawGutter() {
    var lines = text.value.split('\n').length
    var out = document.createDocumentFragment()
    for (var n = 1; n <= lines; n++) {
      var line = document.createElement('div')
      line.setAttribute('data-line', String(n))
      line.textContent = String(n)
      if (marked[n]) {
        line.className = 'error'
        line.title = marked[n].join('\n')
      }
      out.appendChild(line)
    }
    gutter.textContent = ''
    gutter.appendChild(out)
    gutter.scrollTop = text.scrollTop
  }

  function clearProblems() {
    marked = {}
    list.textContent = ''
    C.say(summary, '', '')
    text.removeAttribute('aria-invalid')
    drawGutter()
  }

  /** Puts the cursor at line:column and shows it. */
  function goTo(line, column) {
    var lines = text.value.split('\n')
    var offset = 0
    for (var k = 0; k < line - 1 && k < lines.length; k++) offset += lines[k].length + 1
    var lineText = lines[Math.min(line, lines.length) - 1] || ''
    var at = offset + Math.min(Math.max(column - 1, 0), lineText.length)
    text.focus()
    text.setSelectionRange(at, offset + lineText.length)
    // Scroll the line into view: lines are of equal height (the text does not wrap).
    var lineHeight = parseFloat(window.getComputedStyle(text).lineHeight) || 20
    text.scrollTop = Math.max(0, (line - 3) * lineHeight)
    gutter.scrollTop = text.scrollTop
  }

  function where(error) {
    if (error.line === null || error.line === undefined) return 'The whole scenario'
    return 'Line ' + error.line + ', column ' + (error.column || 1)
  }

  function showProblems(result) {
    var errors = result.data && Array.isArray(result.data.errors) ? result.data.errors : []
    var placed = errors.filter(function (e) {
      return typeof e.problem === 'string'
    })
    marked = {}
    list.textContent = ''
    if (placed.length === 0) {
      // Not a problem of the text (too large, not YAML, cannot run): the API's message as it is.
      C.say(summary, C.messageOf(result), 'error')
      drawGutter()
      return
    }
    placed.forEach(function (e) {
      if (typeof e.line === 'number') (marked[e.line] = marked[e.line] || []).push(e.problem)
      var item = document.createElement('li')
      item.setAttribute('data-line', e.line === null ? '' : String(e.line))
      var b = document.createElement('button')
      b.type = 'button'
      b.className = 'link'
      b.textContent = where(e) + (e.path ? ' (' + e.path + ')' : '') + ': ' + e.problem
      if (typeof e.line === 'number') {
        b.addEventListener('click', function () {
          goTo(e.line, e.column || 1)
        })
      } else b.disabled = true
      item.appendChild(b)
      list.appendChild(item)
    })
    text.setAttribute('aria-invalid', 'true')
    var first = placed[0]
    C.say(summary, placed.length + (placed.length === 1 ? ' problem' : ' problems') + '. First: ' + where(first).toLowerCase() + ': ' + first.problem, 'error')
    drawGutter()
  }

  function query(dryRun) {
    var params = new URLSearchParams()
    if (source.value.trim() !== '') params.set('source', source.value.trim())
    if (dryRun) params.set('dryRun', 'true')
    return '/admin/scenario?' + params.toString()
  }

  function send(dryRun) {
    if (text.value.trim() === '') {
      C.say(summary, 'The editor is empty: upload a file, open a library scenario or write one.', 'error')
      text.focus()
      return
    }
    C.say(summary, dryRun ? 'Checking…' : 'Loading…', '')
    C.api('PUT', query(dryRun), text.value, 'application/yaml').then(function (result) {
      if (!result.ok) return showProblems(result)
      marked = {}
      list.textContent = ''
      text.removeAttribute('aria-invalid')
      drawGutter()
      var s = result.data
      if (dryRun) C.say(summary, 'No problems: ' + s.name + ', ' + C.count(s.agents) + ' agents. Load it to start it.', 'ok')
      else {
        C.say(summary, 'Started ' + s.name + ' at its second 0.', 'ok')
        showRunning()
      }
    })
  }

  $('editor').addEventListener('submit', function (event) {
    event.preventDefault()
    send(!(event.submitter && event.submitter.value === 'load'))
  })

  $('scenario-file').addEventListener('change', function (event) {
    var file = event.target.files && event.target.files[0]
    if (!file) return
    file.text().then(function (content) {
      text.value = content
      source.value = file.name
      clearProblems()
      // A file is checked as soon as it is chosen: its problems show at once.
      send(true)
    })
  })

  text.addEventListener('input', drawGutter)
  text.addEventListener('scroll', function () {
    gutter.scrollTop = text.scrollTop
  })
  drawGutter()
})()
