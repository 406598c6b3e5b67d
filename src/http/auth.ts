/**
 * Tokens of CONTRACT section 6: `apiToken` guards everything but /healthz, /readyz and /metrics;
 * `ingestToken` (or the api token) guards POST /v1/events; `GET /` also takes the api token as
 * the password of HTTP Basic auth. Compared in constant time. HMAC signatures for ingest.
 */
import * as crypto from "node:crypto"

/** Constant-time comparison that does not leak the length through early exit. */
export const safeEqual = (given: string, expected: string): boolean => {
  const a = crypto.createHash("sha256").update(given).digest()
  const b = crypto.createHash("sha256").update(expected).digest()
  return crypto.timingSafeEqual(a, b) && given.length === expected.length
}

export const bearerOf = (authorization: string | undefined): string | null => {
  if (!authorization) return null
  const m = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization)
  return m ? m[1]! : null
}

export const basicPasswordOf = (authorization: string | undefined): string | null => {
  if (!authorization) return null
  const m = /^Basic[ ]+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization)
  if (!m) return null
  const decoded = Buffer.from(m[1]!, "base64").toString("utf8")
  const i = decoded.indexOf(":")
  return i === -1 ? null : decoded.slice(i + 1)
}

export type AuthVerdict = "ok" | "missing" | "wrong"

/** Checks a request's credentials against the accepted tokens (none configured = open). */
export const checkTokens = (
  accepted: ReadonlyArray<string>,
  authorization: string | undefined,
  allowBasic: boolean
): AuthVerdict => {
  if (accepted.length === 0) return "ok"
  const given = bearerOf(authorization) ?? (allowBasic ? basicPasswordOf(authorization) : null)
  if (given === null) return "missing"
  // compare against every token so timing does not tell which one matched
  let ok = false
  for (const t of accepted) ok = safeEqual(given, t) || ok
  return ok ? "ok" : "wrong"
}

export const HMAC_WINDOW_SECONDS = 300

export type HmacVerdict = { ok: true } | { ok: false; reason: string }

/** `X-Faultline-Signature: sha256=<hex HMAC-SHA256 of "<timestamp>.<raw body>">`, timestamp within 5 minutes. */
export const verifyHmac = (
  secret: string,
  timestamp: string | undefined,
  signature: string | undefined,
  rawBody: Buffer,
  nowSeconds: number
): HmacVerdict => {
  if (!timestamp) return { ok: false, reason: "missing X-Faultline-Timestamp header" }
  if (!signature) return { ok: false, reason: "missing X-Faultline-Signature header" }
  if (!/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: "X-Faultline-Timestamp must be unix seconds" }
  if (Math.abs(nowSeconds - Number(timestamp)) > HMAC_WINDOW_SECONDS) {
    return { ok: false, reason: "X-Faultline-Timestamp is more than 5 minutes away from now" }
  }
  const m = /^sha256=([0-9a-fA-F]{64})$/.exec(signature.trim())
  if (!m) return { ok: false, reason: "X-Faultline-Signature must be sha256=<64 hex digits>" }
  const expected = crypto.createHmac("sha256", secret).update(`${timestamp}.`).update(rawBody).digest()
  const given = Buffer.from(m[1]!, "hex")
  return crypto.timingSafeEqual(expected, given) ? { ok: true } : { ok: false, reason: "signature does not match the body" }
}

export const signBody = (secret: string, timestamp: string, body: string | Buffer): string =>
  "sha256=" + crypto.createHmac("sha256", secret).update(`${timestamp}.`).update(body).digest("hex")
