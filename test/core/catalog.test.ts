/**
 * The provider catalogue (src/catalog) and the whole corpus it is measured on (fixtures/corpus):
 * every record read as `classify --records jsonl` reads it, the labels well-formed, every
 * catalogue entry backed by a real sample, and the accuracy of each part kept from falling.
 */
import { describe, expect, it } from "vitest"
import { allEntries, families, providerOfHost, providerOfText } from "../../src/catalog/index.js"
import { categories, rateLimitKinds } from "../../src/classify/Event.js"
import { recordToEvent } from "../../src/sources/pipeline.js"
import { evaluate, FIELDS, loadCorpus, partOf, share, type Field } from "../../bench/eval.js"

const corpus = loadCorpus()
const records = corpus.flatMap((f) => f.records.map((r) => ({ ...r, file: f.name })))
const ids = new Set(records.map((r) => r.id))

describe("the corpus", () => {
  it("has unique ids across files, and both parts", () => {
    expect(ids.size).toBe(records.length)
    const parts = records.map((r) => partOf(r.id))
    expect(parts.filter((p) => p === "holdout").length).toBeGreaterThan(records.length / 5)
    expect(parts.filter((p) => p === "tune").length).toBeGreaterThan(records.length / 2)
  })

  it.each(records.map((r) => [`${r.file} ${r.id}`, r] as const))("%s is labelled by the conventions and read without error", (_name, r) => {
    expect(typeof r.raw).toBe("string")
    expect(r.raw.length).toBeGreaterThan(0)
    if (r.ignore === true) {
      expect(r.category).toEqual([])
    } else {
      expect(r.category.length).toBeGreaterThan(0)
      for (const c of r.category) expect(categories).toContain(c)
      expect(r.rateLimitKind.length).toBeGreaterThan(0)
      for (const k of r.rateLimitKind) if (k !== null) expect(rateLimitKinds).toContain(k)
      // a kind is labelled exactly when rate_limit is accepted
      expect(r.rateLimitKind.some((k) => k !== null)).toBe(r.category.includes("rate_limit"))
      if (r.status !== null) expect(Number.isInteger(r.status) && r.status >= 100 && r.status <= 599).toBe(true)
    }
    const out = recordToEvent(r.raw, { source: "stdin", line: null, ingestedAt: "2026-11-21T12:00:00.000Z", explain: true })
    expect("event" in out || "ignored" in out).toBe(true)
    if ("event" in out) {
      expect(categories).toContain(out.event.category)
      expect(Buffer.byteLength(out.event.sample)).toBeLessThanOrEqual(4096)
      for (const ev of Object.values(out.explain ?? {})) if (ev !== null && "text" in ev) expect(ev.text.length).toBeLessThanOrEqual(200)
    }
  })
})

/**
 * Floors per part: neither part may fall below what it measured when these floors were set (a
 * point under it, for a record that moves between accepted answers). They are regression guards,
 * not the goals: the goals (category, status, kind >= 98%, code >= 95%, model >= 90% on the
 * holdout part) are printed by `npm run eval`, and on the 1159 records of 2026-11-25 (the wild2-,
 * wild3- and wild4- files added) the holdout part measured 92.1 / 92.7 / 94.7 / 92.7 / 91.8 %
 * (category / status / kind / code / model; not dropped 96.1 %), the tune part 99.1 / 98.7 / 99.6 /
 * 98.8 / 98.6 % (not dropped 99.1 %). With the wild9- to wild18- files (2166 records)
 * the holdout part measured 89.8 / 91.1 / 97.9 / 91.1 / 89.1 % (not dropped 92.6 %), the tune part
 * 96.8 / 96.4 / 99.4 / 95.8 / 96.0 % (not dropped 96.9 %): the new records are harder, and the
 * floors moved down with them. With wild19- (2344 records) the holdout part measures
 * 89.8 / 91.4 / 98.0 / 91.3 / 89.2 % (not dropped 92.7 %), the tune part 96.6 / 96.4 / 98.9 / 95.2 /
 * 95.8 % (not dropped 96.7 %). With wild20- (2487 records): holdout 89.6 / 91.2 / 97.4 / 90.9 /
 * 89.2 % (not dropped 92.4 %), tune 95.9 / 95.9 / 98.4 / 95.0 / 95.2 % (not dropped 96.2 %).
 * With wild21- (2620 records): holdout 89.4 / 90.7 / 96.3 / 90.8 / 88.5 % (not dropped 91.6 %),
 * tune 95.5 / 95.4 / 97.8 / 94.5 / 94.7 % (not dropped 96.0 %). With wild22- (2756 records), after
 * this session's fixes: holdout 90.2 / 91.0 / 95.8 / 91.4 / 89.3 % (not dropped 91.8 %), tune 95.4 /
 * 95.2 / 98.3 / 94.5 / 94.9 % (not dropped 95.8 %). With wild23- (2863 records): holdout 90.4 / 90.9 /
 * 96.0 / 90.9 / 89.5 % (not dropped 91.9 %), tune 95.3 / 95.0 / 98.1 / 94.4 / 94.6 % (not dropped 95.3 %).
 * With wild24- (2983 records: endpoints beyond chat and failures mid-stream, the hardest collection
 * yet): holdout 89.9 / 90.3 / 95.5 / 90.3 / 88.9 % (not dropped 91.3 %), tune 95.0 / 94.5 / 98.1 /
 * 94.0 / 94.2 % (not dropped 95.0 %); after the last fixes of that session holdout 90.0 / 90.4 / 95.5 /
 * 90.4 / 89.0 % (not dropped 91.5 %), tune 95.1 / 94.7 / 98.1 / 94.1 / 94.6 % (not dropped 95.1 %).
 */
const FLOORS: Record<"tune" | "holdout", Partial<Record<Field, number>>> = {
  tune: { ignored: 0.945, category: 0.945, status: 0.94, kind: 0.976, code: 0.935, model: 0.937 },
  holdout: { ignored: 0.908, category: 0.894, status: 0.898, kind: 0.95, code: 0.898, model: 0.884 }
}

describe("accuracy on the corpus (npm run eval)", () => {
  const ev = evaluate(corpus)
  it.each(["tune", "holdout"] as const)("the %s part stays at or above its floors", (part) => {
    const tally = ev.byPart[part]
    for (const f of FIELDS) {
      const floor = FLOORS[part][f]
      const got = share(tally.fields[f])
      if (floor === undefined || got === null) continue
      const misses = tally.misses.filter((m) => m.field === f).map((m) => `${m.id}: expected ${JSON.stringify(m.expected)}, got ${JSON.stringify(m.got)}`)
      expect(got, `${part} ${f}: ${(got * 100).toFixed(1)}% < ${floor * 100}%\n${part === "tune" ? misses.join("\n") : `${misses.length} misses`}`).toBeGreaterThanOrEqual(floor)
    }
  })
})

describe("the provider catalogue", () => {
  it("loads every family file, each with a slug id and entries", () => {
    expect(families.length).toBeGreaterThanOrEqual(2)
    for (const f of families) {
      expect(f.id).toMatch(/^[a-z0-9][a-z0-9-]*$/)
      expect(f.entries.length, f.id).toBeGreaterThan(0)
    }
  })

  it.each(allEntries.map((e) => [e.id, e] as const))("%s is backed by samples of the corpus", (_id, e) => {
    expect(e.id.startsWith(`${e.family}.`), `${e.id} names its family ${e.family}`).toBe(true)
    expect(e.samples.length).toBeGreaterThan(0)
    for (const s of e.samples) expect(ids.has(s), `sample ${s} of ${e.id} is not in fixtures/corpus`).toBe(true)
    if (e.rateLimitKind !== undefined) expect(e.category).toBe("rate_limit")
    if (e.match.message !== undefined) expect(e.match.message.flags).toContain("i")
  })

  it("tells the provider from an API host, the most specific suffix first", () => {
    expect(providerOfHost("api.siliconflow.cn")).toBe("siliconflow")
    expect(providerOfHost("example.com")).toBeNull()
    expect(providerOfText("POST https://api.siliconflow.cn/v1/chat/completions 429")?.provider).toBe("siliconflow")
    expect(providerOfText("nothing to see here")).toBeNull()
  })
})
