import { describe, expect, it } from 'vitest'
import { forParser, parseXmlBody } from '../../src/http/xml-reader.js'
import { xmlDocument, xmlElement } from '../../src/http/xml-writer.js'

/** Asserts that a body is refused with `code`, its message saying `says`. */
const refusedAs = (code: string) => (body: string, says: string) =>
  expect(() => parseXmlBody(body)).toThrow(expect.objectContaining({ code, message: expect.stringContaining(says) }))

describe('XML responses', () => {
  it('puts the servicename on the result root', () => {
    expect(xmlDocument({ servicename: 'appinfo' })).toBe('<?xml version="1.0" encoding="UTF-8"?><result servicename="appinfo"></result>')
  })

  it('writes arrays as repeated elements named after the key', () => {
    expect(xmlElement('links', [{ rel: 'a' }, { rel: 'b' }])).toBe('<links><rel>a</rel></links><links><rel>b</rel></links>')
  })

  it('writes keys that are not XML names as field elements with a name attribute', () => {
    expect(xmlElement('content', { 'the service': 'x:1' })).toBe('<content><field name="the service">x:1</field></content>')
  })

  it('escapes markup characters in text', () => {
    expect(xmlElement('m', 'a<b & "c"')).toBe('<m>a&lt;b &amp; &quot;c&quot;</m>')
  })

  it('writes an empty object as an empty element and leaves out null values', () => {
    expect(xmlElement('o', { serverInfo: {}, gone: null })).toBe('<o><serverInfo/></o>')
  })
})

describe('XML request bodies', () => {
  it('reads the root element as the body object and child elements as keys', () => {
    expect(parseXmlBody('<agent><name>a</name><global-config><port>1</port></global-config></agent>')).toEqual({
      name: 'a',
      'global-config': { port: '1' }
    })
  })

  it('maps field elements back to their named keys', () => {
    expect(parseXmlBody('<x><field name="the service">s</field></x>')).toEqual({ 'the service': 's' })
  })

  it('decodes the predefined entities and character references', () => {
    expect(parseXmlBody('<x><v>a &amp; b &#65;&#x42;</v></x>')).toEqual({ v: 'a & b AB' })
  })

  it('refuses an entity no DTD declares, naming it (it was kept as text)', () => {
    expect(() => parseXmlBody('<x><v>caf&eacute;</v></x>')).toThrow(expect.objectContaining({ code: 'E_MALFORMED_XML', message: expect.stringContaining('"&eacute;" is no entity XML defines') }))
    expect(() => parseXmlBody('<x><field name="a&b;c">v</field></x>')).toThrow(expect.objectContaining({ code: 'E_MALFORMED_XML' }))
  })

  it('refuses an attribute value XML does not allow, which the validator took, read or not', () => {
    const refused = refusedAs('E_MALFORMED_XML')
    refused('<agent a="<"/>', 'the value of attribute "a" holds a "<"')
    refused('<agent><name x="1 & 2">n</name></agent>', 'holds a "&" that starts no reference')
    refused('<x><field name="a<b">v</field></x>', 'write it as &lt;')
    refused('<x><field name="a&b">v</field></x>', 'write & as &amp;')
    refused('<agent a="&eacute;"/>', '"&eacute;" is no entity XML defines')
    refused('<agent><v a="&#0;">x</v><v>y</v></agent>', 'a character XML does not allow')
    expect(parseXmlBody(`<x xml:a="1 &amp; 2 &lt; 3 &#65;" xmlns:b='"'><field name="a&amp;b">v</field></x>`)).toEqual({ 'a&b': 'v' })
  })

  it('refuses an attribute that would carry a value, naming it and the element to send instead, where it was dropped', () => {
    const refused = refusedAs('E_XML_ATTRIBUTE')
    refused('<agent name="web-1"><global-config><port>1</port></global-config></agent>', 'the attribute "name" of <agent> is one; send it as a child element, <name>…</name>,')
    refused('<agent><global-config><port unit="tcp">1</port></global-config></agent>', 'the attribute "unit" of <port>')
    // A root named `field` (createfield's) is no keyed field: its `name` is a value too.
    refused('<field name="f1"><type>STRING</type></field>', 'the attribute "name" of <field>')
    refused('<x><field name="k" type="t">v</field></x>', 'the attribute "type" of <field>')
    // Namespace declarations and XML's and XML Schema's own attributes carry no value.
    const framed = '<agent xmlns="urn:a" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xml:lang="en"><name xsi:type="xs:string">web-1</name><verbatim xsi:nil="true"/></agent>'
    expect(parseXmlBody(framed)).toEqual({ name: 'web-1', verbatim: '' })
    // Judged by the namespace a prefix is bound to: .NET's DataContractSerializer writes `i:`; `xsi` bound to none is the usual one.
    expect(parseXmlBody('<agent xmlns:i="http://www.w3.org/2001/XMLSchema-instance"><name>web-1</name><verbatim i:nil="true"/></agent>')).toEqual({ name: 'web-1', verbatim: '' })
    expect(parseXmlBody('<agent><name>web-1</name><verbatim xsi:nil="true"/></agent>')).toEqual({ name: 'web-1', verbatim: '' })
    refused('<agent xmlns:xsi="urn:other"><name xsi:id="3">web-1</name></agent>', 'the attribute "xsi:id" of <name> is one; send it as a child element, <id>…</id>,')
    refused('<agent xmlns:x="urn:x"><name x:id="3">web-1</name></agent>', 'the attribute "x:id" of <name>')
  })

  it('refuses a DOCTYPE, in a comment too, but not the text of one in a CDATA section', () => {
    for (const body of ['<!DOCTYPE a [<!ENTITY x "y">]><a/>', '<!-- c --><!doctype a><a/>', '<a><![CDATA[x]]><!DOCTYPE a></a>', '<t><!-- <!doctype --><name>n</name></t>']) {
      expect(() => parseXmlBody(body), body).toThrow(expect.objectContaining({ code: 'E_XML_DOCTYPE' }))
    }
    expect(parseXmlBody('<t><verbatim><![CDATA[<!DOCTYPE html><p/>]]></verbatim><name>n</name></t>')).toEqual({ verbatim: '<!DOCTYPE html><p/>', name: 'n' })
  })

  it('reads markup in order for these checks: what a comment, CDATA section or processing instruction holds is their text', () => {
    // A processing instruction holding `<!--` or `<![CDATA[` hid the DOCTYPE after it from a check that stripped comments by pattern.
    for (const body of ['<?x <!-- ?><!DOCTYPE agent [<!ENTITY e "boom">]><!-- --><agent/>', '<?x <![CDATA[ ?><!DOCTYPE agent SYSTEM "http://127.0.0.1:1/evil.dtd"><?y ]]> ?><agent/>']) {
      expect(() => parseXmlBody(body), body).toThrow(expect.objectContaining({ code: 'E_XML_DOCTYPE' }))
    }
    // The parser ends a processing instruction at the first `?>` outside quotes, XML at the first
    // `?>`: it read the DOCTYPE below, which XML reads in a comment after `<?x "?>`. A DOCTYPE in
    // the parser's text, in a comment or not, is refused now.
    for (const body of [
      '<?x "?><!-- "?><!DOCTYPE agent SYSTEM "http://127.0.0.1:1/evil.dtd"><!-- --><agent><name>n</name></agent>',
      `<?x '?><!-- '?><!DOCTYPE agent [<!ENTITY e "boom">]><!-- --><agent><name>n</name></agent>`,
      `<?x '?><!-- '?><!doctype agent><!-- --><agent><name>n</name></agent>`
    ]) {
      expect(() => parseXmlBody(body), body).toThrow(expect.objectContaining({ code: 'E_XML_DOCTYPE' }))
    }
    // PIs are not handed to the parser, which reads a comment after one as XML does.
    expect(parseXmlBody(`<?x '?><!-- '?><other/><!-- --><agent><name>n</name></agent>`)).toEqual({ name: 'n' })
    expect(() => parseXmlBody('<?x "?><!DOCTYPE agent><agent/>')).toThrow(expect.objectContaining({ code: 'E_XML_DOCTYPE' }))
    // The check is on the text the parser is handed: a DOCTYPE in a CDATA section is escaped there, any other stays and is refused.
    expect(forParser('<a><![CDATA[<!DOCTYPE x>]]></a>')).toEqual({ text: '<a>&lt;!DOCTYPE x&gt;</a>', doctype: false })
    expect(forParser(`<?x "?><!-- "?><!DOCTYPE agent [<!ENTITY e "boom">]><!-- --><agent><name>&e;</name></agent>`).doctype).toBe(true)
    expect(parseXmlBody(`<?app don't?><agent><?p it's?><name>n</name></agent><?x say "hi?>`)).toEqual({ name: 'n' })
    expect(parseXmlBody('<agent><name><?p "?>abc"?></name></agent>')).toEqual({ name: 'abc"?>' })
    expect(parseXmlBody('<agent><?p "?><name>n</name><?q "?></agent>')).toEqual({ name: 'n' })
    // Other `<!` markup belongs in a DTD: the parser read `<![X[` as CDATA to `]]>` and `<!X` as an
    // element, past where this walk ended them, into a "comment" holding a DOCTYPE and elements.
    for (const body of [
      '<agent><![X[ ><!-- ]]><!DOCTYPE agent SYSTEM "http://127.0.0.1:1/evil.dtd"><name>smuggled</name> --></agent>',
      `<agent><!X '><!-- '><!DOCTYPE agent [<!ENTITY e "boom">]><name>smuggled</name>--></agent>`,
      '<agent><![IGNORE[ x ]]><name>n</name></agent>',
      '<agent><!ELEMENT agent ANY><name>n</name></agent>',
      `<a>${'<!X>'.repeat(200)}</a>`
    ]) {
      expect(forParser(body).declaration, body).toBeDefined()
      // The two holding a DOCTYPE are refused for it first.
      expect(() => parseXmlBody(body), body).toThrow(expect.objectContaining({ code: body.includes('<!DOCTYPE') ? 'E_XML_DOCTYPE' : 'E_MALFORMED_XML' }))
    }
    expect(() => parseXmlBody('<agent><![IGNORE[ x ]]></agent>')).toThrow(expect.objectContaining({ message: expect.stringContaining('"<![IGNORE[ x ]]>" is markup XML allows only in a DTD') }))
    // A closing tag ends at its first `>` for the parser; one holding quotes hid what followed from these checks.
    for (const body of [
      `<agent><w></q a='><!DOCTYPE agent [<!ENTITY e "boom">]><name>&e;</name>'/></w></agent>`,
      `<agent><w></q a='><!DOCTYPE agent SYSTEM "http://127.0.0.1:1/evil.dtd"><name>n</name>'/></w></agent>`,
      `<agent><w></q a='><z "'/><!-- "/><name>smug</name>--></w></agent>`,
      `<r><w></q a='>${'<a>'.repeat(100)}'/></w></r>`
    ]) {
      expect(() => parseXmlBody(body), body).toThrow(expect.objectContaining({ code: expect.stringMatching(/^E_(XML_DOCTYPE|MALFORMED_XML|BODY_TOO_DEEP)$/) }))
      expect(forParser(body).doctype === true || forParser(body).closing !== undefined || forParser(body).declaration !== undefined, body).toBe(true)
    }
    expect(parseXmlBody('<agent><name>n</name ><w>x</w\n></agent>')).toEqual({ name: 'n', w: 'x' })
    // Past markup never closed, any DOCTYPE counts.
    expect(() => parseXmlBody('<agent><!-- x <!DOCTYPE a>')).toThrow(expect.objectContaining({ code: 'E_XML_DOCTYPE' }))
    // `<!-->` opens a comment that runs to the next `-->`: the elements in it are its text.
    expect(() => parseXmlBody(`<agent><!-->${'<a>'.repeat(70)}--><name>n</name></agent>`)).not.toThrow()
    expect(() => parseXmlBody(`<r><!-->${'</a>'.repeat(80)}-->${'<a>'.repeat(80)}x${'</a>'.repeat(80)}</r>`)).toThrow(expect.objectContaining({ code: 'E_BODY_TOO_DEEP' }))
    // A CDATA section in a quoted attribute value is that value's text, `<` and all.
    expect(() => parseXmlBody('<agent a="<![CDATA[x]]>"><name>n</name></agent>')).toThrow(expect.objectContaining({ code: 'E_MALFORMED_XML', message: expect.stringContaining('attribute "a" holds a "<"') }))
    // A quote in a CDATA section opens no attribute value: the element after it is read.
    expect(parseXmlBody('<a><v><![CDATA[<b a="]]></v><w>x</w></a>')).toEqual({ v: '<b a="', w: 'x' })
  })

  it('refuses "]]>" in text, where XML allows it only as the end of a CDATA section', () => {
    const refused = { code: 'E_MALFORMED_XML', message: expect.stringContaining('text holds "]]>", which may only end a CDATA section: write "]]&gt;"') }
    for (const body of ['<agent><name>a]]>b</name></agent>', '<agent><name><![CDATA[x]]>]]></name></agent>', '<agent><!-- ]]> --><name>]]></name></agent>', ']]><agent/>']) {
      expect(() => parseXmlBody(body), body).toThrow(expect.objectContaining(refused))
    }
    // Where XML allows it: a CDATA section's end, a comment, an attribute value, and escaped in text.
    expect(parseXmlBody('<agent xml:a="]]>"><!-- ]]> --><name><![CDATA[x]]]]><![CDATA[>]]>]]&gt;</name><v>]] ></v></agent>')).toEqual({ name: 'x]]>]]>', v: ']] >' })
  })

  it('reads a body of many comments or sections never closed in one pass (a pattern over them took two minutes at 1 MiB)', () => {
    // A guard against a return of that pass, not a timing target: linear, these take milliseconds.
    for (const opener of ['<!--', '<![CDATA[', '<?', '<a b="']) {
      const body = `<!DOCTYPE${opener.repeat(Math.floor((1024 * 1024) / opener.length))}`
      const started = performance.now()
      expect(() => parseXmlBody(body)).toThrow()
      expect(performance.now() - started, opener).toBeLessThan(5000)
    }
  })

  it('refuses a character reference to a character XML does not allow', () => {
    for (const reference of ['&#0;', '&#x1F;', '&#xD800;', '&#xFFFF;', '&#x110000;']) {
      expect(() => parseXmlBody(`<x><v>${reference}</v></x>`)).toThrow(expect.objectContaining({ code: 'E_MALFORMED_XML', message: expect.stringContaining('a character XML does not allow') }))
    }
    expect(parseXmlBody('<x><v>&#9;&#x1F600;&#xFFFD;</v></x>')).toEqual({ v: '\t\u{1F600}\uFFFD' })
  })

  it('refuses an element with a namespace prefix, naming it, where it read as a body without the field', () => {
    expect(() => parseXmlBody('<ns0:agent xmlns:ns0="urn:x"><ns0:name>web-1</ns0:name></ns0:agent>')).toThrow(
      expect.objectContaining({ code: 'E_XML_NAMESPACE', message: expect.stringContaining('"<ns0:name>" is one; send the elements without a prefix ("<name>")') })
    )
    expect(() => parseXmlBody('<agent><global-config><x:port>1</x:port></global-config></agent>')).toThrow(expect.objectContaining({ code: 'E_XML_NAMESPACE' }))
    // A namespace on the root, declared or as its prefix, leaves the elements as they are.
    expect(parseXmlBody('<agent xmlns="urn:x"><name>web-1</name></agent>')).toEqual({ name: 'web-1' })
    expect(parseXmlBody('<ns0:agent xmlns:ns0="urn:x"><name>web-1</name></ns0:agent>')).toEqual({ name: 'web-1' })
  })

  it('refuses a DOCTYPE declaration', () => {
    const bomb = '<!DOCTYPE x [<!ENTITY a "aaaa">]><x><v>&a;</v></x>'
    expect(() => parseXmlBody(bomb)).toThrow(expect.objectContaining({ code: 'E_XML_DOCTYPE' }))
  })

  it('refuses malformed XML', () => {
    expect(() => parseXmlBody('<x><v></x>')).toThrow(expect.objectContaining({ code: 'E_MALFORMED_XML' }))
  })

  it('names the elements left open, the first few, where the validator listed every one', () => {
    expect(() => parseXmlBody('<agent><name><![CDATA[abc</name></agent>')).toThrow(
      expect.objectContaining({ code: 'E_MALFORMED_XML', message: expect.stringContaining('elements <agent>, <name> never closed (a CDATA section or a comment left open') })
    )
    // Left open under the depth an XML body may nest (deeper is E_BODY_TOO_DEEP, below).
    const many = `<${'b'.repeat(10_000)}>`.repeat(60)
    let message = ''
    try {
      parseXmlBody(many)
    } catch (error) {
      message = (error as Error).message
    }
    expect(message).toContain(`<${'b'.repeat(64)}…> and 57 more never closed`)
    expect(message.length).toBeLessThan(600)
  })

  it('refuses elements nested deeper than a JSON body may nest arrays and objects, before parsing', () => {
    const nested = (depth: number) => `${'<a>'.repeat(depth)}x${'</a>'.repeat(depth)}`
    expect(parseXmlBody(nested(64))).toEqual({ a: expect.anything() })
    // The validator's own limit (100 nested tags) said "not well-formed" of a well-formed body.
    for (const depth of [65, 101, 100_000]) {
      expect(() => parseXmlBody(nested(depth))).toThrow(
        expect.objectContaining({ code: 'E_BODY_TOO_DEEP', message: expect.stringContaining('nests elements more than 64 deep (the 65th opens at character 193)') })
      )
    }
    // Self-closed elements, comments, CDATA and processing instructions open nothing; a `>` in a quoted value ends no tag.
    const flat = `<a>${'<b/><!-- <c> --><![CDATA[<d>]]><?pi <e>?><f xml:g=">"/>'.repeat(200)}${'<h>'.repeat(63)}${'</h>'.repeat(63)}</a>`
    expect(() => parseXmlBody(flat)).not.toThrow()
  })

  it('refuses text after a root element that closes itself, as after one that does not', () => {
    for (const body of [
      '<agent/>junk',
      '<agent>x</agent>junk',
      '<agent/>junk<!-- x -->',
      '<agent/>junk>',
      '<?xml version="1.0"?><agent a=">"/>x',
      '\uFEFF<agent/>junk'
    ]) {
      expect(() => parseXmlBody(body), body).toThrow(expect.objectContaining({ code: 'E_MALFORMED_XML' }))
    }
    // The validator took these.
    for (const body of [
      '<agent><name>n</name></agent>&amp;',
      '<agent><name>n</name></agent><?xml version="1.0"?>',
      '<agent/>\n<!-- c -->\u00a0',
      '<agent/><![CDATA[x]]>',
      '<agent><name>n</name></agent><![CDATA[x]]>&amp;'
    ]) {
      expect(() => parseXmlBody(body), body).toThrow(expect.objectContaining({ code: 'E_MALFORMED_XML', message: expect.stringContaining('text after the root element') }))
    }
    expect(parseXmlBody('<agent><name>n</name></agent>\r\n<?xml-stylesheet href="a"?><!-- c -->\t')).toEqual({ name: 'n' })
    expect(parseXmlBody('<agent/><!-- a comment -->\n')).toEqual('')
    expect(parseXmlBody('<?xml version="1.0"?>\n<!-- c --><agent xml:a="/>"/>\n<!-- d -->')).toEqual('')
  })

  it('refuses two root elements, of one name too', () => {
    // The validator refuses a second root after one that does not close itself, in words of its own: the same message for each.
    for (const body of ['<agent><name>a</name></agent><agent/>', '<a/><b/>', '<a>x</a><b>y</b>', '<a>x</a><a>y</a>']) {
      expect(() => parseXmlBody(body), body).toThrow(
        expect.objectContaining({ code: 'E_MALFORMED_XML', message: expect.stringContaining('XML: more than one root element: a body is one element (<agent>…</agent>), its fields inside it. Fix') })
      )
    }
  })

  it('keeps a text\'s spaces and line breaks, and reads the indentation between elements as none', () => {
    const verbatim = '\n  input {\n    path = /var/log\n  }\n'
    expect(parseXmlBody(`<agent>\n  <name>  pad  </name>\n  <global-config>\n    <verbatim>${verbatim}</verbatim>\n  </global-config>\n</agent>\n`)).toEqual({
      name: '  pad  ',
      'global-config': { verbatim }
    })
  })

  it('reads a CDATA section as the literal text it holds, in its place in the text around it', () => {
    expect(parseXmlBody('<x><v><![CDATA[a&amp;b <tag> & ]]]]><![CDATA[>]]></v></x>')).toEqual({ v: 'a&amp;b <tag> & ]]>' })
    expect(parseXmlBody('<x><v>1 &lt; <![CDATA[2 < 3]]> &amp; 4</v></x>')).toEqual({ v: '1 < 2 < 3 & 4' })
    expect(parseXmlBody('<x><v><![CDATA[&foo;]]></v></x>')).toEqual({ v: '&foo;' })
  })

  it('refuses element names that could reach an object prototype', () => {
    for (const name of ['__proto__', 'constructor', 'prototype']) {
      // Said as what it is, where it was "[SECURITY] Invalid name … Fix the syntax" as malformed XML.
      expect(() => parseXmlBody(`<x><${name}><polluted>yes</polluted></${name}><name>a</name></x>`)).toThrow(
        expect.objectContaining({ code: 'E_XML_RESERVED_NAME', message: `The XML body has an element named "${name}": __proto__, constructor and prototype are refused as element names (they could reach an object's prototype, and no body of this interface has them); leave it out.` })
      )
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  it('refuses such a name given as a field, which it dropped with nothing said', () => {
    for (const name of ['__proto__', 'constructor', 'prototype']) {
      expect(() => parseXmlBody(`<x><field name="${name}"><polluted>yes</polluted></field><name>a</name></x>`)).toThrow(
        expect.objectContaining({
          code: 'E_XML_RESERVED_NAME',
          message: `The XML body has a field named "${name}" (<field name="${name}">): __proto__, constructor and prototype are refused as names (they could reach an object's prototype, and no body of this interface has them); leave it out.`
        })
      )
    }
    // Written with a character reference, the name is the same once read.
    expect(() => parseXmlBody('<x><field name="__prot&#111;__">v</field></x>')).toThrow(expect.objectContaining({ code: 'E_XML_RESERVED_NAME' }))
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })
})
