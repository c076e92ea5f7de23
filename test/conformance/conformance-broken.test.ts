/**
 * Each conformance check is shown to catch what it checks: a server that breaks one answer
 * (an onSend hook flips one field of one request's answer) fails exactly that check.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CHECKS } from '../../src/conformance/checks.js'
import { formatTable } from '../../src/conformance/output.js'
import { runSuite } from '../../src/conformance/suite.js'
import type { Transport } from '../../src/conformance/http-client.js'
import { harness, type Harness } from '../http/helpers.js'

type Json = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any
type Mutation = (request: FastifyRequest, reply: FastifyReply, payload: string) => string | undefined

const path = (request: FastifyRequest) => request.url.split('?')[0]
const ends = (request: FastifyRequest, name: string) => path(request).endsWith(`/restservice/${name}`)
const edit = (payload: string, change: (body: Json) => void): string => {
  const body = JSON.parse(payload) as Json
  change(body)
  return JSON.stringify(body)
}

/** One answer broken per check; a mutation returns undefined for answers it leaves alone. */
const BREAKS: Record<string, Mutation> = {
  'auth-rejected': (req, reply, p) => (ends(req, 'appinfo.json') && reply.statusCode === 401 ? (reply.code(200), p) : undefined),
  'agentmanager-envelope': (req, _r, p) => (ends(req, 'agentmanager') && req.headers.accept === 'application/json' ? edit(p, (b) => (b.values = b.values.slice(0, 1))) : undefined),
  'appinfo-record': (req, _r, p) => (ends(req, 'appinfo') ? edit(p, (b) => (b.values[0].mgrUptime = String(b.values[0].mgrUptime))) : undefined),
  'links-double-mvc': (req, reply, p) => (ends(req, 'appinfo.json') && reply.statusCode === 200 ? edit(p, (b) => (b.links[0].href = b.links[0].href.replace('/mvc/mvc/', '/mvc/'))) : undefined),
  'suffix-json': (req, reply, p) => (ends(req, 'agentmanager.json') ? (reply.header('content-type', 'text/plain'), p) : undefined),
  'xml-root': (req, _r, p) => (ends(req, 'agentmanager.xml') ? p.replace('<result servicename="agentmanager">', '<result>') : undefined),
  'accept-xml': (req, _r, p) => (ends(req, 'agentmanager') && req.headers.accept === 'application/xml' ? p.replace(/<result /, '<answer ') : undefined),
  'agentinfo-envelope': (req, _r, p) =>
    ends(req, 'agentinfo') && req.url.includes('agentstate=FORGED') ? edit(p, (b) => (b.values[0].links = b.values[0].links.slice(0, 1))) : undefined,
  'agentinfo-record-fields': (req, _r, p) =>
    ends(req, 'agentinfo.json') && req.url.includes('%2C') === false && req.url.includes(',') ? edit(p, (b) => (b.values[0].content.load = 1.5)) : undefined,
  'agentinfo-modules': (req, _r, p) => (req.url.includes('agentwithmodules=true') ? edit(p, (b) => (b.values[0].content.modules[0]['module-type'] = '1')) : undefined),
  'agentinfo-state-filter': (req, reply, p) =>
    ends(req, 'agentinfo.json') && req.url.includes('agentstate=') && reply.statusCode === 200 ? edit(p, (b) => (b.values.at(-1).content.status = b.values[0].content.status === 'ERROR' ? 'ONLINE' : 'ERROR')) : undefined,
  'error-envelope': (req) => (req.url.includes('NOT_A_STATE') ? JSON.stringify({ servicename: 'agentinfo', error: 'bad' }) : undefined),
  certificateinfo: (req, _r, p) => (ends(req, 'certificateinfo.json') ? edit(p, (b) => (b.values.at(-1).status = 'OK')) : undefined),
  addagent: (req, _r, p) =>
    ends(req, 'addagent') && String((req.body as Json | undefined)?.name).endsWith('-a') ? edit(p, (b) => (b.links[0].href = b.links[0].href.replace('viewagentortemplate', 'viewagent'))) : undefined,
  modifyagent: (req, _r, p) => (ends(req, 'modifyagent') ? edit(p, (b) => (b.values = [])) : undefined),
  templates: (req, _r, p) => (ends(req, 'addsubtemplate') ? edit(p, (b) => (b.links = [])) : undefined),
  assigntemplatetoagent: (req, _r, p) =>
    ends(req, 'assigntemplatetoagent') ? edit(p, (b) => (b.links[0].href = b.links[0].href.replace('/viewagentortemplate/', '/viewagentortemplate?name='))) : undefined,
  labels: (req, _r, p) => (ends(req, 'setcustomlabel') ? edit(p, (b) => (b.values = [{ message: 'label set' }])) : undefined),
  'stop-start': (req, _r, p) => (ends(req, 'startagent') ? edit(p, (b) => (b.links = [])) : undefined),
  'deleteagent-warning': (req, reply, p) =>
    ends(req, 'deleteagent') && reply.statusCode === 200 ? edit(p, (b) => (b.links = [{ rel: 'self', href: 'http://localhost:80/manager/mvc/mvc/restservice/deleteagent' }])) : undefined,
  'deleteagent-204': (req, reply) => (ends(req, 'deleteagent') && reply.statusCode === 204 ? (reply.code(200), JSON.stringify({ servicename: 'deleteagent' })) : undefined),
  createfield: (req, _r, p) => (ends(req, 'createfield') ? edit(p, (b) => (b.values[0].id = String(b.values[0].id))) : undefined)
}

describe('each conformance check against a server that breaks its answer', () => {
  let h: Harness
  let broken: Mutation | undefined
  let transport: Transport

  beforeAll(async () => {
    h = await harness(30, {}, {
      extend: (app) =>
        app.addHook('onSend', async (request, reply, payload) => {
          if (broken === undefined || (typeof payload !== 'string' && payload !== undefined && payload !== null && payload !== '')) return payload
          return broken(request, reply, typeof payload === 'string' ? payload : '') ?? payload
        })
    })
    transport = async ({ method, url, headers, body }) => {
      const { pathname, search } = new URL(url)
      const answer = await h.app.inject({ method: method as 'GET', url: pathname + search, ...(headers === undefined ? {} : { headers }), ...(body === undefined ? {} : { payload: body }) })
      return { status: answer.statusCode, headers: answer.headers as Record<string, string | string[] | undefined>, body: answer.body }
    }
  })
  afterAll(() => h.close())

  const suite = () => runSuite({ target: 'http://localhost:80/manager/mvc', user: 'admin', password: 'secret', transport })

  it('breaks one answer per check, for every check', () => {
    expect(Object.keys(BREAKS).sort()).toEqual(CHECKS.map((c) => c.id).sort())
  })

  it('passes every check while nothing is broken', async () => {
    broken = undefined
    const results = await suite()
    expect(results.filter((r) => r.status !== 'pass'), formatTable(results)).toEqual([])
  })

  it('checks the agent records of a manager whose agentinfo links are wrong, where it skipped them', async () => {
    broken = (req, _r, p) => (ends(req, 'agentinfo') || ends(req, 'agentinfo.json') ? edit(p, (b) => b.values?.forEach((v: Json) => (v.links = v.links.slice(0, 1)))) : undefined)
    try {
      const results = await suite()
      const envelopeCheck = results.find((r) => r.id === 'agentinfo-envelope')
      expect(envelopeCheck?.status).toBe('fail')
      expect(envelopeCheck?.message).toContain('links are self, without all_agents_with_modules, online_agents_with_modules (each item has all_agents_with_modules, online_agents_with_modules, self)')
      expect(results.find((r) => r.id === 'agentinfo-record-fields')?.status, formatTable(results)).toBe('pass')
    } finally {
      broken = undefined
    }
  })

  for (const check of CHECKS) {
    it(`fails only ${check.id} when its answer is broken`, async () => {
      broken = BREAKS[check.id]
      try {
        const results = await suite()
        expect(results.filter((r) => r.status === 'fail').map((r) => r.id), formatTable(results)).toEqual([check.id])
      } finally {
        broken = undefined
      }
    })
  }
})
