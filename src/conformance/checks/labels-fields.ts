/** Checks of the manager-wide writes that need no template: custom labels and manager fields. */
import { ensure, envelope, fields, links, noLinks, q } from '../assert.js'
import { defineCheck } from '../check.js'
import { createdName } from './created.js'

export const labels = defineCheck({
  id: 'labels',
  title: 'setcustomlabel and removecustomlabel: servicename and links only',
  write: true,
  needs: ['agentA'],
  async run(context, { agentA }) {
    const label = createdName(context, 'label')
    const set = envelope(await context.send('POST', `setcustomlabel?agentUuids=${q(agentA.uuid)}`, { body: { name: label, value: 'x' } }), 'setcustomlabel')
    ensure(set.values === undefined, 'setcustomlabel: the answer has values, the spec shows servicename and links only')
    ensure(links(set.links, 'setcustomlabel').length > 0, 'setcustomlabel: no links')
    const removed = envelope(await context.send('POST', `removecustomlabel?labelNames=${q(label)}`), 'removecustomlabel')
    ensure(removed.values === undefined, 'removecustomlabel: the answer has values, the spec shows servicename and links only')
    ensure(links(removed.links, 'removecustomlabel').length > 0, 'removecustomlabel: no links')
  }
})

export const createfield = defineCheck({
  id: 'createfield',
  title: 'createfield: the field with assigned ids, no links',
  write: true,
  async run(context) {
    // Field names are identifiers: underscores, not dashes.
    const name = `fleetsim_conformance_${context.unique}`
    const env = envelope(
      await context.send('POST', 'createfield', { body: { name, type: 'STRING', fieldDescription: { description: 'conformance' }, persist: false, lookup: false } }),
      'createfield'
    )
    ensure(Array.isArray(env.values) && env.values.length === 1, 'createfield: expected one values item')
    const field = fields(env.values[0], { name: 'string', type: 'string', id: 'integer', fieldDescription: 'object', persist: 'boolean', lookup: 'boolean' }, 'field')
    fields(field.fieldDescription, { description: 'string', id: 'integer' }, 'fieldDescription')
    noLinks(env, 'createfield')
  }
})
