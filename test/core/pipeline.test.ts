import { readdirSync, readFileSync } from "node:fs"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { classify } from "../../src/classify/classify.js"
import { emptyFailure } from "../../src/parse/ParsedFailure.js"
import { parseLoose, parseLooseText, scanFields } from "../../src/parse/loose-json.js"
import { hasFailureSignal, ignoreReasons, parseRecord, parseStructured } from "../../src/parse/parse.js"
import { CALL_WORDS_RE, LineSignal, lineSignals, SERVICE_CODE_RE, SIGNAL_WORDS_RE } from "../../src/parse/lineSignals.js"
import { deterministicEventId, EVENT_ID_RE, newEventId, ulid } from "../../src/sources/ids.js"
import { classifyText, makeEvent, recordToEvent } from "../../src/sources/pipeline.js"

const ctx = { source: "file:/var/log/app.log", line: 7, ingestedAt: "2026-11-21T12:00:00.000Z" }

describe("ids", () => {
  it("makes ULID-shaped event ids, strictly increasing within one millisecond", () => {
    const ids = Array.from({ length: 1000 }, () => newEventId(1795255200000))
    for (const id of ids) expect(id).toMatch(EVENT_ID_RE)
    expect([...ids].sort()).toEqual(ids)
    expect(new Set(ids).size).toBe(ids.length)
    expect(ids[0].slice(4, 14)).toBe(ulid(1795255200000).slice(0, 10))
  })

  it("stays monotonic when the clock goes back", () => {
    const a = ulid(1795255200005)
    const b = ulid(1795255200001)
    expect(b > a).toBe(true)
  })

  it("derives a stable id from a key, so a replay of the same bytes gets the same id", () => {
    const a = deterministicEventId("dev:1234-ino:99:offset:4096", 1795255200000)
    expect(a).toMatch(EVENT_ID_RE)
    expect(deterministicEventId("dev:1234-ino:99:offset:4096", 1795255200000)).toBe(a)
    expect(deterministicEventId("dev:1234-ino:99:offset:4097", 1795255200000)).not.toBe(a)
    expect(deterministicEventId("dev:1234-ino:99:offset:4096", 1795255200001)).not.toBe(a)
  })

  it("hashes a key given in parts as their concatenation, and keeps the ids of earlier versions", () => {
    const record = '{"level":50,"status":429,"msg":"TPM limit reached 错误"}'
    const joined = deterministicEventId(`2049:77:4096:${record}`, 1795255200000)
    expect(deterministicEventId(["2049:77", ":4096:", record], 1795255200000)).toBe(joined)
    expect(deterministicEventId(["", "2049:77:4096:", "", record], 1795255200000)).toBe(joined)
    // pinned: the tailer's ids must not change between versions (a replay after an upgrade dedupes)
    expect(deterministicEventId("dev:1234-ino:99:offset:4096", 1795255200000)).toBe(PINNED_ID)
  })
})

/** deterministicEventId("dev:1234-ino:99:offset:4096", 1795255200000) as computed by the first release. */
const PINNED_ID = "evt_01M7YRRT804DP1RK274D836KNR"

describe("makeEvent / recordToEvent", () => {
  it("falls back to ingestedAt, the default service and a fresh id", () => {
    const parsed = { ...emptyFailure, status: 503, message: "System is too busy now." }
    const ev = makeEvent(parsed, "sample", classify(parsed), { ...ctx, defaultService: "chat-api" })
    expect(ev).toMatchObject({
      occurredAt: ctx.ingestedAt,
      ingestedAt: ctx.ingestedAt,
      service: "chat-api",
      source: ctx.source,
      line: 7,
      status: 503,
      category: "overload",
      rateLimitKind: null,
      sample: "sample"
    })
    expect(ev.id).toMatch(EVENT_ID_RE)
  })

  it("keeps what the record says and a given id", () => {
    const r = recordToEvent('{"time":1795255200000,"service":"tts","status":429,"body":{"code":50603,"message":"TPM limit reached","data":null}}', {
      ...ctx,
      id: "evt_given",
      defaultService: "other"
    })
    expect("event" in r && r.event).toMatchObject({ id: "evt_given", service: "tts", occurredAt: "2026-11-21T10:00:00.000Z", rateLimitKind: "TPM" })
  })

  it("reports why a record is ignored", () => {
    expect(recordToEvent("2026-11-21 INFO all good", ctx)).toEqual({ ignored: "no failure signal" })
    expect(recordToEvent("   ", ctx)).toEqual({ ignored: "empty" })
  })

  it("flags records the assembler cut", () => {
    const r = recordToEvent("HTTP 500 Internal Server Error", { ...ctx, truncated: true })
    expect("event" in r).toBe(true)
    expect(parseRecord("HTTP 500 Internal Server Error", { truncated: true })).toMatchObject({ failure: { truncated: true } })
  })
})

describe("classifyText", () => {
  it("numbers records by their first line and reports every record", () => {
    const text = [
      '{"level":30,"msg":"ok"}',
      "2026-11-21 10:00:00 ERROR chat failed: HTTP 429 {\"code\":50603,",
      '  "message":"Request was rejected due to rate limiting. Details: RPM limit reached.","data":null}',
      "",
      "HTTP/1.1 504 Gateway Time-out",
      "Content-Type: text/html",
      "",
      "<html><head><title>504 Gateway Time-out</title></head></html>"
    ].join("\r\n")
    const out = classifyText(text, "stdin", { ingestedAt: ctx.ingestedAt })
    expect(out.map((o) => ("event" in o ? [o.line, o.event.category, o.event.line] : [o.line, o.ignored]))).toEqual([
      [1, "no failure signal"],
      [2, "rate_limit", 2],
      [5, "overload", 5]
    ])
    const last = out[2]
    expect("event" in last && last.event).toMatchObject({ status: 504, bodyNotJson: true, message: "504 Gateway Time-out", source: "stdin" })
  })

  it("handles empty input and a last line without a newline", () => {
    expect(classifyText("", "stdin")).toEqual([])
    expect(classifyText("HTTP 401 Invalid token", "stdin").map((o) => o.line)).toEqual([1])
  })
})

describe("parseStructured (webhook objects)", () => {
  it("reads structured fields, with the body filling what they leave open", () => {
    const r = parseStructured({
      id: "evt_1",
      occurredAt: "2026-11-21T10:00:00Z",
      service: "chat-api",
      endpoint: "https://api.siliconflow.cn/v1/chat/completions?x=1",
      status: 429,
      body: { code: 50603, message: "Request was rejected due to rate limiting. Details: RPD limit reached.", data: null },
      model: "Qwen/Qwen2.5-7B-Instruct",
      requestId: "r-123456789",
      stream: true
    })
    expect(r).toMatchObject({
      _tag: "Failure",
      failure: {
        status: 429,
        code: 50603,
        message: "Request was rejected due to rate limiting. Details: RPD limit reached.",
        model: "Qwen/Qwen2.5-7B-Instruct",
        requestId: "r-123456789",
        occurredAt: "2026-11-21T10:00:00.000Z",
        service: "chat-api",
        endpoint: "/v1/chat/completions",
        stream: true
      }
    })
    if (r._tag === "Failure") expect(classify(r.failure).rateLimitKind).toBe("RPD")
  })

  it("lets structured fields win over the body and the raw text", () => {
    const r = parseStructured({ status: 403, code: 30003, message: "needs real-name", body: '{"code":1,"message":"other"}' })
    expect(r).toMatchObject({ failure: { status: 403, code: 30003, message: "needs real-name" } })
    const raw = parseStructured({ raw: "2026-11-21 10:00:00 ERROR HTTP 503 {\"code\":50508,\"message\":\"System is too busy now.\"}", service: "tts", model: "m/x-1" })
    expect(raw).toMatchObject({ failure: { status: 503, code: 50508, service: "tts", model: "m/x-1", occurredAt: "2026-11-21T10:00:00.000Z" } })
  })

  it("reads a raw record sent as `message` or `log` (Vector, Fluent Bit)", () => {
    const v = parseStructured({ message: "openai.APITimeoutError: Request timed out.", host: "node-1", timestamp: "2026-11-21T10:00:00Z" })
    expect(v).toMatchObject({ failure: { status: null, transportError: expect.any(String) } })
    const fb = parseStructured({ log: '{"level":50,"status":401,"body":"Invalid token"}\n', stream: "stderr" })
    expect(fb).toMatchObject({ failure: { status: 401, stream: null } })
  })

  it("takes `error` as transport error text", () => {
    const r = parseStructured({ error: "connect ECONNREFUSED 10.0.0.7:443", endpoint: "/v1/chat/completions" })
    expect(r).toMatchObject({ failure: { transportError: "ECONNREFUSED", endpoint: "/v1/chat/completions" } })
    if (r._tag === "Failure") expect(classify(r.failure).category).toBe("transport")
  })

  it("ignores objects that are not failed calls", () => {
    expect(parseStructured({})).toEqual({ _tag: "Ignored", reason: "empty" })
    expect(parseStructured({ status: 200, body: { ok: true } })).toEqual({ _tag: "Ignored", reason: "status < 400" })
    expect(parseStructured({ message: "user logged in" })).toEqual({ _tag: "Ignored", reason: "no failure signal" })
    const weird = parseStructured(null as unknown as Record<string, unknown>)
    expect(weird._tag).toBe("Ignored")
  })
})

describe("loose JSON", () => {
  it("reads Python dicts, JS object dumps and full-width punctuation", () => {
    expect(parseLooseText("{'error': {'message': 'x', 'param': None, 'ok': True, 'n': -1.5e2,}}")).toEqual({ error: { message: "x", param: null, ok: true, n: -150 } })
    expect(parseLooseText("{ status: 403, code: undefined, headers: { 'x-request-id': 'abc' } }")).toEqual({ status: 403, code: null, headers: { "x-request-id": "abc" } })
    expect(parseLooseText("{“message”：“限流”，'code'：429}")).toEqual({ message: "限流", code: 429 })
  })

  it("returns what was read of a body cut off mid-way", () => {
    const r = parseLoose('{ "error": { "code": "rate_limit_exceeded", "message": "Rate limit exceeded for images per minute. Cur')
    expect(r).toMatchObject({ complete: false, value: { error: { code: "rate_limit_exceeded", message: "Rate limit exceeded for images per minute. Cur" } } })
  })

  it("reads JSON nested inside a JSON string", () => {
    const outer = parseLooseText('{"error":{"message":"{\\n  \\"error\\": {\\n    \\"code\\": 503\\n  }\\n}\\n","code":503}}') as { error: { message: string } }
    expect(parseLooseText(outer.error.message)).toEqual({ error: { code: 503 } })
  })

  it("scans fields of a broken body linearly", () => {
    expect(scanFields('{["message"："Request was rejected. Details: RPH limit reached.","data":null)')).toMatchObject({ message: "Request was rejected. Details: RPH limit reached." })
    expect(scanFields('junk \\"code\\": 20012, \\"message\\": \\"Model does not exist\\"')).toMatchObject({ code: 20012, message: "Model does not exist" })
    expect(scanFields("Error code: 429 - nothing quoted")).toEqual({ code: null, message: null, type: null, status: null })
  })

  it("never throws, and stays linear on deep or long input", () => {
    const t0 = performance.now()
    for (const s of ["{".repeat(100_000), "[".repeat(100_000), '{"a":"' + "\\".repeat(100_001), "{'a': " + "1".repeat(100_000), "\u0000\uffff{"]) {
      expect(() => parseLoose(s)).not.toThrow()
      expect(() => parseLooseText(s)).not.toThrow()
      expect(() => scanFields(s)).not.toThrow()
    }
    expect(performance.now() - t0).toBeLessThan(2000)
  })
})

describe("ignore reasons", () => {
  it("come from a small closed set", () => {
    expect(ignoreReasons).toEqual(["empty", "no failure signal", "status < 400", "not an API call", "unreadable"])
  })
})

describe("the pre-filter (hasFailureSignal)", () => {
  // what the parser can read a failure from: the pre-filter must let it through
  it.each([
    ["a status line", "HTTP/1.1 503 Service Unavailable"],
    ["a status line of a curl dump", "< HTTP/2 429"],
    ["an access log status", '10.0.0.1 - - [21/Nov/2026:10:00:00 +0000] "POST /v1/chat/completions HTTP/1.1" 504 0'],
    ["status=", "upstream error status=500 body=..."],
    ["a JSON status", '{"level":50,"res":{"statusCode":503},"msg":"done"}'],
    ["a status inside escaped JSON", '{"log":"{\\"status\\":503}"}'],
    ["Error code:", "openai.APIStatusError: Error code: 529"],
    ["a reason phrase after the number", "got 402 Payment Required from the gateway"],
    ["a body after the number", 'upstream 400 {"code":20012,"message":"x","data":null}'],
    ["a line starting with the status", "429 Rate limit reached for requests"],
    ["a Chinese status word", "调用失败，状态码：403"],
    ["a failure word", "connect ECONNREFUSED 10.0.0.7:443"],
    ["a service body whatever its wording", '{"code":20015,"message":"The parameter is not right","data":null}'],
    ["a reason phrase alone", "Payment Required"],
    ["`got` before the number", "WARNING openai request got 429, backing off"],
    ["`received` before the number", "llm client received 503 for attempt 2"],
    ["`status was` before the number", "the upstream status was 502 after 30 s"],
    ["an access log without the HTTP version", "POST https://res1.openai.azure.com/openai/deployments/gpt4-eastus/chat/completions?api-version=2024-02-01 429"],
    ["a path and a status", "10:00:01 GET /v1/models 401 3ms"],
    ["an arrow before the status", "GET chat.qwen.ai → 503"],
    ["an ASCII arrow before the status", "upstream call -> 429 after 3 retries"],
    ["a UI's connection message", "Oops! There was an issue connecting to gpt-4o."],
    ["a provider out of reach", "Unable to reach the model provider."],
    ["a relay's per-key limit", "Key=sk-...xxxx over available RPM=0. Model RPM=10"],
    ["a UI's toast: the status, a colon, a message", "403: Acme Chat: Request Blocked"],
    ["a status after `upstream`", "upstream 502 for POST /v1/chat/completions (model=gpt-4o)"]
  ])("lets %s through", (_what, text) => {
    expect(hasFailureSignal(text)).toBe(true)
  })

  // ordinary records that used to reach the full parser for nothing
  it.each([
    ["the milliseconds of a timestamp", "2026-11-21 10:00:00,450 INFO  [scheduler] app.cron - tick 17"],
    ["a number in prose", "2026-11-21 10:00:00,120 WARN  [gc] runtime - heap used 456 MB of 2048 MB"],
    ["a count in parentheses", "processed batch 7 (423 items) in 12ms"],
    ["a Node.js async stack frame", "    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)"],
    ["a token count in JSON", '{"level":30,"promptTokens":450,"msg":"chat completion ok"}'],
    ["a size that is a number", "batch size was 500 rows"],
    ["a path and a count", "GET /v1/models took 450 ms"]
  ])("stops %s", (_what, text) => {
    expect(hasFailureSignal(text)).toBe(false)
  })
})

describe("the pre-filter's signals on bytes (lineSignals)", () => {
  const agrees = (text: string) => {
    const bytes = Buffer.from(`>${text}<`, "utf8")
    const signals = lineSignals(bytes, 1, bytes.length - 1)
    expect((signals & LineSignal.Word) !== 0, `words in ${JSON.stringify(text)}`).toBe(SIGNAL_WORDS_RE.test(text))
    expect((signals & LineSignal.ServiceCode) !== 0, `code in ${JSON.stringify(text)}`).toBe(SERVICE_CODE_RE.test(text))
    expect((signals & LineSignal.NonAscii) !== 0, `non-ASCII in ${JSON.stringify(text)}`).toBe(/[^\x00-\x7f]/.test(text))
    expect((signals & LineSignal.Call) !== 0, `call words in ${JSON.stringify(text)}`).toBe(CALL_WORDS_RE.test(text))
  }

  it.each([
    "POST /v1/chat/completions", '{"model":"gpt-4o"}', "MODEL", "mode", "models/gemini-2.0-flash:generateContent", "/v1/messages",
    "/api/chat", "/apix/chat", "api/generate", "/model/anthropic.claude-v2/invoke", "/converse-stream", "/embeddings", "audio/speech",
    "v1/responses", "/rerank", "mod\u00e9l", "c\u00f6mpletions",
    "ECONNREFUSED", "Error", "err", "xerr", "er", "TLS", "tlsx", "tls_", "tls 1.3", "mtls", "processTicksAndRejections",
    "Rejection", "rejections!", "rejected", "timestamp", "Timeout", "TIMED OUT", "time-out", "timedout", "responseTime",
    "too many", "toomany", "real-name", "realname", "real name", "hang up", "SSL", "调用失败：限流", "错误err", "errör",
    "\u00ff\u00e9rr", "ti\u00adme", "payment required", "PAYMENT REQUIRED", "", "a", "again", "ag",
    '{"code":20012}', '{"code": 20012,', "code=50603", "code:\t\"30001\"", '\\"code\\":\\"50508\\"', "CODE: 20012", "code: 200123",
    "code: 2001", "errcode=40001", "code = 20012x", "code=20012_", "code\n: 20012", "code=12345é", "code:"
  ])("agrees with the regex on %j", (text) => agrees(text))

  it("agrees with the regex on random texts of word pieces, cases and non-ASCII characters", () => {
    const piece = fc.constantFrom(
      "err", "ERR", "Er", "r", "tim", "e", "Time", "out", "d", " ", "-", "_", "tls", "TL", "s", "reject", "ions", "Rejections",
      "ssl", "too", " many", " large", "real", "name", "hang", " up", "busy", "again", "é", "错误", "🙂", "\u00ff", "x", "4",
      "code", "Code", ":", "=", "\\", '"', "'", "\t", "20012", "5", "model", "Mode", "l", "/", "v1", "completions", "api", "chat",
      "messages", "invoke", "generate", "Content"
    )
    fc.assert(fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => agrees(pieces.join(""))), { numRuns: 2000 })
    fc.assert(fc.property(fc.string({ unit: "binary", maxLength: 40 }), (text) => agrees(text)), { numRuns: 2000 })
  })

  it("agrees with the regex on every line of the corpus and the fixtures", () => {
    const dir = new URL("../../fixtures/", import.meta.url)
    const files = readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile())
    let lines = 0
    for (const f of files) {
      for (const line of readFileSync(`${f.parentPath}/${f.name}`, "utf8").split("\n")) {
        agrees(line)
        lines++
      }
    }
    expect(lines).toBeGreaterThan(500)
  })
})

describe("a success that is not one, and a failure after a success", () => {
  it("takes an HTTP 200 whose body carries the API's own error code as a failed call (Qianfan, MiniMax)", () => {
    const r = parseRecord('HTTP/1.1 200 OK\nContent-Type: application/json\n\n{"error_code": 18, "error_msg": "Open api qps request limit reached"}')
    expect(r._tag).toBe("Failure")
    if (r._tag === "Failure") expect(r.failure).toMatchObject({ status: 200, code: 18 })
  })

  it("still ignores a 200 whose body says success, or that has no error code", () => {
    for (const line of [
      '{"level":30,"msg":"chat ok","status":200,"body":{"code":0,"message":"success","data":{"id":"x"}}}',
      '{"level":30,"msg":"chat ok","status":200,"body":{"code":"OK","message":"done"}}',
      'HTTP/1.1 200 OK\nContent-Type: application/json\n\n{"id":"chatcmpl-1","object":"chat.completion","choices":[]}'
    ]) {
      expect(parseRecord(line)._tag, line).toBe("Ignored")
      // the same past the pre-filter
      expect(parseRecord(line, { prefiltered: true }), line).toMatchObject({ _tag: "Ignored", reason: "status < 400" })
    }
  })

  it("reads the failure's status in a record that shows an access-log 200 before it", () => {
    const r = parseRecord([
      "INFO:server:Requesting inference from meta-llama/Llama-3-8b on huggingface",
      'INFO:werkzeug:127.0.0.1 - - [24/Apr/2026 23:37:51] "POST /api/inference HTTP/1.1" 200 -',
      "ERROR:server:Error: Request failed: 503 Service Unavailable"
    ].join("\n"))
    expect(r._tag).toBe("Failure")
    if (r._tag === "Failure") expect(r.failure.status).toBe(503)
  })
})
