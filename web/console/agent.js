/*
 * An agent's page: each button calls its operation through the console (the REST operation
 * or the admin override itself) and shows the answer as the operation gave it: its messages,
 * its errors, or its JSON. Then the details are read again (the page as the server renders it
 * now), so the state shown is the fleet's.
 */
/* global FleetsimConsole */
;(function () {
  'use strict'
  var C = FleetsimConsole
  var message = document.getElementById('operation-message')
  var busy = false

  /** What the operation said: REST envelopes' value and error messages, else the JSON. */
  function describe(result, label) {
    var data = result.data
    var lines = []
    if (data && Array.isArray(data.values)) {
      data.values.forEach(function (v) {
        if (v && typeof v.message === 'string') lines.push(v.message)
      })
    }
    var failed = data && Array.isArray(data.errors) && data.errors.length > 0
    if (failed) {
      data.errors.forEach(function (e) {
        lines.push(e.message + (e.code ? ' (' + e.code + ')' : ''))
      })
    }
    if (lines.length === 0) lines.push(result.text === '' ? '(no body)' : result.text)
    return { text: label + ': HTTP ' + result.status + ' — ' + lines.join(' '), ok: result.ok && !failed }
  }

  function refresh() {
    return fetch(location.href, { credentials: 'same-origin' })
      .then(function (response) {
        return response.text()
      })
      .then(function (text) {
        var fresh = new DOMParser().parseFromString(text, 'text/html')
        ;['agent-details', 'agent-state'].forEach(function (id) {
          var now = document.getElementById(id)
          var next = fresh.getElementById(id)
          if (now && next) now.replaceWith(next)
        })
      })
  }

  function run(method, path, body, label) {
    if (busy) return
    busy = true
    C.say(message, label + ': working… (operations that reconnect agents wait for virtual time to pass)', '')
    C.api(method, path, body)
      .then(function (result) {
        var said = describe(result, label)
        C.say(message, said.text, said.ok ? 'ok' : 'error')
        return refresh()
      })
      .catch(function (error) {
        C.say(message, label + ': ' + error, 'error')
      })
      .then(function () {
        busy = false
      })
  }

  document.querySelectorAll('.actions button[data-path]').forEach(function (button) {
    button.addEventListener('click', function () {
      run(button.getAttribute('data-method'), button.getAttribute('data-path'), undefined, button.textContent)
    })
  })

  var assign = document.querySelector('form[data-form="assign"]')
  if (assign) {
    assign.addEventListener('submit', function (event) {
      event.preventDefault()
      var path = assign.getAttribute('data-path') + '&templateName=' + encodeURIComponent(assign.elements.templateName.value)
      if (assign.elements.updateAgents.checked) path += '&updateAgents=true'
      run('POST', path, undefined, 'assigntemplatetoagent')
    })
  }

  var offline = document.querySelector('form[data-form="offline"]')
  if (offline) {
    offline.addEventListener('submit', function (event) {
      event.preventDefault()
      var text = offline.elements['for'].value.trim()
      run('POST', offline.getAttribute('data-path'), { action: 'offline', for: /^\d+$/.test(text) ? Number(text) : text }, 'offline override')
    })
  }
})()
