/**
 * Checks of the manager-wide reads: agentmanager, appinfo (and the doubled `mvc` of links, seen
 * on its self link) and certificateinfo, which hands the CA fingerprint to the write checks.
 */
import { LOCAL_MINUTE, envelope, ensure, fields, linkPath, links, messages } from '../assert.js'
import { defineCheck } from '../check.js'

export const agentmanagerEnvelope = defineCheck({
  id: 'agentmanager-envelope',
  title: 'agentmanager: envelope with listener and connector messages and a self link',
  write: false,
  async run(context) {
    const env = envelope(await context.send('GET', 'agentmanager'), 'agentmanager')
    const texts = messages(env, 'agentmanager')
    ensure(texts.some((m) => /listener/i.test(m)), 'agentmanager: no message about the listener')
    ensure(texts.some((m) => /connector/i.test(m)), 'agentmanager: no message about the connector')
    const self = links(env.links, 'agentmanager').filter((l) => l.rel === 'self')
    ensure(self.length === 1, `agentmanager: expected one self link, got ${self.length}`)
  }
})

export const appinfoRecord = defineCheck({
  id: 'appinfo-record',
  title: 'appinfo: one manager info item with typed fields',
  write: false,
  async run(context) {
    const env = envelope(await context.send('GET', 'appinfo'), 'appinfo')
    ensure(Array.isArray(env.values) && env.values.length === 1, 'appinfo: expected exactly one values item')
    fields(env.values[0], { mgrUptime: 'integer', licenseState: 'string', licenseExpireDate: 'integer', appVersion: 'string', appRevisionNumber: 'string' }, 'appinfo item')
  }
})

export const linksDoubleMvc = defineCheck({
  id: 'links-double-mvc',
  title: 'links have the form {base_url}/mvc/restservice/... (mvc twice)',
  write: false,
  async run(context) {
    const env = envelope(await context.send('GET', 'appinfo.json'), 'appinfo')
    const [self] = links(env.links, 'appinfo').filter((l) => l.rel === 'self')
    ensure(self !== undefined, 'appinfo: no self link')
    ensure(linkPath(context, self.href, 'appinfo self link').startsWith('appinfo'), `appinfo: self link ${self.href} does not name appinfo`)
  }
})

export const certificateinfo = defineCheck({
  id: 'certificateinfo',
  title: 'certificateinfo: certificates with status, dates and fingerprint; the CA is among them',
  write: false,
  provides: ['caFingerprint'],
  async run(context) {
    const env = envelope(await context.send('GET', 'certificateinfo.json'), 'certificateinfo')
    ensure(Array.isArray(env.values) && env.values.length > 0, 'certificateinfo: no certificates')
    const certificates = env.values.map((item) => {
      const cert = fields(item, { name: 'string', status: 'string', activation: 'string', expiration: 'string', fingerprint: 'string' }, 'certificate')
      ensure(['VALID', 'REVOKED', 'EXPIRED'].includes(String(cert.status)), `certificate ${String(cert.name)}: status ${JSON.stringify(cert.status)}`)
      ensure(LOCAL_MINUTE.test(String(cert.activation)) && LOCAL_MINUTE.test(String(cert.expiration)), `certificate ${String(cert.name)}: dates are not YYYY-MM-DD HH:MM`)
      return cert
    })
    const ca = certificates.find((c) => c.type === 'CA' || c['use-as-default-ca'] === true)
    ensure(ca !== undefined, 'certificateinfo: no CA certificate (type CA or use-as-default-ca)')
    context.learn('caFingerprint', String(ca.fingerprint))
  }
})
