/*
 * What every console page shares: calling the console's API, the live stream, formatting, and
 * the log-out button. A classic script (no modules, no bundler): it defines the global
 * `FleetsimConsole`, and each page's own script (fleet.js, agent.js, …) uses it.
 *
 *   FleetsimConsole.api(method, path, body?, contentType?)  → Promise<{ status, ok, data, text }>
 *       path is under /console/api (e.g. '/admin/clock'); body objects go as JSON; every
 *       request carries the X-Fleetsim-Console header that state-changing requests need.
 *   FleetsimConsole.stream(handlers)    → the EventSource of /console/api/events; handlers maps
 *       event names (topics: 'fleet', …) to functions of the parsed data. Closed when the page goes.
 *   FleetsimConsole.messageOf(result)   → the text to show for an answer: its errors' messages,
 *       or '' for a success.
 *   FleetsimConsole.say(element, text, kind)  → shows a status message ('ok' | 'error' | '')
 *   FleetsimConsole.count(n), .isoTime(ms)
 */
;(function (global) {
  'use strict'

  var API = '/console/api'

  function api(method, path, body, contentType) {
    var headers = { 'X-Fleetsim-Console': '1', Accept: 'application/json' }
    var payload
    if (body !== undefined) {
      if (typeof body === 'string') {
        payload = body
        headers['Content-Type'] = contentType || 'text/plain'
      } else {
        payload = JSON.stringify(body)
        headers['Content-Type'] = 'application/json'
      }
    }
    return fetch(API + path, { method: method, headers: headers, body: payload, credentials: 'same-origin' }).then(function (response) {
      return response.text().then(function (text) {
        var data = parseJson(text)
        if (response.status === 401 && data && data.servicename === 'console') {
          // The login ran out: back to the form, then back here.
          location.assign('/console/login?next=' + encodeURIComponent(location.pathname + location.search))
        }
        return { status: response.status, ok: response.ok, data: data, text: text }
      })
    })
  }

  function parseJson(text) {
    try {
      return text === '' ? null : JSON.parse(text)
    } catch {
      return null
    }
  }

  function messageOf(result) {
    if (result.ok) return ''
    var data = result.data
    if (data && Array.isArray(data.errors) && data.errors.length > 0) {
      return data.errors
        .map(function (e) {
          return e.message + (e.code ? ' (' + e.code + ')' : '')
        })
        .join(' ')
    }
    return 'HTTP ' + result.status + (result.text ? ': ' + result.text.slice(0, 300) : '')
  }

  function say(element, text, kind) {
    element.textContent = text
    element.className = 'message' + (kind ? ' ' + kind : '')
  }

  function stream(handlers) {
    var topics = Object.keys(handlers)
    var source = new EventSource(API + '/events?topics=' + encodeURIComponent(topics.join(',')))
    topics.forEach(function (topic) {
      source.addEventListener(topic, function (event) {
        handlers[topic](JSON.parse(event.data))
      })
    })
    global.addEventListener('pagehide', function () {
      source.close()
    })
    return source
  }

  function count(n) {
    return Number(n).toLocaleString('en-US')
  }

  /** 2026-03-01 12:00:05 UTC */
  function isoTime(ms) {
    return new Date(ms).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC')
  }

  var logout = document.getElementById('logout')
  if (logout) {
    logout.addEventListener('click', function () {
      fetch('/console/logout', { method: 'POST', headers: { 'X-Fleetsim-Console': '1' }, credentials: 'same-origin' }).then(function () {
        location.assign('/console/login')
      })
    })
  }

  global.FleetsimConsole = { api: api, stream: stream, messageOf: messageOf, say: say, count: count, isoTime: isoTime }
})(window)
