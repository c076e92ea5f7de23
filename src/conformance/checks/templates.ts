/** Checks of templates: creating and changing them (which hands them on), and assigning them to an agent. */
import { ensure, envelope, linkPath, links, messages, nameInLink, q } from '../assert.js'
import { defineCheck } from '../check.js'
import { createdName, globalConfig } from './created.js'

interface Step {
  method: string
  path: string
  operation: string
  body: unknown
  /** the name the self link must carry */
  name: string
}

export const templates = defineCheck({
  id: 'templates',
  title: 'addmastertemplate, addsubtemplate, modifymastertemplate: one message and a self link each',
  write: true,
  needs: ['caFingerprint'],
  provides: ['templates'],
  async run(context, { caFingerprint }) {
    const master = createdName(context, 'master')
    const sub = createdName(context, 'sub')
    const config = globalConfig(caFingerprint)
    const steps: Step[] = [
      { method: 'POST', path: 'addmastertemplate', operation: 'addmastertemplate', body: { name: master, description: 'conformance', 'global-config': config }, name: master },
      { method: 'POST', path: 'addsubtemplate', operation: 'addsubtemplate', body: { name: sub, 'global-config': { verbatim: '# conformance' } }, name: sub },
      {
        method: 'PUT',
        path: `modifymastertemplate?masterTemplateName=${q(master)}`,
        operation: 'modifymastertemplate',
        body: { name: master, description: 'conformance 2', 'global-config': config },
        name: master
      }
    ]
    for (const { method, path, operation, body, name } of steps) {
      const env = envelope(await context.send(method, path, { body }), operation)
      ensure(messages(env, operation).length === 1, `${operation}: expected one message`)
      const [self] = links(env.links, operation)
      ensure(self !== undefined && nameInLink(self) === name, `${operation}: self link ${self?.href} does not name ${name}`)
      linkPath(context, self.href, `${operation} self link`)
    }
    context.learn('templates', { master, sub })
  }
})

export const assigntemplatetoagent = defineCheck({
  id: 'assigntemplatetoagent',
  title: 'assigntemplatetoagent: messages per agent and a self link viewagentortemplate/<agent> per agent',
  write: true,
  needs: ['agentA', 'templates'],
  async run(context, { agentA, templates: { master, sub } }) {
    const env = envelope(
      await context.send('POST', `assigntemplatetoagent?agentUuids=${q(agentA.uuid)}&templateName=${q(master)}&subTemplateNames=${q(sub)}`),
      'assigntemplatetoagent'
    )
    ensure(messages(env, 'assigntemplatetoagent').length >= 1, 'assigntemplatetoagent: no messages')
    const all = links(env.links, 'assigntemplatetoagent')
    ensure(all.length === 1, `assigntemplatetoagent: expected one link per agent, got ${all.length}`)
    const path = linkPath(context, all[0].href, 'assigntemplatetoagent link')
    ensure(path === `viewagentortemplate/${agentA.name}`, `assigntemplatetoagent: link ${all[0].href} is not viewagentortemplate/${agentA.name}`)
  }
})
