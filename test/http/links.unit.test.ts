import { describe, expect, it } from 'vitest'
import { asUriText, Links, selfLink } from '../../src/http/links.js'

/** RFC 3986's path-abempty [ "?" query ]: pchar, `/` and `?` only, each `%` starting an escape. */
const URI_PATH_AND_QUERY = /^(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9A-Fa-f]{2})*$/

describe('a self link of a request target', () => {
  const base = new Links('/manager/mvc').baseOf('http', '127.0.0.1:9080')

  it('is the target as it came when a URI may hold it, escapes included', () => {
    const url = "/manager/mvc/restservice/agentinfo?agentname=a%20b&x=(1)*!$';:@~_.-+,=/?"
    expect(selfLink(base, { url }).href).toBe("http://127.0.0.1:9080/manager/mvc/mvc/restservice/agentinfo?agentname=a%20b&x=(1)*!$';:@~_.-+,=/?")
  })

  it('escapes each character a URI may not hold, so a strict URI parser takes the link', () => {
    const url = '/manager/mvc/restservice/agentinfo?agentname=a"<>\\^`{|}[]# %zz%2%'
    const href = selfLink(base, { url }).href
    expect(href).toBe('http://127.0.0.1:9080/manager/mvc/mvc/restservice/agentinfo?agentname=a%22%3C%3E%5C%5E%60%7B%7C%7D%5B%5D%23%20%25zz%252%25')
    expect(href.slice('http://127.0.0.1:9080'.length)).toMatch(URI_PATH_AND_QUERY)
  })

  it('writes the bytes of a target past ASCII (read one character a byte) as their escapes, which decode to the UTF-8 sent', () => {
    const sent = Buffer.from('/agentinfo?agentname=café', 'utf8').toString('latin1')
    const escaped = asUriText(sent)
    expect(escaped).toBe('/agentinfo?agentname=caf%C3%A9')
    expect(decodeURIComponent(escaped)).toBe('/agentinfo?agentname=café')
    expect(asUriText('\u0001\u007f')).toBe('%01%7F')
  })
})
