/**
 * The record memo (src/sources/recordMemo.ts) answers a record of a known template from memory.
 * It must answer exactly what a fresh parse and classification would: checked on every record
 * of the corpus and on variants of each with its times, ids and durations changed, on a storm,
 * and where a slot does decide (a code written as a long number), where it must give up.
 */
import { describe, expect, it } from "vitest"
import { loadCorpus } from "../../bench/eval.js"
import { classify } from "../../src/classify/classify.js"
import { setClassifyRules } from "../../src/classify/rules.js"
import { parseRecord, redactRecord, type RedactedRecord } from "../../src/parse/parse.js"
import { recordTemplate, SlotKind } from "../../src/parse/template.js"
import { type Decided, RecordMemo, sameDecision } from "../../src/sources/recordMemo.js"

const fresh = (text: string): Decided => {
  const parsed = parseRecord(text)
  return { parsed, verdict: parsed._tag === "Failure" ? classify(parsed.failure) : null }
}

const redacted = (text: string): RedactedRecord => {
  const r = redactRecord(text)
  if ("_tag" in r) throw new Error(`not a candidate: ${text}`)
  return r
}

/** A small deterministic generator (the same variants every run). */
const rng = (seed: number) => () => {
  seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff
  return seed / 0x7fffffff
}

/** The record with some of its slot texts changed: digits for digits, hex letters for hex letters, in words holding a digit. */
const variantOf = (text: string, r: () => number): string | null => {
  const t = recordTemplate(text)
  if (t === null || t.values.length === 0) return null
  const pick = (s: string) => s[Math.floor(r() * s.length)]!
  const mutate = (v: string) =>
    v.replace(/[0-9a-zA-Z]+/g, (w) =>
      /[0-9]/.test(w) ? w.replace(/[0-9a-fA-F]/g, (c) => (/[0-9]/.test(c) ? pick("0123456789") : /[a-f]/.test(c) ? pick("abcdef") : pick("ABCDEF"))) : w
    )
  let out = text
  for (const v of t.values) if (r() < 0.7) out = out.split(v).join(mutate(v))
  return out === text ? null : out
}

describe("record templates", () => {
  const slots = (text: string) => {
    const t = recordTemplate(text)!
    return t.values.map((v, i) => [v, t.kinds[i]] as const)
  }

  it("cut out times, epochs, ids and durations", () => {
    expect(slots(`2026-12-06 05:10:48,123 ERROR request_id=req-0001234-a3f9c1 took 452ms`)).toEqual([
      ["2026-12-06 05:10:48,123", SlotKind.Time],
      ["req-0001234-a3f9c1", SlotKind.Id],
      ["452", SlotKind.Duration]
    ])
    expect(slots(`{"time":1765000000123,"requestId":"abc-1","x-request-id": "550e8400-e29b-41d4-a716-446655440000"}`)).toEqual([
      ["1765000000123", SlotKind.Number],
      ["abc-1", SlotKind.Id],
      ["550e8400-e29b-41d4-a716-446655440000", SlotKind.Id]
    ])
    expect(slots(`at 0x7f3a9c0b1d20 (trace 0123456789abcdef) chatcmpl-AbCdEf0123456789xyz retry in 1.5s at 2026-12-06T05:10:48.123+08:00.`)).toEqual([
      ["0x7f3a9c0b1d20", SlotKind.Id],
      ["0123456789abcdef", SlotKind.Id],
      ["AbCdEf0123456789xyz", SlotKind.Id],
      ["1.5", SlotKind.Duration],
      ["2026-12-06T05:10:48.123+08:00", SlotKind.Time]
    ])
  })

  it("keep statuses, codes and model names in the key", () => {
    const text = `HTTP 429 {"code":50603} model=claude-3-5-sonnet-20241022 qwen2-72b mixtral-8x7b Error: 400API 404NotFound code=336003 user_id=7`
    expect(recordTemplate(text)).toEqual({ key: text, values: [], starts: [], kinds: [] })
  })

  it("take an IPv4 address, not its port, nor a version", () => {
    expect(slots(`connect ECONNREFUSED 10.0.2.216:443 (node v20.19.0, 1.2.3.4.5)`)).toEqual([["10.0.2.216", SlotKind.Id]])
  })

  it("give up on long records and on too many slots", () => {
    expect(recordTemplate("x".repeat(5000))).toBeNull()
    expect(recordTemplate(Array.from({ length: 40 }, (_, i) => `id=${1700000000000 + i}`).join(" "))).toBeNull()
  })
})

describe("the record memo", () => {
  const records = loadCorpus()
    .flatMap((f) => f.records)
    .map((r) => r.raw)

  it("answers every corpus record and its variants as a fresh parse does", () => {
    const memo = new RecordMemo()
    const r = rng(20261206)
    let compared = 0
    const wrong: string[] = []
    for (const text of records) {
      const texts = [text, text]
      for (let k = 0; k < 4; k++) {
        const v = variantOf(text, r)
        if (v !== null) texts.push(v)
      }
      for (const t of texts) {
        const red = redactRecord(t)
        if ("_tag" in red) continue
        const got = memo.decide(red, false)
        compared++
        if (!sameDecision(got, fresh(t))) wrong.push(t)
      }
    }
    expect(wrong.slice(0, 5)).toEqual([])
    expect(compared).toBeGreaterThan(records.length * 2)
    // not a vacuous check: most repeats and variants were answered from memory
    expect(memo.stats.answered).toBeGreaterThan(records.length)
    expect(memo.stats.wrong).toBe(0)
  })

  it("parses a storm's records once per template and slot", () => {
    const memo = new RecordMemo()
    const r = rng(7)
    const hex = (n: number) => Array.from({ length: n }, () => "0123456789abcdef"[Math.floor(r() * 16)]).join("")
    const lines: string[] = []
    for (let i = 0; i < 3000; i++) {
      const t = 1765000000000 + i * 97
      const ts = new Date(t).toISOString().replace("T", " ").replace("Z", "")
      const model = ["deepseek-ai/DeepSeek-V3", "Qwen/Qwen2.5-7B-Instruct", "gpt-4o"][i % 3]
      lines.push(
        i % 3 === 0
          ? JSON.stringify({ level: 50, time: t, status: 429, body: { code: 50603, message: "Request was rejected due to rate limiting. Details: TPM limit reached.", data: null }, model, requestId: `req-${hex(12)}` })
          : i % 3 === 1
            ? `${ts} ERROR app.client - request_id=req-${i}-${hex(6)} model=${model} HTTP 503 {"code":50508,"message":"System is too busy now. Please try again later.","data":null}`
            : `${ts} ERROR app.agent - openai.RateLimitError: Error code: 429 - {'error': {'message': 'Rate limit reached for ${model} on tokens per min (TPM): Limit 30000, Used 30000, Requested 1234. Please try again in ${Math.floor(r() * 900)}ms.', 'type': 'tokens', 'param': None, 'code': 'rate_limit_exceeded'}} (request_id=req_${hex(24)})`
      )
    }
    const seen = new Set<string>()
    for (const line of lines) {
      const got = memo.decide(redacted(line), false)
      expect(sameDecision(got, fresh(line))).toBe(true)
      if (got.parsed._tag === "Failure") seen.add(`${got.verdict!.category}/${got.verdict!.rateLimitKind}/${got.parsed.failure.occurredAt === null}`)
    }
    expect([...seen].sort()).toEqual(["overload/null/false", "rate_limit/TPM/false"])
    // 9 templates (3 shapes x 3 models), each parsed when new, when a slot first varies, and
    // at every 256th answer
    expect(memo.stats.parsed).toBeLessThan(lines.length * 0.05)
    expect(memo.stats.answered + memo.stats.parsed).toBe(lines.length)
  })

  it("gives up on a template whose slot decides, and answers each of its records fresh", () => {
    const memo = new RecordMemo()
    // a code written as a ten-digit number is a slot by its shape, but it is the record's code
    const line = (code: number) => `upstream failed: HTTP 500 {"error":{"code":${code},"message":"internal error"}}`
    for (const code of [1234567890, 1234567890, 9876543210, 5555555555, 1111111111]) {
      const got = memo.decide(redacted(line(code)), false)
      expect(sameDecision(got, fresh(line(code)))).toBe(true)
      expect(got.parsed._tag === "Failure" && got.parsed.failure.code).toBe(code)
    }
    expect(memo.stats.wrong).toBe(0)
  })

  it("never carries a secret from one record into another's answer", () => {
    const memo = new RecordMemo()
    const line = (id: string) => `2026-12-06 05:10:48,123 ERROR openai call failed id=${id} status=401 {"error":{"message":"Incorrect API key provided","code":"invalid_api_key"}}`
    const benign = ["a1b2c3d4e5f60718", "0f1e2d3c4b5a6978", "9a8b7c6d5e4f3021"]
    for (const id of benign) memo.decide(redacted(line(id)), false)
    for (const secret of ["sk-proj-a1b2c3d4e5f60718a1b2c3d4", "AKIAIOSFODNN7EXAMPLE", "ghp_a1b2c3d4e5f60718a1b2c3d4e5f60718a1b2"]) {
      const got = memo.decide(redacted(line(secret)), false)
      expect(got.parsed._tag).toBe("Failure")
      if (got.parsed._tag !== "Failure") continue
      expect(got.parsed.sample).not.toContain(secret)
      expect(JSON.stringify(got)).not.toContain(secret)
      expect(sameDecision(got, fresh(line(secret)))).toBe(true)
    }
  })

  it("stays bounded on a log of long records that never repeat", () => {
    const memo = new RecordMemo()
    const filler = "x".repeat(2500)
    for (let i = 0; i < 3000; i++) {
      // each record its own template (the words differ), each seen twice
      const line = `ERROR upstream ${i.toString(36)}q failed: HTTP 503 {"code":50508,"message":"System is too busy now. ${filler}"}`
      memo.decide(redacted(line), false)
      memo.decide(redacted(line), false)
      expect(memo.rememberedChars).toBeLessThanOrEqual(2_000_000)
    }
    expect(memo.size).toBeGreaterThan(100)
  })

  it("follows the classify rules when they change", () => {
    const memo = new RecordMemo()
    const line = (ms: number) => `${new Date(ms).toISOString()} ERROR HTTP 500 {"code":50500,"message":"The upstream model host is being redeployed"}`
    expect(memo.decide(redacted(line(1765000000000)), false).verdict?.category).toBe("server_error")
    expect(memo.decide(redacted(line(1765000001000)), false).verdict?.category).toBe("server_error")
    try {
      setClassifyRules([{ name: "redeploys are load", match: { status: 500, code: 50500 }, category: "overload" }])
      const got = memo.decide(redacted(line(1765000002000)), false)
      expect(got.verdict?.category).toBe("overload")
      expect(got.verdict?.decidedBy).toEqual({ kind: "rule", name: "redeploys are load" })
    } finally {
      setClassifyRules([])
    }
    expect(memo.decide(redacted(line(1765000003000)), false).verdict?.category).toBe("server_error")
  })
})
