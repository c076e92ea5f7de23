import { describe, expect, it } from 'vitest'
import { inlineScript, scriptJson } from '../../src/run/markup.js'
import { EVENT_ROWS, renderIndexHtml, type ChartAssets } from '../../src/run/report-html.js'
import { chartAssets } from '../../src/run/report.js'
import { runResult } from './run-result.fixture.js'

const ASSETS: ChartAssets = { uplotScript: '/*uplot*/', uplotStyle: '/*uplot css*/', chartScript: '/*chart*/', chartStyle: '/*chart css*/' }
const CONTEXT = { command: 'fleetsim run x.yaml --duration 1h --sample 20m --start-time 2026-01-01T00:00:00.000Z --out out/' }
const HOSTILE = '<script>window.pwned=1</script>'

describe("the run report's index.html", () => {
  it('escapes a scenario named <script> and its description, events and file name everywhere', () => {
    const result = runResult({
      scenario: { name: HOSTILE, description: `"><img src=x onerror=alert(1)>`, source: 'x.yaml', seed: 1 },
      events: [{ second: 600, name: '</script><script>window.pwned=2</script>', action: 'offline' }]
    })
    const html = renderIndexHtml(result, ASSETS, { command: `fleetsim run '${HOSTILE}.yaml' --out out/` })
    expect(html).not.toContain('window.pwned=1</script>')
    expect(html).not.toContain('<script>window.pwned')
    expect(html).not.toContain('<img')
    expect(html).toContain('<h1>&#60;script&#62;window.pwned=1&#60;/script&#62;</h1>')
    // Exactly the page's own scripts: uPlot, the chart, the chart's data and the call drawing it.
    expect(html.match(/<script/g)).toHaveLength(4)
    expect(html).toContain('\\u003c/script>\\u003cscript>window.pwned=2')
  })

  it('puts the final counts, transitions, crashes, lockout and digest in marked cells that match summary.json', () => {
    const html = renderIndexHtml(runResult(), ASSETS, CONTEXT)
    expect(html).toContain('<td data-summary="final.OFFLINE">100</td>')
    expect(html).toContain('<span data-summary="transitions.total">120</span>')
    expect(html).toContain('<b data-summary="moduleCrashes">0</b>')
    expect(html).toContain(`<code data-summary="digest">${'ab'.repeat(32)}</code>`)
    expect(html).toContain('Manager lockout since 2026-01-01T00:30:00.000Z, still on at the end')
  })

  it('lists the events at their absolute virtual times, and the command that reproduces the run', () => {
    const html = renderIndexHtml(runResult(), ASSETS, { ...CONTEXT, durationNote: 'fitted <to> the scenario' })
    expect(html).toContain('<time datetime="2026-01-01T00:10:00.000Z">2026-01-01T00:10:00.000Z</time></td><td>+10m</td><td class="text">outage</td>')
    expect(html).toContain(`<pre><code>${CONTEXT.command}</code></pre>`)
    expect(html).toContain('(fitted &#60;to&#62; the scenario)')
  })

  it('leaves events beyond the first 500 to events.json', () => {
    const events = Array.from({ length: EVENT_ROWS + 2 }, (_, k) => ({ second: k, name: 'tick', action: 'offline' }))
    const html = renderIndexHtml(runResult({ events }), ASSETS, CONTEXT)
    expect(html.match(/<time /g)).toHaveLength(EVENT_ROWS)
    expect(html).toContain('2 more events in events.json.')
  })

  it('brings everything it needs: the real uPlot and fleet chart inlined, a policy that forbids every fetch', async () => {
    const assets = await chartAssets()
    const html = renderIndexHtml(runResult(), assets, CONTEXT)
    expect(html).toContain(inlineScript(assets.uplotScript))
    expect(html).toContain('FleetChart.create')
    expect(html).toContain(`content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'"`)
    expect(html).not.toMatch(/<(script|link|img)[^>]+(src|href)=/)
  })
})

describe('markup for the report', () => {
  it('writes JSON that cannot end a script element, and reads back the same', () => {
    const value = { name: '</script><!-- \u2028' }
    const text = scriptJson(value)
    expect(text).not.toMatch(/<|\u2028/)
    expect(JSON.parse(text)).toEqual(value)
  })

  it('inlines a script whose text holds </script> without ending the element', () => {
    expect(inlineScript('var s = "</script>"; var t = "</SCRIPT>"')).toBe('var s = "<\\/script>"; var t = "<\\/SCRIPT>"')
  })
})
