/**
 * Hostile input for the pure half of `POST /v1/events` (CONTRACT section 6): `bodyFormatOf`,
 * `decodeBody`, `checkRecord` and `eventsOfBody` take any text or JSON value without throwing,
 * and account for every item exactly once: an event, an ignored record, or a rejection that
 * names the item's index and a reason.
 */
import { Either } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { REJECTED_LISTED, eventsOfBody } from "../../src/http/ingestRoute.js"
import { HttpFailure } from "../../src/http/respond.js"
import { bodyFormatOf, checkCallsPost, checkRecord, decodeBody, isCallsPost, type BodyItem } from "../../src/sources/webhook/decode.js"

const NUM_RUNS = 200
const NOW = "2026-11-21T10:00:00.000Z"

// ---------------------------------------------------------------------------------------------
// generators

/** Strings of any UTF-16 units (lone surrogates, NUL, control characters included). */
const anyText = fc.string({ unit: "binary", maxLength: 300 })
/** Text made of JSON's own punctuation, so that it is often almost JSON. */
const jsonish = fc
  .array(fc.constantFrom("{", "}", "[", "]", '"', ":", ",", "\\", "\n", "\r\n", " ", "1", "-", "e9", "1e400", "null", "true", '"status"', '"raw"', "\u0000", "\ud800", "\uffff"), { maxLength: 80 })
  .map((parts) => parts.join(""))
const bodyText = fc.oneof(anyText, jsonish, fc.jsonValue().map((v) => JSON.stringify(v)))

/** Values shaped like ingest records, with fields of the right and of the wrong type. */
const fieldValue = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.integer({ min: -1000, max: 1000 }),
  fc.constantFrom(100, 399, 400, 429, 500, 503, 599, 600, 500.5, -500, 1e308, Number.MAX_SAFE_INTEGER),
  fc.string({ maxLength: 40 }),
  fc.constant("x".repeat(70_000))
)
const recordLike = fc.dictionary(
  fc.oneof(
    fc.constantFrom("id", "occurredAt", "service", "endpoint", "status", "body", "code", "message", "model", "requestId", "stream", "error", "raw", "log", "timestamp"),
    fc.string({ maxLength: 12 })
  ),
  fieldValue,
  { maxKeys: 8 }
)
const itemValue = fc.oneof({ weight: 3, arbitrary: recordLike }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) })

/** A depth-`n` nesting built as text (recursion-free), e.g. `[[[...]]]` or `{"a":{"a":...}}`. */
const nestedArrays = (n: number): string => "[".repeat(n) + "]".repeat(n)
const nestedObjects = (n: number, leaf = "1"): string => '{"a":'.repeat(n) + leaf + "}".repeat(n)

// ---------------------------------------------------------------------------------------------
// oracles

const isItems = (d: ReturnType<typeof decodeBody>): d is Extract<ReturnType<typeof decodeBody>, { _tag: "Items" }> => d._tag === "Items"

/** Indices an item list must reject: decoding errors and records `checkRecord` refuses. */
const expectedRejections = (items: ReadonlyArray<BodyItem>): number[] =>
  items
    .filter((item) => "error" in item || Either.isLeft(isCallsPost(item.value) ? checkCallsPost(item.value) : checkRecord(item.value)))
    .map((item) => item.index)

/** `eventsOfBody` accounts for every item of `decodeBody` exactly once. */
const assertAccounted = (format: "json" | "ndjson", text: string): void => {
  const decoded = decodeBody(format, text)
  const out = eventsOfBody(format, text, NOW)
  if (out instanceof HttpFailure) {
    expect(decoded._tag).toBe("BadJson")
    expect(out.status).toBe(400)
    expect(out.code).toBe("bad_json")
    expect(out.message.length).toBeGreaterThan(0)
    return
  }
  if (!isItems(decoded)) throw new Error("decodeBody said BadJson but eventsOfBody answered")
  const rejected = out.rejected.map((r) => r.index)
  const expected = expectedRejections(decoded.items)
  // the first 100 are listed, all are counted
  expect(rejected).toEqual(expected.slice(0, REJECTED_LISTED))
  expect(out.rejectedCount).toBe(expected.length)
  expect(new Set(rejected).size).toBe(rejected.length)
  for (const r of out.rejected) {
    expect(typeof r.error).toBe("string")
    expect(r.error.trim().length).toBeGreaterThan(0)
  }
  expect(out.events.length + out.counted + out.ignored + out.rejectedCount + out.posts.length).toBe(decoded.items.length)
  for (const e of out.events) {
    expect(e.source).toBe("webhook")
    expect(e.ingestedAt).toBe(NOW)
    expect(typeof e.id).toBe("string")
  }
}

// ---------------------------------------------------------------------------------------------

describe("bodyFormatOf", () => {
  it("never throws and answers json, ndjson or null for any content type", () => {
    fc.assert(
      fc.property(fc.option(fc.oneof(anyText, fc.string()), { nil: undefined }), (ct) => {
        expect([null, "json", "ndjson"]).toContain(bodyFormatOf(ct))
      }),
      { numRuns: 1000 }
    )
  })

  it.each([
    ["application/json", "json"],
    ["application/problem+json", "json"],
    ["application/x-ndjson", "ndjson"],
    ["application/ndjson", "ndjson"],
    ["application/jsonlines", "ndjson"],
    ["application/x-jsonlines", "ndjson"],
    ["application/json-seq", "ndjson"]
  ] as const)("reads %s whatever its case, surrounding spaces and parameters", (ct, format) => {
    fc.assert(
      fc.property(
        fc.array(fc.boolean(), { minLength: ct.length, maxLength: ct.length }),
        fc.constantFrom("", " ", "\t", "  "),
        fc.constantFrom("", ";charset=utf-8", "; charset=UTF-8", ";;", "; boundary=x; q=1", ";\u0000"),
        (upper, pad, params) => {
          const cased = [...ct].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join("")
          expect(bodyFormatOf(`${pad}${cased}${pad}${params}`)).toBe(format)
        }
      ),
      { numRuns: 100 }
    )
  })

  it.each([undefined, "", "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/jsonx", "json", "application/ json"])(
    "refuses %j (415 on the route)",
    (ct) => {
      expect(bodyFormatOf(ct)).toBeNull()
    }
  )
})

describe("decodeBody", () => {
  it("never throws on any text, in either format; a broken JSON body is one BadJson with a reason", () => {
    fc.assert(
      fc.property(bodyText, (text) => {
        for (const format of ["json", "ndjson"] as const) {
          const d = decodeBody(format, text)
          if (d._tag === "BadJson") {
            expect(format).toBe("json")
            expect(d.message.length).toBeGreaterThan(0)
          } else {
            for (const item of d.items) if ("error" in item) expect(item.error.length).toBeGreaterThan(0)
          }
        }
      }),
      { numRuns: 1000 }
    )
  })

  it("json: an array gives one item per element, in order, indexed 0..n-1; anything else is item 0", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const d = decodeBody("json", JSON.stringify(v))
        if (!isItems(d)) throw new Error(d.message)
        const expected = Array.isArray(v) ? v : [v]
        expect(d.items.map((i) => i.index)).toEqual(expected.map((_, i) => i))
        // JSON.stringify turns -0 into 0: compare what went over the wire
        expect(d.items.map((i) => ("value" in i ? JSON.stringify(i.value) : i.error))).toEqual(expected.map((x) => JSON.stringify(x)))
      }),
      { numRuns: NUM_RUNS }
    )
  })

  it("ndjson: items are the non-blank lines in order, indexed 0..k-1; a broken line is an error item, not a failure of the body", () => {
    const line = fc.oneof(
      fc.jsonValue().map((v) => JSON.stringify(v)),
      fc.constantFrom("", " ", "\t", "\r", "   \r"),
      jsonish.map((s) => s.replace(/\r?\n/g, " ")),
      anyText.map((s) => s.replace(/\n/g, " "))
    )
    fc.assert(
      fc.property(fc.array(line, { maxLength: 30 }), fc.constantFrom("\n", "\r\n"), fc.boolean(), (lines, sep, trailing) => {
        const text = lines.join(sep) + (trailing ? sep : "")
        const d = decodeBody("ndjson", text)
        if (!isItems(d)) throw new Error("ndjson never fails as a whole")
        const nonBlank = text.split("\n").map((l) => l.trim()).filter((l) => l.length > 0)
        expect(d.items.map((i) => i.index)).toEqual(nonBlank.map((_, i) => i))
        d.items.forEach((item, i) => {
          let parsed: { ok: true; value: unknown } | { ok: false }
          try {
            parsed = { ok: true, value: JSON.parse(nonBlank[i]!) }
          } catch {
            parsed = { ok: false }
          }
          if (parsed.ok) expect("value" in item && JSON.stringify(item.value)).toBe(JSON.stringify(parsed.value))
          else expect("error" in item && item.error).toMatch(/JSON/)
        })
      }),
      { numRuns: NUM_RUNS }
    )
  })

  it.each([
    ["[[[...]]] of depth 10k", () => nestedArrays(10_000)],
    ['{"a":{"a":...}} of depth 10k', () => nestedObjects(10_000)],
    ["an array of 200k numbers", () => JSON.stringify(Array.from({ length: 200_000 }, (_, i) => i))],
    ["an object of 100k keys", () => JSON.stringify(Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`k${i}`, i])))],
    ["numbers that overflow", () => '{"status": 1e400, "code": 123456789012345678901234567890, "x": -1e400}'],
    ["a NUL escaped in a string", () => '{"message": "a\\u0000b"}'],
    ["a lone surrogate escaped in a string", () => '{"message": "a\\ud800b"}']
  ])("json: %s decodes without throwing", (_, make) => {
    const text = make()
    const d = decodeBody("json", text)
    expect(d._tag).toBe("Items")
    expect(decodeBody("ndjson", text)._tag).toBe("Items")
  })

  it.each([
    ["an unfinished 10k-deep array", () => "[".repeat(10_000)],
    ["a raw NUL inside a string", () => '{"message": "a\u0000b"}'],
    ["a raw newline inside a string", () => '{"message": "a\nb"}'],
    ["text after the value", () => '{"status": 500} {"status": 500}'],
    ["nothing", () => ""],
    ["only spaces", () => " \n\t "]
  ])("json: %s is one BadJson with a reason", (_, make) => {
    const d = decodeBody("json", make())
    expect(d._tag).toBe("BadJson")
    if (d._tag === "BadJson") expect(d.message).toMatch(/JSON/)
  })
})

describe("checkRecord", () => {
  it("never throws on any JSON value; refuses non-objects and wrongly typed fields with a non-empty reason", () => {
    fc.assert(
      fc.property(fc.oneof(itemValue, fc.jsonValue()), (v) => {
        const r = checkRecord(v)
        if (Either.isLeft(r)) {
          expect(typeof r.left).toBe("string")
          expect(r.left.trim().length).toBeGreaterThan(0)
        } else {
          expect(typeof v === "object" && v !== null && !Array.isArray(v)).toBe(true)
        }
        if (typeof v !== "object" || v === null || Array.isArray(v)) expect(Either.isLeft(r)).toBe(true)
      }),
      { numRuns: 1000 }
    )
  })

  it.each([
    ["status as a float", { status: 500.5 }, /status/],
    ["status negative", { status: -500 }, /status/],
    ["status out of range", { status: 600 }, /status/],
    ["status as a string", { status: "500" }, /status/],
    ["status overflowing to Infinity", JSON.parse('{"status": 1e400}'), /status/],
    ["code past the integers", JSON.parse('{"code": 123456789012345678901234567890}'), /code/],
    ["an id of 10 KB", { id: "i".repeat(10_000) }, /id/],
    ["an empty id", { id: "" }, /id/],
    ["stream as a string", { stream: "yes" }, /stream/],
    ["message as an object", { message: { text: "x" } }, /message/]
  ])("rejects %s, naming the field", (_, value, field) => {
    const r = checkRecord(value)
    expect(Either.isLeft(r)).toBe(true)
    if (Either.isLeft(r)) expect(r.left).toMatch(field)
  })

  it.each([
    ["a deeply nested body", () => JSON.parse(`{"status": 500, "body": ${nestedObjects(10_000)}}`)],
    ["a deeply nested shipper field", () => JSON.parse(`{"status": 500, "kubernetes": ${nestedArrays(10_000)}}`)],
    ["100k extra keys", () => ({ status: 500, ...Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`k${i}`, i])) })]
  ])("accepts %s (unknown fields are the shipper's)", (_, make) => {
    expect(Either.isRight(checkRecord(make()))).toBe(true)
  })
})

describe("eventsOfBody", () => {
  it("accounts for every item of a JSON array exactly once (event, ignored, or rejected with its index)", () => {
    fc.assert(
      fc.property(fc.array(itemValue, { maxLength: 12 }), (items) => assertAccounted("json", JSON.stringify(items))),
      { numRuns: NUM_RUNS }
    )
  })

  it("accounts for every line of an NDJSON body exactly once, broken lines included", () => {
    const line = fc.oneof(
      { weight: 4, arbitrary: itemValue.map((v) => JSON.stringify(v)) },
      { weight: 1, arbitrary: jsonish.map((s) => s.replace(/\n/g, " ")) },
      { weight: 1, arbitrary: fc.constantFrom("", "   ", "\r") }
    )
    fc.assert(
      fc.property(fc.array(line, { maxLength: 12 }), (lines) => assertAccounted("ndjson", lines.join("\n"))),
      { numRuns: NUM_RUNS }
    )
  })

  it("never throws on arbitrary text in either format", () => {
    fc.assert(
      fc.property(bodyText, (text) => {
        assertAccounted("json", text)
        assertAccounted("ndjson", text)
      }),
      { numRuns: 500 }
    )
  })

  it.each([
    ["[[[...]]] of depth 10k", () => nestedArrays(10_000)],
    ['{"a":{"a":...}} of depth 10k', () => nestedObjects(10_000)],
    ["a record with 100k keys", () => JSON.stringify({ status: 500, message: "boom", ...Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`k${i}`, i])) })],
    ["50k records that are not objects", () => JSON.stringify(Array.from({ length: 50_000 }, (_, i) => i))],
    ["5k failure records", () => JSON.stringify(Array.from({ length: 5000 }, (_, i) => ({ status: 429, message: `Rate limit reached (TPM) #${i}` })))],
    ["overflowing numbers", () => '[{"status": 1e400}, {"code": 123456789012345678901234567890, "status": 500}, {"status": 500, "occurredAt": 1e400}]']
  ])("json: %s is accounted for without throwing", (_, make) => {
    assertAccounted("json", make())
  })

  it("ndjson: rejected indices are the indices among non-blank lines", () => {
    const text = ["", '{"status": 500, "message": "Internal error"}', "   ", "{broken", "", '"a string"', '{"status": "x"}', "\r", '{"status": 503, "message": "busy"}', ""].join("\n")
    const out = eventsOfBody("ndjson", text, NOW)
    if (out instanceof HttpFailure) throw out
    expect(out.rejected.map((r) => r.index)).toEqual([1, 2, 3])
    expect(out.rejected[0]!.error).toMatch(/JSON/)
    expect(out.rejected[1]!.error).toMatch(/object/)
    expect(out.rejected[2]!.error).toMatch(/status/)
    expect(out.events.map((e) => e.status)).toEqual([500, 503])
  })

  it("a 64 KB+ message is kept, with the message cut to its limit (not refused)", () => {
    const out = eventsOfBody("json", JSON.stringify([{ status: 500, message: "ok" }, { status: 500, message: "m".repeat(70_000) }]), NOW)
    if (out instanceof HttpFailure) throw out
    expect(out.rejected).toEqual([])
    expect(out.events).toHaveLength(2)
    expect(out.events[1]!.message!.length).toBeLessThanOrEqual(4096)
  })

  it("a rejection reason does not echo a secret the rejected value held, nor does a kept event", () => {
    const secret = "sk-proj-ECHOED0123456789abcdefABCDEF"
    const out = eventsOfBody(
      "json",
      JSON.stringify([
        { status: `Bearer ${secret}` },
        { status: 500, code: `${secret} ${"c".repeat(300)}` },
        { status: 500, message: `api_key=${secret} ${"m".repeat(70_000)}` }
      ]),
      NOW
    )
    if (out instanceof HttpFailure) throw out
    expect(out.rejected).toHaveLength(2)
    for (const r of out.rejected) expect(r.error).not.toContain(secret.slice(8))
    expect(out.events).toHaveLength(1)
    expect(JSON.stringify(out.events[0])).not.toContain(secret.slice(8))
  })

  // -------------------------------------------------------------------------------------------
  // Product bugs (see the report): each contradicts CONTRACT section 3 (a status >= 400 is a
  // failed call) or section 5 (secrets and chat messages never leave the parser).

  it("a 500 record whose extra field nests 10k deep is stored or rejected, not silently ignored", () => {
    // parseStructured round-trips the record through JSON.stringify, which overflows the stack
    // at this depth; the RangeError is swallowed as Ignored("unreadable") and a 500 is lost.
    const text = `[{"status": 500, "message": "Internal error", "body": ${nestedObjects(10_000)}}]`
    const out = eventsOfBody("json", text, NOW)
    if (out instanceof HttpFailure) throw out
    expect(out.events.length + out.rejected.length).toBe(1)
  })

  it("a 401 record whose authorization header is null, an array, a number or an object is still stored", () => {
    // redact() on the serialized record turns `"authorization":null` into `"authorization":<redacted>`
    // (invalid JSON); the JSON.parse that follows throws and the failure is ignored as unreadable.
    const records = [
      { status: 401, message: "Invalid token", request: { headers: { authorization: null } } },
      { status: 401, message: "Invalid token", headers: { "x-api-key": ["k-0123456789"] } },
      { status: 401, message: "Invalid token", "x-api-key": 123456789 },
      { status: 401, message: "Invalid token", authorization: { scheme: "Bearer" } }
    ]
    const out = eventsOfBody("json", JSON.stringify(records), NOW)
    if (out instanceof HttpFailure) throw out
    expect({ events: out.events.length, ignored: out.ignored }).toEqual({ events: 4, ignored: 0 })
  })

  it("a raw record holding a log line with an escaped JSON request keeps its keys and messages out of the sample", () => {
    // The tailer redacts this line (parseRecord); the webhook does not: parseStructured runs
    // redact/stripMessages on JSON.stringify(record), where the line's \" became \\\", and then
    // samples the raw string taken back out of it.
    const line = JSON.stringify({
      level: 50,
      msg: "openai call failed",
      status: 401,
      request: JSON.stringify({ headers: { "x-api-key": "XKEY-0123456789abcdef" }, password: "PASSWORD-0123456789", messages: [{ role: "user", content: "MY-PRIVATE-PROMPT-0123" }] })
    })
    const out = eventsOfBody("json", JSON.stringify([{ message: line, host: "web-1" }]), NOW)
    if (out instanceof HttpFailure) throw out
    expect(out.events).toHaveLength(1)
    for (const secret of ["XKEY-0123456789abcdef", "PASSWORD-0123456789", "MY-PRIVATE-PROMPT-0123"]) expect(out.events[0]!.sample).not.toContain(secret)
  })
})

describe("answers stay small whatever the body", () => {
  it("a body of 500 k numbers is answered with the first 100 rejections and a count of all", () => {
    const text = "[" + Array.from({ length: 500_000 }, (_, i) => i % 10).join(",") + "]"
    const out = eventsOfBody("json", text, NOW)
    if (out instanceof HttpFailure) throw new Error(out.message)
    expect(out.rejected).toHaveLength(REJECTED_LISTED)
    expect(out.rejectedCount).toBe(500_000)
    expect(out.rejected[99]!.index).toBe(99)
    expect(JSON.stringify(out.rejected).length).toBeLessThan(20_000)
  })
})
