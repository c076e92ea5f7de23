/** Checks of content negotiation: the `.json` and `.xml` suffixes and the accept header. */
import { XML_AGENTMANAGER_ROOT, ensure, isObject, status } from '../assert.js'
import { defineCheck } from '../check.js'

export const suffixJson = defineCheck({
  id: 'suffix-json',
  title: 'the .json suffix answers JSON without an accept header',
  write: false,
  async run(context) {
    const answer = await context.send('GET', 'agentmanager.json', { accept: null })
    status(answer, 200, 'agentmanager.json')
    ensure(/json/i.test(String(answer.headers['content-type'])), `agentmanager.json: Content-Type is ${answer.headers['content-type']}`)
    ensure(isObject(answer.json) && answer.json.servicename === 'agentmanager', 'agentmanager.json: the body is not the JSON envelope')
  }
})

export const xmlRoot = defineCheck({
  id: 'xml-root',
  title: 'the .xml suffix answers XML with root <result servicename="...">',
  write: false,
  async run(context) {
    const answer = await context.send('GET', 'agentmanager.xml', { accept: null })
    status(answer, 200, 'agentmanager.xml')
    ensure(/xml/i.test(String(answer.headers['content-type'])), `agentmanager.xml: Content-Type is ${answer.headers['content-type']}`)
    ensure(XML_AGENTMANAGER_ROOT.test(answer.body), `agentmanager.xml: root is not <result servicename="agentmanager">: ${answer.body.slice(0, 120)}`)
  }
})

export const acceptXml = defineCheck({
  id: 'accept-xml',
  title: 'accept: application/xml without a suffix answers XML',
  write: false,
  async run(context) {
    const answer = await context.send('GET', 'agentmanager', { accept: 'application/xml' })
    status(answer, 200, 'agentmanager (accept XML)')
    ensure(XML_AGENTMANAGER_ROOT.test(answer.body), `agentmanager with accept XML: not an XML result: ${answer.body.slice(0, 120)}`)
  }
})
