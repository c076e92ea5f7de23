/**
 * HTML written safely: a template tag that escapes what it interpolates, and the document
 * every console page is (src/console/layout.ts puts the shell around a page).
 */
const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

/** Text made safe for HTML content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c])
}

/** A template tag that escapes every interpolated value except those wrapped in `raw`. */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Raw {
  let out = strings[0]
  values.forEach((value, k) => {
    out += (value instanceof Raw ? value.text : Array.isArray(value) ? value.map((v) => (v instanceof Raw ? v.text : escapeHtml(String(v)))).join('') : escapeHtml(String(value))) + strings[k + 1]
  })
  return new Raw(out)
}

/** Markup that is already safe. */
export class Raw {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text
  }
}

export const raw = (text: string): Raw => new Raw(text)

/**
 * A page's markup that shows an error in place of what was asked for (an agent that is not
 * there, a filter that is wrong): the page is answered with the error's status, as the same
 * request to the console's JSON API is, not 200.
 */
export class ErrorMarkup extends Raw {
  constructor(
    text: string,
    readonly status: number
  ) {
    super(text)
  }
}

export function document(options: { title: string; styles: readonly string[]; scripts: readonly string[]; body: Raw }): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(options.title)}</title>
<link rel="icon" href="data:,">
${options.styles.map((href) => `<link rel="stylesheet" href="${escapeHtml(href)}">`).join('\n')}
</head>
<body>
${options.body.text}
${options.scripts.map((src) => `<script src="${escapeHtml(src)}"></script>`).join('\n')}
</body>
</html>
`
}
