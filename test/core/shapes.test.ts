import { readdirSync, readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import type { FailureEvent } from "../../src/classify/Event.js"
import { classifyText } from "../../src/sources/pipeline.js"

/**
 * One fixture file per shape family (fixtures/shapes/<family>.log) and its expectations
 * (<family>.expect.json): the events found, keyed by the record's first line, with the fields
 * they must carry; the lines that must be ignored, with the reason; strings that must not
 * appear anywhere in the output (secrets, chat contents).
 */
interface Expectation {
  readonly events: ReadonlyArray<Partial<FailureEvent> & { readonly line: number }>
  readonly ignored: Readonly<Record<string, string>>
  readonly absent?: ReadonlyArray<string>
}

const DIR = new URL("../../fixtures/shapes/", import.meta.url)
const families = readdirSync(DIR)
  .filter((f) => f.endsWith(".log"))
  .map((f) => f.slice(0, -4))
  .sort()

describe("shape families (fixtures/shapes)", () => {
  it("has the families the contract names", () => {
    for (const f of [
      "pino", "winston", "bunyan", "structlog", "vector-fluentbit", "text-embedded", "logfmt", "python-sdk", "node-sdk",
      "litellm", "curl-i", "curl-v", "html-gateway", "chinese", "transport", "ordinary", "service-errors"
    ]) {
      expect(families).toContain(f)
    }
  })

  describe.each(families)("%s", (family) => {
    const text = readFileSync(new URL(`${family}.log`, DIR), "utf8")
    const expected = JSON.parse(readFileSync(new URL(`${family}.expect.json`, DIR), "utf8")) as Expectation
    const source = `file:/var/log/app/${family}.log`
    const out = classifyText(text, source, { ingestedAt: "2026-11-21T12:00:00.000Z" })
    const events = out.flatMap((o) => ("event" in o ? [o.event] : []))

    it("finds exactly the expected failed calls", () => {
      expect(events.map((e) => e.line)).toEqual(expected.events.map((e) => e.line))
    })

    it.each(expected.events.map((e) => [e.line, e] as const))("line %i carries the expected fields", (line, exp) => {
      const ev = events.find((e) => e.line === line)
      expect(ev, `no event at line ${line}`).toBeDefined()
      if (ev === undefined) return
      const { message, ...rest } = exp
      expect(ev).toMatchObject(rest)
      if (message !== undefined) expect(ev.message).toBe(message)
      expect(ev.source).toBe(source)
      expect(ev.id).toMatch(/^evt_[0-9A-HJKMNP-TV-Z]{26}$/)
      expect(ev.fingerprint).toMatch(/^[0-9a-f]{16}$/)
      expect(ev.action.length).toBeGreaterThan(10)
      if (ev.category !== "rate_limit") expect(ev.rateLimitKind).toBeNull()
      else expect(ev.rateLimitKind).not.toBeNull()
      expect(Buffer.byteLength(ev.sample, "utf8")).toBeLessThanOrEqual(4096)
    })

    it("ignores the ordinary records with the expected reason", () => {
      const ignored = Object.fromEntries(out.flatMap((o) => ("ignored" in o ? [[String(o.line), o.ignored]] : [])))
      for (const [line, reason] of Object.entries(expected.ignored)) expect(ignored[line], `line ${line}`).toBe(reason)
    })

    it("leaves no secret or chat content in the output", () => {
      const dump = JSON.stringify(events)
      for (const s of expected.absent ?? []) expect(dump).not.toContain(s)
      expect(dump).not.toMatch(/sk-[A-Za-z0-9]{16,}/)
      expect(dump).not.toMatch(/Bearer (?!<)[A-Za-z0-9]/)
    })
  })
})
