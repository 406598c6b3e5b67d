/**
 * Extractor: HTML error pages of gateways and proxies; the message is the page's title.
 */
import { type Draft, setMessage } from "../draft.js"

const HTML_RE = /<(?:!doctype\s+html|html|head|body|title|h1|center)\b/i

const TITLE_RE = /<title[^>]{0,200}>([^<]{1,300})</i

const H1_RE = /<h1[^>]{0,300}>([\s\S]{0,600}?)<\/h1>/i

const TAG_RE = /<[^>]{0,300}>/g

function decodeEntities(s: string): string {
  return s
    .replace(/&amp;/g, "&")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&nbsp;/g, " ")
}

/** An HTML page in the text: flagged, and its title (else its first heading) is the message. */
export function readHtml(s: string, d: Draft): void {
  if (!HTML_RE.test(s)) return
  d.from = "html"
  d.htmlSeen = true
  const title = TITLE_RE.exec(s)
  if (title !== null) setMessage(d, decodeEntities(title[1]))
  else {
    const h1 = H1_RE.exec(s)
    if (h1 !== null) setMessage(d, decodeEntities(h1[1].replace(TAG_RE, " ")))
  }
}
