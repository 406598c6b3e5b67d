import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { dropMessages, FIELD_RE, redact, redactValue, stripMessages } from "../../src/parse/redact.js"
import { parseRecord, parseStructured } from "../../src/parse/parse.js"

const SECRET = "9f8e7d6c5b4a39281706f5e4d3c2b1a0"

/** [name, text, the secret that must disappear] */
const shapes: ReadonlyArray<readonly [string, string, string]> = [
  ["Authorization header", `Authorization: Bearer ${SECRET}`, SECRET],
  ["authorization header, no scheme", `authorization: ${SECRET}`, SECRET],
  ["JSON header", `{"headers":{"authorization":"Bearer ${SECRET}"}}`, SECRET],
  ["curl -H", `curl -i https://api.example.com/v1/chat/completions -H 'authorization: Bearer ${SECRET}'`, SECRET],
  ["curl -v request header", `> Authorization: Bearer ${SECRET}`, SECRET],
  ["Basic auth header", `Proxy-Authorization: Basic dXNlcjpwYXNzd29yZA==`, "dXNlcjpwYXNzd29yZA=="],
  ["x-api-key header", `x-api-key: ${SECRET}`, SECRET],
  ["api-key header (Azure)", `api-key: ${SECRET}`, SECRET],
  ["Python dict header", `{'Authorization': 'Bearer ${SECRET}', 'Accept': 'application/json'}`, SECRET],
  ["escaped JSON header", `{"log":"{\\"authorization\\":\\"Bearer ${SECRET}\\"}"}`, SECRET],
  ["Bearer token in prose", `retrying with token Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig after 401`, "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig"],
  ["sk- key", `Incorrect API key provided: sk-${SECRET}`, `sk-${SECRET}`],
  ["sk-proj- key", `key sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz012345 rejected`, "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz012345"],
  ["sk-ant- key", `ANTHROPIC_API_KEY=sk-ant-api03-AbCdEfGhIjKlMnOpQrSt-uvwx`, "sk-ant-api03-AbCdEfGhIjKlMnOpQrSt-uvwx"],
  ["api_key= query", `GET https://api.example.com/v1/models?api_key=${SECRET}&limit=5`, SECRET],
  ["apikey= kv", `client init apikey=${SECRET} region=cn`, SECRET],
  ["api-key= kv", `api-key=${SECRET}`, SECRET],
  ["key= query (Google)", `POST https://generativelanguage.googleapis.com/v1beta/models/gemini:generateContent?key=${SECRET}`, SECRET],
  ["Python kwarg", `OpenAI(api_key='${SECRET}', base_url='https://api.siliconflow.cn/v1')`, SECRET],
  ["JSON api_key", `{"api_key":"${SECRET}","model":"x"}`, SECRET],
  ["JSON apiKey", `{"apiKey": "${SECRET}"}`, SECRET],
  ["JSON password", `{"user":"svc","password":"hunter2-${SECRET}"}`, `hunter2-${SECRET}`],
  ["JSON token", `{"token":"tok_${SECRET}"}`, `tok_${SECRET}`],
  ["JSON secret", `{"secret": "s3cr3t-${SECRET}"}`, `s3cr3t-${SECRET}`],
  ["JS object dump apiKey", `{ apiKey: '${SECRET}', baseURL: 'https://api.example.com' }`, SECRET],
  ["URL userinfo", `proxy http://svc:${SECRET}@10.0.0.1:3128 refused`, SECRET]
]

describe("redact", () => {
  it.each(shapes)("removes the secret: %s", (_name, text, secret) => {
    const out = redact(text)
    expect(out).not.toContain(secret)
    expect(out).toContain("<redacted>")
    expect(redact(out)).toBe(out)
  })

  it.each(shapes)("keeps the secret out of every field of a parsed failure: %s", (_name, text, secret) => {
    const record = `2026-11-21 10:00:00,000 ERROR llm - HTTP 401 {"code":20003,"message":"Invalid API key"} while sending ${text}`
    const r = parseRecord(record)
    expect(r._tag).toBe("Failure")
    expect(JSON.stringify(r)).not.toContain(secret)
  })

  it("keeps secrets out of structured webhook objects", () => {
    const r = parseStructured({
      status: 401,
      message: `bad key sk-${SECRET}`,
      body: { code: 20003, message: "Invalid API key" },
      headers: { authorization: `Bearer ${SECRET}` }
    })
    expect(r._tag).toBe("Failure")
    expect(JSON.stringify(r)).not.toContain(SECRET)
  })

  it.each([
    "2026-11-21 10:00:00,000 INFO app - served 512 tokens in 431 ms",
    "Rate limit reached for gpt-4 on tokens per min (TPM): Limit 10000",
    '{"level":30,"msg":"cache lookup","key":"session:ab12","max_tokens":512,"prompt_tokens":40}',
    "monkey=3 turkey=4 keyboard layout us",
    "the API key is missing",
    "Bearer tokens must be sent in the Authorization header",
    "task-scheduler started; risk-assessment-framework v2 loaded",
    "https://api.siliconflow.cn/v1/chat/completions answered 429",
    "模型 deepseek-ai/DeepSeek-V3：系统繁忙，请稍后再试"
  ])("leaves ordinary text untouched: %s", (text) => {
    expect(redact(text)).toBe(text)
  })

  it("stays linear on pathological input", () => {
    const inputs = [
      "authorization" + ":".repeat(100_000),
      '"api_key":"' + "\\".repeat(100_000),
      "Bearer " + "a".repeat(200_000),
      "key=" + "k".repeat(200_000),
      "sk-" + "-".repeat(200_000),
      "//" + "u".repeat(100_000) + ":" + "p".repeat(100_000),
      'x"token": \'' + "\\'".repeat(50_000)
    ]
    const t0 = performance.now()
    for (const s of inputs) redact(s)
    expect(performance.now() - t0).toBeLessThan(1000)
  })
})

describe("FIELD_RE (secret-valued fields)", () => {
  // the pattern before the api-key prefix moved into a lookbehind: the reference
  const REFERENCE =
    /(?<![A-Za-z0-9_-])((?:(?:[A-Za-z0-9]{1,32}_){0,4}api[_-]?key|apikey|authorization|password|passwd|(?:access_|refresh_|id_|auth_)?token|(?:client_)?secret)\\?["']?[ \t]{0,4}:[ \t]{0,4})(\\"(?:[^"\\]|\\[^"])*\\"|"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')/gi
  const mark = (_m: string, head: string, value: string) => `${head}[${value}]`
  const same = (text: string) => expect(text.replace(FIELD_RE, mark), JSON.stringify(text)).toBe(text.replace(REFERENCE, mark))

  it.each([
    `{"api_key": "sk-1", "openai_api_key":"x", "a_b_c_d_api-key": 'y', "a_b_c_d_e_api_key": "z"}`,
    `password: 'p' passwd:"q" my_token: "no" access_token:"t" client_secret: "s" xsecret: "no"`,
    `{\\"apikey\\":\\"k\\"} API_KEY: "K" Authorization: "Bearer t" -api_key: "no" _api_key: "no"`,
    `${"a".repeat(33)}_api_key: "long segment" ${"b".repeat(32)}_api_key: "32"`
  ])("matches what the reference matches in %j", (text) => same(text))

  it("matches what the reference matches in random texts of name pieces", () => {
    const piece = fc.constantFrom(
      "api", "API", "_", "-", "key", "Key", "apikey", "my", "x", "a1", "abcdefghijklmnopqrstuvwxyz0123456789", ":", " ", "\t",
      "'", '"', "\\", '\\"', "token", "access_", "id_", "password", "passwd", "secret", "client_", "authorization", "{", "=", "\n", "é"
    )
    fc.assert(fc.property(fc.array(piece, { maxLength: 16 }), (pieces) => {
      same(pieces.join(""))
    }), { numRuns: 20000 })
  })
})

describe("chat messages", () => {
  it("keeps only the count of a JSON messages array", () => {
    const body = '{"model":"m","messages":[{"role":"system","content":"be terse"},{"role":"user","content":"my diary [secret] {x}"}],"stream":true}'
    const r = stripMessages(body)
    expect(r.count).toBe(2)
    expect(r.text).toBe('{"model":"m","messages":["<redacted: 2 messages>"],"stream":true}')
    expect(JSON.parse(r.text)).toEqual({ model: "m", messages: ["<redacted: 2 messages>"], stream: true })
  })

  it("handles messages escaped inside a JSON string, Python literals and kwargs", () => {
    const escaped = stripMessages('{"log":"{\\"messages\\":[{\\"role\\":\\"user\\",\\"content\\":\\"a \\\\\\"quoted\\\\\\" word\\"}]}"}')
    expect(escaped.count).toBe(1)
    expect(escaped.text).not.toContain("quoted")
    expect(JSON.parse(escaped.text)).toEqual({ log: '{"messages":["<redacted: 1 messages>"]}' })
    const py = stripMessages("create(model='m', messages=[{'role': 'user', 'content': \"it's private\"}, {'role': 'assistant', 'content': 'ok'}])")
    expect(py.count).toBe(2)
    expect(py.text).not.toContain("private")
    expect(stripMessages("messages: []").count).toBe(0)
  })

  it("replaces the rest of an unterminated array", () => {
    const r = stripMessages('{"messages":[{"role":"user","content":"cut off')
    expect(r.text).toBe('{"messages":["<redacted: 1+ messages>"]')
  })

  it("leaves texts without a messages array unchanged", () => {
    for (const t of ["no messages here", "messages: none", '"messages": "3"', "error_messages=[1]"]) {
      expect(stripMessages(t)).toEqual({ text: t, count: null })
    }
  })

  it("drops message contents from a parsed record and keeps their count", () => {
    const line = JSON.stringify({
      level: 50,
      msg: "upstream call failed",
      status: 429,
      body: { code: 50603, message: "Request was rejected due to rate limiting. Details: TPM limit reached.", data: null },
      request: { model: "Qwen/Qwen2.5-7B-Instruct", messages: [{ role: "user", content: "PRIVATE-CONTENT" }, { role: "user", content: "more" }] }
    })
    const r = parseRecord(line)
    expect(r._tag).toBe("Failure")
    if (r._tag !== "Failure") return
    expect(r.failure.messagesCount).toBe(2)
    expect(JSON.stringify(r)).not.toContain("PRIVATE-CONTENT")
  })

  it("dropMessages copies a body object without its message contents", () => {
    const body = { model: "m", messages: [{ role: "user", content: "x" }] }
    expect(dropMessages(body)).toEqual({ body: { model: "m", messages: "<redacted: 1 messages>" }, count: 1 })
    expect(body.messages).toHaveLength(1)
    expect(dropMessages("text")).toEqual({ body: "text", count: null })
  })
})

describe("untrusted JSON keys", () => {
  it("a __proto__ key inside a webhook body stays a key: its code and message are not read from it", () => {
    const obj = JSON.parse('{"status": 500, "body": {"__proto__": {"code": 50603, "message": "Request was rejected due to rate limiting. Details: TPM limit reached."}}}') as Record<string, unknown>
    const r = parseStructured(obj)
    expect(r._tag).toBe("Failure")
    if (r._tag !== "Failure") return
    expect(r.failure.code).toBeNull()
    expect(r.failure.message).toBeNull()
    const cleaned = redactValue(obj).value as Record<string, Record<string, unknown>>
    expect(Object.getPrototypeOf(cleaned["body"])).toBeNull()
    expect(Object.keys(cleaned["body"]!)).toEqual(["__proto__"])
  })
})

describe("label values", () => {
  it("control characters of a sender's model or service never reach a label", () => {
    const r = parseStructured({ status: 429, model: "gpt-4o\u0000\u0007-mini", service: "chat\napi", message: "slow down" })
    expect(r._tag).toBe("Failure")
    if (r._tag !== "Failure") return
    expect(r.failure.model).toBe("gpt-4o-mini")
    expect(r.failure.service).toBe("chatapi")
    const only = parseStructured({ status: 429, model: "\u0000", message: "slow down" })
    expect(only._tag === "Failure" && only.failure.model).toBeNull()
  })
})
