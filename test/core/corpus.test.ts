import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { classify } from "../../src/classify/classify.js"
import { categories, rateLimitKinds } from "../../src/classify/Event.js"
import { parseRecord } from "../../src/parse/parse.js"
import type { LabelledRecord } from "../../bench/eval.js"

type Sample = LabelledRecord

const CORPUS = new URL("../../fixtures/corpus/public.jsonl", import.meta.url)
const SHARED = new URL("../../../shared/corpus/public.jsonl", import.meta.url)

const readSamples = (url: URL): Sample[] =>
  readFileSync(url, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as Sample)

const samples = readSamples(CORPUS)

describe("corpus (fixtures/corpus/public.jsonl)", () => {
  it("is the shared corpus, when ../shared is present", () => {
    let shared: string | null = null
    try {
      shared = readFileSync(SHARED, "utf8")
    } catch {
      shared = null
    }
    if (shared !== null) expect(readFileSync(CORPUS, "utf8")).toBe(shared)
    expect(samples.length).toBeGreaterThanOrEqual(60)
  })

  it.each(samples.map((s) => [s.id, s] as const))("%s", (_id, s) => {
    const r = parseRecord(s.raw)
    expect(r._tag, JSON.stringify(r)).toBe("Failure")
    if (r._tag !== "Failure") return
    const c = classify(r.failure)
    expect(categories).toContain(c.category)
    expect(s.category, `category of ${JSON.stringify(r.failure)}`).toContain(c.category)
    expect(s.rateLimitKind, `kind of ${JSON.stringify(r.failure)}`).toContain(c.rateLimitKind)
    if (c.rateLimitKind !== null) expect(rateLimitKinds).toContain(c.rateLimitKind)
    expect(r.failure.status, "status").toBe(s.status)
    expect(r.failure.code, "code").toBe(s.code)
    expect(r.failure.model, "model").toBe(s.model)
    expect(c.fingerprint).toMatch(/^[0-9a-f]{16}$/)
    expect(Buffer.byteLength(r.sample, "utf8")).toBeLessThanOrEqual(4096)
  })
})
