import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { dropMessages, isSecretName, redact, redactValue, stripMessages } from "../../src/parse/redact.js"
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
    '{"level":30,"msg":"cache lookup","cacheKeyHits":3,"max_tokens":512,"prompt_tokens":40,"token_count":1200}',
    '{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","param":"api_key","code":"invalid_api_key"}}',
    "Invalid token, please log in again",
    "the key is valid; the token expired",
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

// ---------------------------------------------------------------------------------------------
// Redaction by a model: the value after any credential-named key, in any syntax the parser reads.

/** Credential names as applications spell them. */
const NAMES = [
  "authorization", "Authorization", "proxy-authorization", "x-api-key", "X-Api-Key", "api-key", "api_key", "apikey", "apiKey",
  "API_KEY", "OPENAI_API_KEY", "anthropic_api_key", "x-goog-api-key", "Ocp-Apim-Subscription-Key", "key", "token", "access_token",
  "accessToken", "x-auth-token", "auth_token", "secret", "client_secret", "secretKey", "password", "passwd", "DB_PASSWORD", "pwd", "密钥", "令牌"
] as const

/** How a name and its value are written: JSON, escaped JSON, Python, headers, logfmt, queries, flags, XML. */
const SYNTAXES: ReadonlyArray<readonly [string, (name: string, value: string) => string]> = [
  ["json", (n, v) => `{"${n}":"${v}","model":"gpt-4o"}`],
  ["json spaced", (n, v) => `{ "${n}" : "${v}" }`],
  ["escaped json", (n, v) => `{"log":"{\\"${n}\\":\\"${v}\\"}"}`],
  ["double-escaped json", (n, v) => `"{\\\\\\"${n}\\\\\\":\\\\\\"${v}\\\\\\"}"`],
  ["\\u-escaped json", (n, v) => `\\u0022${n}\\u0022:\\u0022${v}\\u0022`],
  ["html-escaped json", (n, v) => `&quot;${n}&quot;: &quot;${v}&quot;`],
  ["python dict", (n, v) => `{'${n}': '${v}', 'timeout': 30}`],
  ["python bytes tuple", (n, v) => `[(b'${n}', b'${v}'), (b'accept', b'*/*')]`],
  ["header tuple", (n, v) => `[('${n}', '${v}')]`],
  ["header pair array", (n, v) => `{"headers": [["${n}", "${v}"], ["accept", "*/*"]]}`],
  ["name/value object", (n, v) => `{"headers": [{"name": "${n}", "value": "${v}"}]}`],
  ["header line", (n, v) => `${n}: ${v}`],
  ["curl -H", (n, v) => `curl https://api.example.com/v1/chat/completions -H '${n}: ${v}'`],
  ["logfmt", (n, v) => `level=error ${n}=${v} status=401`],
  ["logfmt quoted", (n, v) => `level=error ${n}="${v}" status=401`],
  ["query", (n, v) => `GET /v1/models?${n}=${v}&limit=5`],
  ["url-encoded query", (n, v) => `url=https%3A%2F%2Fapi.example.com%2Fv1%3F${n}%3D${v}%26limit%3D5`],
  ["full-width colon", (n, v) => `${n}：${v}`],
  ["yaml", (n, v) => `  ${n}: ${v}\n  model: gpt-4o`],
  ["env", (n, v) => `export ${n}="${v}"`],
  ["kwarg", (n, v) => `OpenAI(${n}='${v}', base_url='https://api.example.com/v1')`],
  ["ruby hash", (n, v) => `{:${n} => "${v}"}`],
  ["cli flag", (n, v) => `llm-cli --${n} ${v} --model gpt-4o`],
  ["xml", (n, v) => `<${n}>${v}</${n}>`]
]

const SCHEMES = ["", "Bearer ", "Basic ", "Key ", "ApiKey ", "SSWS ", "Token ", "Bearer\\u0020"]

describe("redaction by a model of credential syntax", () => {
  it.each([
    ["Authorization: Key X", (s: string) => `Authorization: Key ${s}`],
    ["Authorization: ApiKey X", (s: string) => `Authorization: ApiKey ${s}`],
    ["Authorization: SSWS X", (s: string) => `authorization: SSWS ${s}`],
    ["x-api-key as a Python tuple of bytes", (s: string) => `headers=[(b'x-api-key', b'${s}')]`],
    ["header pairs as arrays in a webhook body", (s: string) => `{"request":{"headers":[["X-Api-Key","${s}"]]}}`],
    ["api_key: X with a colon", (s: string) => `api_key: ${s}`],
    ["URL-encoded api_key%3DX", (s: string) => `next=%2Fv1%3Fapi_key%3D${s}`],
    ["full-width colon", (s: string) => `api_key：${s}`],
    ["double-escaped JSON apiKey", (s: string) => `{"msg":"{\\\\\\"apiKey\\\\\\":\\\\\\"${s}\\\\\\"}"}`],
    ["Bearer\\u0020X in a JSON string", (s: string) => `{"headers":"Authorization: Bearer\\u0020${s}"}`],
    ["Token token=\"X\"", (s: string) => `Authorization: Token token="${s}"`],
    ["cookie", (s: string) => `Cookie: theme=dark; session=${s}`],
    ["XML", (s: string) => `<apiKey>${s}</apiKey>`],
    ["CLI flag", (s: string) => `--api-key ${s}`]
  ])("%s", (_name, make) => {
    const secret = "Zq8Rk2Lm9Pv4Xw7Tn3Yb"
    const out = redact(make(secret))
    expect(out).not.toContain(secret)
    expect(out).toContain("<redacted>")
    expect(redact(out)).toBe(out)
  })

  it("known key shapes of the catalogue's providers, anywhere in a message", () => {
    for (const key of [
      "sk-or-v1-0123456789abcdef0123456789abcdef", "hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345", "r8_AbCdEfGhIjKlMnOpQrStUvWx",
      "gsk_AbCdEfGhIjKlMnOpQrStUvWxYz012345", "AKIAIOSFODNN7EXAMPLE", "0123456789abcdef0123456789abcdef.AbCdEfGhIjKlMnOp",
      "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
    ]) {
      expect(redact(`upstream said: invalid key ${key} (request id: abc)`)).not.toContain(key)
    }
  })

  it("a random secret under a random credential name, in a random syntax and scheme, never survives parsing", () => {
    const secretArb = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._~+/=-]{15,40}$/).filter((s) => /[0-9]/.test(s) && /[A-Za-z]{2}/.test(s))
    fc.assert(
      fc.property(secretArb, fc.constantFrom(...NAMES), fc.constantFrom(...SYNTAXES), fc.constantFrom(...SCHEMES), (secret, name, [, write], scheme) => {
        const value = (name.toLowerCase().includes("authorization") ? scheme : "") + secret
        const text = write(name, value)
        const record = `2026-11-21 10:00:00 ERROR llm - HTTP 401 {"code":20003,"message":"Invalid API key"} request ${text}`
        const out = redact(record)
        const bare = secret.replace(/=+$/, "")
        if (out.includes(bare)) throw new Error(`leaked in ${JSON.stringify(text)}: ${out}`)
        expect(redact(out)).toBe(out)
        const parsed = parseRecord(record)
        expect(JSON.stringify(parsed)).not.toContain(bare)
      }),
      { numRuns: 3000 }
    )
  })

  it("a structured webhook object keeps no secret under a credential name or in a header pair", () => {
    const secret = "Yc7Vb2Nm8Kq4Lp9Rt3Wz"
    const r = parseStructured({
      status: 401,
      message: "Invalid API key",
      request: {
        headers: [["x-api-key", secret], { name: "Authorization", value: `Bearer ${secret}` }],
        openaiApiKey: secret,
        config: { DB_PASSWORD: secret, nested: `api_key：${secret}` }
      }
    })
    expect(r._tag).toBe("Failure")
    expect(JSON.stringify(r)).not.toContain(secret)
  })

  it("names a credential only when it stands as one", () => {
    expect(["x-api-key", "OPENAI_API_KEY", "accessToken", "client_secret", "password", "key", "密钥"].every(isSecretName)).toBe(true)
    expect(["monkey", "prompt_tokens", "keyboard", "tokenizer", "max_tokens", "keys", "secretary"].some(isSecretName)).toBe(false)
  })
})
