/**
 * A check reads only the facts it declares in `needs`, and learns only those it declares in
 * `provides`. Checked by `npm run typecheck` (part of `npm test`), not by vitest: every
 * `@ts-expect-error` below must meet an error on the line it precedes.
 */
import { defineCheck } from '../../src/conformance/check.js'

export const readsWhatItNeeds = defineCheck({
  id: 'example',
  title: 'reads an agent it needs',
  write: false,
  needs: ['agents'],
  async run(_context, facts) {
    const [first] = facts.agents
    void first.name
    // @ts-expect-error the CA fingerprint is not among its needs
    void facts.caFingerprint
  }
})

export const learnsWhatItProvides = defineCheck({
  id: 'example',
  title: 'learns the CA fingerprint it provides',
  write: false,
  provides: ['caFingerprint'],
  async run(context) {
    context.learn('caFingerprint', 'AB:CD')
    // @ts-expect-error the templates are not among what it provides
    context.learn('templates', { master: 'm', sub: 's' })
    // @ts-expect-error a fact has its own type
    context.learn('caFingerprint', 42)
  }
})
