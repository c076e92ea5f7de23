/*
 * The Agents page works as plain HTML (a GET form and paging links, answered by the server);
 * this script only saves a click: choosing a state, OS or template filters at once.
 */
;(function () {
  'use strict'
  var form = document.getElementById('filter')
  if (!form) return
  form.querySelectorAll('select').forEach(function (select) {
    select.addEventListener('change', function () {
      form.requestSubmit()
    })
  })
})()
