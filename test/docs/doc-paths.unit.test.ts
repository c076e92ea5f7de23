/**
 * The files the docs name exist: every path of the repository written in backquotes
 * (`src/http/fast-path.ts`, `test/fleet/step.unit.test.ts`) and every relative link, in the
 * README and the docs a reader follows. Files get renamed (the tests became *.unit.test.ts);
 * a doc that still names the old file sends its reader nowhere.
 *
 * CHANGELOG.md is left out: it names files as they were when each change was made.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'

const DOCS = [
  'README.md',
  'bench/README.md',
  'scenarios/README.md',
  'grafana/README.md',
  ...readdirSync('docs')
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`)
]

/** A path from the repository's root, in backquotes, ending in a file's extension. */
const QUOTED_PATH = /`((?:src|test|bench|scripts|scenarios|grafana|docs|web|examples)\/[\w./-]+\.(?:ts|js|mjs|md|yaml|yml|json|png))`/g
/** A markdown link's target: `[text](target)`. */
const LINK = /\]\(([^)\s]+)\)/g

interface Named {
  doc: string
  line: number
  path: string
}

/** What `doc` names that is not there: quoted paths from the root, relative links from the doc's folder. */
function missingPaths(doc: string, text: string, exists: (path: string) => boolean): Named[] {
  const missing: Named[] = []
  const lineOf = (at: number) => text.slice(0, at).split('\n').length
  for (const match of text.matchAll(QUOTED_PATH)) {
    if (!exists(match[1])) missing.push({ doc, line: lineOf(match.index), path: match[1] })
  }
  for (const match of text.matchAll(LINK)) {
    const target = match[1].split('#')[0]
    if (target === '' || /^[a-z][a-z+.-]*:/i.test(target)) continue
    const path = join(dirname(doc), decodeURIComponent(target))
    if (!exists(path)) missing.push({ doc, line: lineOf(match.index), path })
  }
  return missing
}

describe('missingPaths', () => {
  const there = new Set(['src/a.ts', 'docs/b.md', 'README.md'])
  const exists = (path: string) => there.has(path)

  it('finds a quoted path from the root and a relative link that are not there, with their lines', () => {
    const text = ['`src/a.ts` and `src/gone.ts`', 'see [b](b.md#part), [readme](../README.md) and [old](old.md)'].join('\n')
    expect(missingPaths('docs/x.md', text, exists)).toEqual([
      { doc: 'docs/x.md', line: 1, path: 'src/gone.ts' },
      { doc: 'docs/x.md', line: 2, path: 'docs/old.md' }
    ])
  })

  it('leaves out web addresses, anchors within the page and words that are not paths', () => {
    const text = '[site](https://example.org/a.md) [here](#section) [mail](mailto:a@b.c) `npm test` `fleetsim serve`'
    expect(missingPaths('docs/x.md', text, exists)).toEqual([])
  })
})

describe('the docs', () => {
  it.each(DOCS)('%s names only files that exist', (doc) => {
    expect(missingPaths(doc, readFileSync(doc, 'utf8'), existsSync)).toEqual([])
  })
})
