import { readdirSync, readFileSync } from "node:fs"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { classify } from "../../src/classify/classify.js"
import { categories, rateLimitKinds } from "../../src/classify/Event.js"
import { RecordAssembler, type AssembledRecord } from "../../src/parse/assemble.js"
import { parseLoose, scanFields } from "../../src/parse/loose-json.js"
import type { ParseResult } from "../../src/parse/ParsedFailure.js"
import { ignoreReasons, parseRecord, parseStructured } from "../../src/parse/parse.js"
import { redact } from "../../src/parse/redact.js"
import { recordToEvent } from "../../src/sources/pipeline.js"
import { loadCorpus } from "../../bench/eval.js"

const NUM_RUNS = 300

/** Every record of the corpus (fixtures/corpus, all files and parts). */
const corpus: string[] = loadCorpus().flatMap((f) => f.records.map((r) => r.raw))
const shapesDir = new URL("../../fixtures/shapes/", import.meta.url)
const shapeLines: string[] = readdirSync(shapesDir)
  .filter((f) => f.endsWith(".log"))
  .flatMap((f) => readFileSync(new URL(f, shapesDir), "utf8").split("\n"))
const records = [...corpus, ...shapeLines.filter((l) => l.trim() !== "")]

/** A result is a Failure whose classification is valid, or an Ignored with a known reason. */
function assertValid(r: ParseResult): void {
  if (r._tag === "Ignored") {
    expect(ignoreReasons).toContain(r.reason)
    return
  }
  const c = classify(r.failure)
  expect(categories).toContain(c.category)
  if (c.rateLimitKind !== null) expect(rateLimitKinds).toContain(c.rateLimitKind)
  expect((c.category === "rate_limit") === (c.rateLimitKind !== null)).toBe(true)
  expect(c.fingerprint).toMatch(/^[0-9a-f]{16}$/)
  expect(Buffer.byteLength(r.sample, "utf8")).toBeLessThanOrEqual(4096)
}

const record = fc.constantFrom(...records)
const structural = fc.constantFrom("{", "}", "[", "]", '"', "'", "\\", ":", "：", ",", "\n", " ", "\t", "429 ", "HTTP/1.1 ", "<html>", "\u0000", "\ud800")

describe("fuzz: parse never throws", () => {
  it("random strings", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 2000 }), (s) => assertValid(parseRecord(s))),
      { numRuns: NUM_RUNS }
    )
  })

  it("random bytes decoded as UTF-8", () => {
    const decoder = new TextDecoder("utf-8")
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2000 }), (bytes) => assertValid(parseRecord(decoder.decode(bytes)))),
      { numRuns: NUM_RUNS }
    )
  })

  it("real records cut at any point", () => {
    fc.assert(
      fc.property(record, fc.nat(), (raw, n) => {
        const cut = raw.slice(0, n % (raw.length + 1))
        assertValid(parseRecord(cut))
        assertValid(parseRecord(cut, { truncated: true }))
      }),
      { numRuns: NUM_RUNS }
    )
  })

  it("real records spliced together", () => {
    fc.assert(
      fc.property(record, record, fc.nat(), fc.nat(), (a, b, i, j) => {
        assertValid(parseRecord(a.slice(0, i % (a.length + 1)) + b.slice(j % (b.length + 1))))
      }),
      { numRuns: NUM_RUNS }
    )
  })

  it("real records with structural characters inserted", () => {
    fc.assert(
      fc.property(record, fc.array(fc.tuple(fc.nat(), structural), { maxLength: 8 }), (raw, edits) => {
        let s = raw
        for (const [at, ch] of edits) {
          const k = at % (s.length + 1)
          s = s.slice(0, k) + ch + s.slice(k)
        }
        assertValid(parseRecord(s))
        expect(() => redact(s)).not.toThrow()
        expect(() => parseLoose(s, s.indexOf("{") === -1 ? 0 : s.indexOf("{"))).not.toThrow()
        expect(() => scanFields(s)).not.toThrow()
      }),
      { numRuns: NUM_RUNS }
    )
  })

  it("arbitrary webhook objects", () => {
    const obj = fc.record(
      {
        status: fc.oneof(fc.integer({ min: -1, max: 700 }), fc.string({ maxLength: 5 }), fc.constant(null)),
        code: fc.oneof(fc.integer(), fc.string({ maxLength: 20 }), fc.constant(null)),
        message: fc.oneof(fc.string({ maxLength: 200 }), record),
        body: fc.oneof(fc.jsonValue({ maxDepth: 3 }), record),
        error: fc.oneof(fc.string({ maxLength: 100 }), fc.jsonValue({ maxDepth: 2 })),
        raw: record,
        stream: fc.anything({ maxDepth: 1 })
      },
      { requiredKeys: [] }
    )
    fc.assert(
      fc.property(fc.oneof(obj, fc.object({ maxDepth: 3 })), (o) => assertValid(parseStructured(o))),
      { numRuns: NUM_RUNS }
    )
  })
})

describe("bounded time on adversarial input (a bound, not a benchmark)", () => {
  // inputs built to make the extractors' and the catalogue's patterns try every position:
  // each 1 MB record must be parsed, classified and explained well within the bound
  const MB = 1 << 20
  const adversarial: ReadonlyArray<readonly [string, string]> = [
    ["model words", "model ".repeat(MB / 6)],
    ["model paths", "models/a".repeat(MB / 8)],
    ["requests to", "requests to x for ".repeat(MB / 18)],
    ["status tokens", "UPSTREAM_5 exceeded (4".repeat(MB / 22)],
    ["kind words", "tokens per tokens per ".repeat(MB / 22)],
    ["quotes and braces", `{"error": {"message": "`.repeat(MB / 24)],
    ["error classes", "AI_APICallError: ".repeat(MB / 17)],
    ["urls", "https://a.".repeat(MB / 10)],
    ["catalogue words", "insufficient quota rate limit overloaded 余额不足 ".repeat(MB / 48)],
    ["429 then everything", "HTTP 429 " + "Too many tokens per minute model(x) ".repeat(MB / 36)]
  ]
  it.each(adversarial)("%s", (_name, text) => {
    const t0 = Date.now()
    const out = recordToEvent(text, { source: "stdin", line: null, ingestedAt: "2026-11-21T12:00:00.000Z", explain: true })
    expect("event" in out || "ignored" in out).toBe(true)
    expect(Date.now() - t0).toBeLessThan(15_000)
  })
})

describe("fuzz: the assembler never loses input", () => {
  const line = fc.oneof(
    fc.constantFrom(
      "",
      "   ",
      "{",
      "}",
      "[",
      '  "a": 1,',
      "HTTP/1.1 429 Too Many Requests",
      "Content-Type: application/json",
      "< HTTP/2 503",
      "<",
      "> POST /v1/chat/completions HTTP/2",
      "* Connection #0 left intact",
      "Traceback (most recent call last):",
      '  File "x.py", line 1, in <module>',
      "openai.RateLimitError: Error code: 429 - {",
      "ERROR:",
      "wrapped \\",
      'open "string',
      "<html>",
      "</html>",
      '{"level":30,"msg":"ok"}',
      "2026-11-21 10:00:00,000 INFO ok",
      "    at f (x.js:1:1)",
      "plain line"
    ),
    fc.string({ unit: "grapheme", maxLength: 120 }).map((s) => s.replace(/[\r\n]/g, " "))
  )

  it("covers every non-blank line exactly once, in order, with exact offsets", () => {
    fc.assert(
      fc.property(fc.array(line, { maxLength: 150 }), (lines) => {
        const a = new RecordAssembler()
        const out: AssembledRecord[] = []
        const starts: number[] = []
        let offset = 0
        lines.forEach((l, i) => {
          starts.push(offset)
          const bytes = Buffer.byteLength(l, "utf8") + 1
          out.push(...a.push(l, i + 1, offset, offset + bytes))
          offset += bytes
          const resume = a.resumePoint()
          if (resume !== null) expect(resume.offset).toBe(starts[resume.line - 1])
        })
        out.push(...a.flush())
        expect(a.resumePoint()).toBeNull()

        const covered = new Array<boolean>(lines.length).fill(false)
        let next = 1
        for (const r of out) {
          expect(r.line).toBeGreaterThanOrEqual(next)
          expect(r.truncated).toBe(false)
          const own = lines.slice(r.line - 1, r.line - 1 + r.lineCount)
          expect(r.text.split("\n")).toEqual(own)
          expect(r.startOffset).toBe(starts[r.line - 1])
          const lastLine = r.line - 1 + r.lineCount - 1
          expect(r.endOffset).toBe(starts[lastLine] + Buffer.byteLength(lines[lastLine], "utf8") + 1)
          for (let k = r.line - 1; k <= lastLine; k++) covered[k] = true
          next = r.line + r.lineCount
        }
        lines.forEach((l, k) => {
          if (!covered[k]) expect(l.trim()).toBe("")
        })
      }),
      { numRuns: NUM_RUNS }
    )
  })
})
