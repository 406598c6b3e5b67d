import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { actionFor, classify, fingerprint, isRetryable, maskMessage, rateLimitKindOf, severityOf } from "../../src/classify/classify.js"
import { type Category, instantMs, type RateLimitKind } from "../../src/classify/Event.js"
import { emptyFailure, type ParsedFailure } from "../../src/parse/ParsedFailure.js"
import { parseRecord } from "../../src/parse/parse.js"

const f = (over: Partial<ParsedFailure>): ParsedFailure => ({ ...emptyFailure, ...over })

const parsed = (text: string): ParsedFailure => {
  const r = parseRecord(text)
  if (r._tag !== "Failure") throw new Error(`not a failure: ${r.reason}`)
  return r.failure
}

describe("classify: precedence (CONTRACT section 4)", () => {
  it.each<readonly [string, Partial<ParsedFailure>, Category]>([
    ["429 whose body says invalid_request_error is a rate limit", { status: 429, errorType: "invalid_request_error", code: "rate_limit_error", message: "This request would exceed the rate limit" }, "rate_limit"],
    ["504 raised as InternalServerError is overload", { status: 504, errorClass: "InternalServerError", message: "The upstream server is timing out" }, "overload"],
    ["429 insufficient_quota is quota", { status: 429, code: "insufficient_quota", errorType: "insufficient_quota", message: "You exceeded your current quota" }, "quota"],
    ["403 about the balance is quota", { status: 403, message: "Sorry, your account balance is insufficient" }, "quota"],
    ["402 is quota", { status: 402, message: "Payment Required" }, "quota"],
    ["403 real-name (English) is auth_realname", { status: 403, message: "The model requires real-name verification of your account." }, "auth_realname"],
    ["403 real-name (Chinese) is auth_realname", { status: 403, message: "根据相关法律法规，使用该模型需完成实名认证" }, "auth_realname"],
    ["403 with code 30003 is auth_realname", { status: 403, code: 30003, message: null }, "auth_realname"],
    ["other 403 is permission", { status: 403, message: "Your account does not have permission to access this model." }, "permission"],
    ["400 with 20012 is model_not_found", { status: 400, code: 20012, message: "Model does not exist. Please check it carefully." }, "model_not_found"],
    ["other 400 is invalid_request", { status: 400, code: 20015, message: "Value error" }, "invalid_request"],
    ["422 is invalid_request", { status: 422 }, "invalid_request"],
    ["401 is auth_key", { status: 401 }, "auth_key"],
    ["500 is server_error", { status: 500, message: "Too many requests" }, "server_error"],
    ["503 is overload", { status: 503, message: "rate limit reached" }, "overload"],
    ["502 is transport", { status: 502 }, "transport"],
    ["408 is transport", { status: 408 }, "transport"],
    ["520 is transport", { status: 520 }, "transport"],
    ["524 is transport", { status: 524 }, "transport"],
    ["527 is transport", { status: 527 }, "transport"],
    ["530 is transport", { status: 530 }, "transport"],
    ["404 is unknown", { status: 404, message: "Not Found" }, "unknown"],
    ["413 is unknown", { status: 413 }, "unknown"],
    ["501 is unknown", { status: 501 }, "unknown"],
    ["404 saying the model does not exist is model_not_found", { status: 404, code: "model_not_found", message: "The model `gpt-5` does not exist" }, "model_not_found"]
  ])("%s", (_name, over, category) => {
    expect(classify(f(over)).category).toBe(category)
  })

  it.each<readonly [string, Partial<ParsedFailure>, Category]>([
    ["RateLimitError", { errorClass: "RateLimitError", message: "boom" }, "rate_limit"],
    ["AuthenticationError", { errorClass: "AuthenticationError" }, "auth_key"],
    ["PermissionDeniedError", { errorClass: "PermissionDeniedError" }, "permission"],
    ["NotFoundError about a model", { errorClass: "NotFoundError", message: "Model 'x/y-1' does not exist" }, "model_not_found"],
    ["BadRequestError", { errorClass: "BadRequestError", message: "bad" }, "invalid_request"],
    ["InternalServerError", { errorClass: "InternalServerError" }, "server_error"],
    ["APIConnectionError", { errorClass: "APIConnectionError", transportError: "APIConnectionError" }, "transport"],
    ["APITimeoutError", { errorClass: "APITimeoutError" }, "transport"],
    ["System is too busy", { message: "System is too busy now. Please try again later." }, "overload"],
    ["Model does not exist", { message: "Model does not exist. Please check it carefully." }, "model_not_found"],
    ["code 20012", { code: 20012 }, "model_not_found"],
    ["code 50508", { code: 50508 }, "overload"],
    ["Rate limit reached ... (TPM)", { message: "Rate limit reached for gpt-4 in organization org-x on tokens per min (TPM)" }, "rate_limit"],
    ["quota wording", { message: "You exceeded your current quota, please check your plan and billing details." }, "quota"],
    ["transport text", { transportError: "ECONNREFUSED", message: "connect ECONNREFUSED 10.0.0.7:443" }, "transport"],
    ["nothing known", { message: "something odd", code: 1010 }, "unknown"],
    ["a code named __proto__", { message: "something odd", code: "__proto__" }, "unknown"],
    ["an error type named constructor", { message: "something odd", errorType: "constructor" }, "unknown"],
    ["an error class named toString", { message: "something odd", errorClass: "toString" }, "unknown"]
  ])("without a status: %s", (_name, over, category) => {
    expect(classify(f(over)).category).toBe(category)
  })
})

describe("rateLimitKind", () => {
  it.each<readonly [string, RateLimitKind]>([
    ["Request was rejected due to rate limiting. Details: TPM limit reached.", "TPM"],
    ["TPD limit reached", "TPD"],
    ["request reached organization max RPM: 3", "RPM"],
    ["Rate limit reached for gpt-4 on tokens per min (TPM): Limit 10000", "TPM"],
    ["Rate limit reached on requests per day. Limit: 200 / day", "RPD"],
    ["Rate limit reached on requests per min. Limit: 20 / min", "RPM"],
    ["RPH limit reached", "RPH"],
    ["Rate limit exceeded for images per minute in organization org-x", "IPM"],
    ["images per day limit reached", "IPD"],
    ["exceed the rate limit for your organization of 20,000 input tokens per minute", "TPM"],
    ["you hit the daily request limit", "RPD"],
    ["请求过于频繁（每分钟请求数超限）", "RPM"],
    ["每日Token用量已达上限", "TPD"],
    ["每分钟 tokens 超限", "TPM"],
    ["每天图片生成次数已达上限", "IPD"],
    ["Rate limit reached for model `llama` in organization `org` on : Limit 131072", "unknown"],
    ["Too Many Requests", "unknown"]
  ])("%s -> %s", (text, kind) => {
    expect(rateLimitKindOf(text)).toBe(kind)
    expect(classify(f({ status: 429, message: text })).rateLimitKind).toBe(kind)
  })

  it("is null for every other category", () => {
    expect(classify(f({ status: 503, message: "TPM limit reached" })).rateLimitKind).toBeNull()
    expect(classify(f({ status: 429, message: "insufficient_quota TPM" })).rateLimitKind).toBeNull()
  })
})

describe("severity, retryable and action", () => {
  it.each<readonly [Category, RateLimitKind | null, "critical" | "warning" | "info", boolean]>([
    ["auth_key", null, "critical", false],
    ["quota", null, "critical", false],
    ["server_error", null, "critical", true],
    ["rate_limit", "RPD", "critical", false],
    ["rate_limit", "TPD", "critical", false],
    ["rate_limit", "IPD", "critical", false],
    ["rate_limit", "RPM", "warning", true],
    ["rate_limit", "RPH", "warning", true],
    ["rate_limit", "TPM", "warning", true],
    ["rate_limit", "IPM", "warning", true],
    ["rate_limit", "unknown", "warning", true],
    ["overload", null, "warning", true],
    ["transport", null, "warning", true],
    ["invalid_request", null, "info", false],
    ["model_not_found", null, "warning", false],
    ["auth_realname", null, "warning", false],
    ["permission", null, "warning", false],
    ["unknown", null, "warning", false]
  ])("%s/%s -> %s, retryable %s", (category, kind, severity, retryable) => {
    expect(severityOf(category, kind)).toBe(severity)
    expect(isRetryable(category, kind)).toBe(retryable)
  })

  it("says what to do, one sentence per category and kind", () => {
    expect(actionFor("rate_limit", "TPM")).toBe("Slow down or wait: the tokens-per-minute limit was hit.")
    expect(actionFor("rate_limit", "RPM")).toBe("Slow down or wait: the requests-per-minute limit was hit.")
    expect(actionFor("rate_limit", "IPD")).toContain("images-per-day")
    expect(actionFor("rate_limit", "unknown")).toMatch(/^Slow down or wait/)
    expect(actionFor("overload", null)).toMatch(/retry later/i)
    expect(actionFor("overload", null)).toMatch(/backoff/)
    expect(actionFor("overload", null)).toContain("stream: true")
    expect(actionFor("overload", null)).toMatch(/chat and text-to-speech/)
    expect(actionFor("transport", null)).toMatch(/network path/)
    expect(actionFor("transport", null)).toMatch(/proxy/)
    expect(actionFor("server_error", null)).toMatch(/ticket/)
    expect(actionFor("server_error", null)).toMatch(/operator/)
    expect(actionFor("model_not_found", null)).toContain("`model`")
    expect(actionFor("auth_realname", null)).toMatch(/real-name authentication/)
    expect(actionFor("quota", null)).toMatch(/retrying will not help/)
  })
})

describe("fingerprint", () => {
  const fp = (text: string): string => {
    const p = parsed(text)
    return fingerprint(p, classify(p))
  }

  it("is 16 hex characters", () => {
    expect(fp("HTTP 429 Request was rejected due to rate limiting. Details: TPM limit reached.")).toMatch(/^[0-9a-f]{16}$/)
  })

  it("ignores request ids, counts, durations and quoted values", () => {
    const a = fp("openai.RateLimitError: Rate limit reached for gpt-4 in organization org-uVqpjtJiKqvVJMVfvpaounIh on tokens per min (TPM): Limit 10000, Used 8554, Requested 3082. Please try again in 9.816s.")
    const b = fp("openai.RateLimitError: Rate limit reached for gpt-4 in organization org-Y6mrIS1Sezqe4ctrP6VS7Ncl on tokens per min (TPM): Limit 10000, Used 9999, Requested 12. Please try again in 1m26.4s.")
    expect(a).toBe(b)
    const c = fp("HTTP 500 {\"error\":{\"message\":\"The server had an error. (Please include the request ID 500d9fff2057e4af93a280f67002c342 in your message.)\",\"type\":\"server_error\"}}")
    const d = fp("HTTP 500 {\"error\":{\"message\":\"The server had an error. (Please include the request ID 394a40f7-7222-4168-9fc5-b61bb7cd76f3 in your message.)\",\"type\":\"server_error\"}}")
    expect(c).toBe(d)
    const e = fp("HTTP 400 {\"code\":20015,\"message\":\"length of prompt_tokens (68957) must be less than max_seq_len (65536).\",\"data\":null}")
    const g = fp("HTTP 400 {\"code\":20015,\"message\":\"length of prompt_tokens (70001) must be less than max_seq_len (65536).\",\"data\":null}")
    expect(e).toBe(g)
    const h = fp("HTTP 400 {\"code\":20015,\"message\":\"current model does not support parameter `enable_thinking`.\",\"data\":null}")
    const i = fp("HTTP 400 {\"code\":20015,\"message\":\"current model does not support parameter `top_k`.\",\"data\":null}")
    expect(h).toBe(i)
  })

  it("separates category, kind, status, code, model and service", () => {
    const base = f({ status: 429, code: 50603, message: "Request was rejected due to rate limiting. Details: TPM limit reached.", model: "a/b-1", service: "chat" })
    const c = classify(base)
    const variants: ParsedFailure[] = [
      { ...base, message: "Request was rejected due to rate limiting. Details: RPM limit reached." },
      { ...base, status: 503 },
      { ...base, code: 50604 },
      { ...base, model: "a/b-2" },
      { ...base, service: "tts" }
    ]
    const prints = new Set([c.fingerprint, ...variants.map((v) => classify(v).fingerprint)])
    expect(prints.size).toBe(variants.length + 1)
    expect(fingerprint(base, c)).toBe(c.fingerprint)
  })

  it("masks what varies between occurrences", () => {
    expect(maskMessage("Please try again in 7m12s. Used 99926, Requested 1739 for 'gpt-4o' id req_8fa9b2c1d3e4")).toBe(
      "please try again in <dur>. used #, requested # for <q> id <id>"
    )
  })
})

describe("instantMs (an event's time in epoch ms)", () => {
  const same = (s: string) => {
    const a = instantMs(s)
    const b = Date.parse(s)
    expect(Number.isNaN(a) ? "NaN" : a, s).toBe(Number.isNaN(b) ? "NaN" : b)
  }

  it("reads what toISOString writes as Date.parse does", () => {
    fc.assert(
      fc.property(fc.date({ min: new Date("0100-01-01T00:00:00Z"), max: new Date("9999-12-31T23:59:59Z"), noInvalidDate: true }), (d) => same(d.toISOString())),
      { numRuns: 5000 }
    )
  })

  it.each([
    "2026-02-30T10:00:00.000Z", "2024-02-29T12:00:00.000Z", "2026-13-01T00:00:00.000Z", "2026-00-10T00:00:00.000Z",
    "2026-01-10T24:00:00.000Z", "2026-01-10T23:60:00.000Z", "2026-01-10T23:59:60.000Z", "2026-01-1xT23:59:59.000Z",
    "abcd-01-10T23:59:59.000Z", "2026-01-10T23:59:59.00xZ", "0000-01-01T00:00:00.000Z", "0099-06-01T00:00:00.000Z",
    "", "2026-01-10", "+002026-01-10T00:00:00.000Z", "2026-01-10T23:59:59.123+01:00", "2026-01-10 23:59:59.123Z"
  ])("agrees with Date.parse on %j", (s) => same(s))
})

describe("verdicts remembered for multi-line records", () => {
  it("the other lines are part of what is remembered: the same message with other lines decides again", () => {
    const base: ParsedFailure = { ...emptyFailure, message: "chat request failed" }
    const quota: ParsedFailure = { ...base, otherLines: "Error: insufficient balance, please top up your account" }
    const rate: ParsedFailure = { ...base, otherLines: "Error: rate limit exceeded, too many requests" }
    for (let i = 0; i < 3; i++) {
      expect(classify(base).category).toBe("unknown")
      expect(classify(quota).category).toBe("quota")
      expect(classify(rate).category).toBe("rate_limit")
    }
  })
})
