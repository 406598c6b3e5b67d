/**
 * Extractor: a client library's exception text (`openai.RateLimitError: ...`, Java/.NET/Go
 * exception class names): the class, and where the message after it starts.
 */
import { KNOWN_CLASS_RE } from "../draft.js"

const GENERIC_CLASS_RE = /\b([A-Z][A-Za-z0-9]{1,60}(?:Error|Exception))\b/

export function findClass(s: string): { name: string; end: number; known: boolean } | null {
  if (s.indexOf("Error") === -1 && s.indexOf("Exception") === -1 && s.indexOf("Timeout") === -1) return null
  const known = KNOWN_CLASS_RE.exec(s)
  if (known !== null) return { name: known[1], end: known.index + known[0].length, known: true }
  const generic = GENERIC_CLASS_RE.exec(s)
  if (generic !== null) return { name: generic[1], end: generic.index + generic[0].length, known: false }
  return null
}

export const REPEATED_CLASS_RE = /^[A-Za-z_][\w.]{0,80}(?:Error|Exception):[ \t]+/
