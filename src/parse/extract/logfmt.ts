/**
 * Extractor: key-value logs (`error_message=... error_code=...`, `message: ...`) and explicit
 * codes in prose (`error code: 1010`, Cloudflare's `error reference number`).
 */
import { type Draft, isNullWord, setBodyStatus, setCode, setErrorType, setMessage } from "../draft.js"

const ERROR_CODE_RE = /\berror[ _-]?code\b["']?[ \t]{0,3}[:=]?[ \t]{0,3}["']?(\d{3,6})\b/i

const REFERENCE_RE = /\berror reference number:?[ \t]{0,3}(\d{3,6})\b/i

export function readExplicitCodes(s: string, d: Draft): void {
  const ref = REFERENCE_RE.exec(s)
  if (ref !== null) {
    const n = Number(ref[1])
    setCode(d, n)
    d.explicitCode = true
    setBodyStatus(d, n)
  }
  const ec = ERROR_CODE_RE.exec(s)
  if (ec !== null) {
    const n = Number(ec[1])
    // `Error code: 429` (Python SDK) is the HTTP status, not a code of the service.
    if (n < 400 || n > 599) {
      setCode(d, n)
      d.explicitCode = true
    }
  }
}

/** `message: ...`, `msg="..."`, `reason=...` in prose and key-value logs (not the JSON `"message":`). */
export const KV_MESSAGE_RE =
  /(?:^|[\s,;(|])(?:message|msg|reason)[ \t]{0,2}[:=][ \t]{0,2}(?:'((?:[^'\\\n]|\\.){1,1000})'|"((?:[^"\\\n]|\\.){1,1000})"|([^\s'"<{[][^\n]{2,1000}))/i

const LOGFMT_RE = /\b(error_message|error_msg|err_msg|error_type|error_code)=(?:'((?:[^'\\\n]|\\.){0,2000})'|"((?:[^"\\\n]|\\.){0,2000})"|([^\s'"]{1,200}))/g

export function readLogfmt(s: string, d: Draft): void {
  if (s.indexOf("error_") === -1 && s.indexOf("err_msg") === -1) return
  LOGFMT_RE.lastIndex = 0
  let m: RegExpExecArray | null
  let n = 0
  while ((m = LOGFMT_RE.exec(s)) !== null && n++ < 16) {
    const value = m[2] ?? m[3] ?? m[4] ?? ""
    if (isNullWord(value)) continue
    switch (m[1]) {
      case "error_message":
      case "error_msg":
      case "err_msg":
        setMessage(d, value)
        break
      case "error_type":
        setErrorType(d, value)
        break
      case "error_code":
        setCode(d, value)
        break
    }
  }
}
