/** Checks of refusals: credentials, and the error envelope of a bad parameter. */
import { ensure, fields, isObject } from '../assert.js'
import { defineCheck } from '../check.js'

export const authRejected = defineCheck({
  id: 'auth-rejected',
  title: 'requests without or with wrong credentials are refused (401/403)',
  write: false,
  async run(context) {
    const none = await context.send('GET', 'appinfo.json', { auth: false })
    ensure(none.status === 401 || none.status === 403, `without credentials: expected 401 or 403, got ${none.status}`)
    const wrong = await context.send('GET', 'appinfo.json', { auth: 'wrong' })
    ensure(wrong.status === 401 || wrong.status === 403, `with a wrong password: expected 401 or 403, got ${wrong.status}`)
  }
})

export const errorEnvelope = defineCheck({
  id: 'error-envelope',
  title: 'a bad parameter gets a 4xx with an errors envelope (status, message)',
  write: false,
  async run(context) {
    const answer = await context.send('GET', 'agentinfo.json?agentstate=NOT_A_STATE')
    ensure(answer.status >= 400 && answer.status < 500, `agentinfo?agentstate=NOT_A_STATE: expected a 4xx, got ${answer.status}`)
    ensure(isObject(answer.json) && Array.isArray(answer.json.errors) && answer.json.errors.length > 0, 'error answer: no errors array')
    for (const error of answer.json.errors) fields(error, { status: 'integer', message: 'string' }, 'error item')
  }
})
