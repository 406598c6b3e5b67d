import { expect } from "vitest"
import { classify } from "../../src/classify/classify.js"
import { RecordAssembler } from "../../src/parse/assemble.js"
import { parseRecord } from "../../src/parse/parse.js"
import { hasFailureSignal } from "../../src/parse/prefilter.js"

/** What a made-up record must read as (test/core/sdk-formats.test.ts, test/core/log-formats.test.ts). */
export interface Want {
  readonly status?: number | null
  readonly code?: number | string | null
  readonly errorType?: string | null
  /** The message, exactly (a string) or containing (a RegExp). */
  readonly message?: string | RegExp
  readonly model?: string | null
  /** The category, or the categories a careful on-call engineer would accept (the first is preferred). */
  readonly category?: string | ReadonlyArray<string>
  readonly kind?: string | null
  readonly provider?: string | null
  /** The pre-filter drops this line (reported to the pre-filter's owner): parse it as if it had passed. */
  readonly prefilterDrops?: true
  /** A multi-line record: the tailer's assembler must give it back whole. */
  readonly oneRecord?: true
}

/**
 * Checks a record as the daemon sees it: the pre-filter passes it (unless `prefilterDrops`), the
 * assembler keeps it whole (with `oneRecord`), and the parse and classification give `want`.
 */
export function readRecord(text: string, want: Want): void {
  if (want.prefilterDrops === true) expect(hasFailureSignal(text), "the pre-filter now passes it: drop prefilterDrops").toBe(false)
  else expect(hasFailureSignal(text), "the pre-filter drops it").toBe(true)
  if (want.oneRecord === true) {
    const a = new RecordAssembler()
    const out = []
    text.split("\n").forEach((l, i) => out.push(...a.push(l, i + 1, 0, 0)))
    out.push(...a.flush())
    expect(out.map((r) => r.text), "assembled as one record").toEqual([text])
  }
  const r = parseRecord(text, want.prefilterDrops === true ? { prefiltered: true } : undefined)
  if (r._tag !== "Failure") throw new Error(`ignored: ${r.reason}`)
  const f = r.failure
  const c = classify(f)
  if (want.status !== undefined) expect(f.status, "status").toBe(want.status)
  if (want.code !== undefined) expect(f.code, "code").toBe(want.code)
  if (want.errorType !== undefined) expect(f.errorType, "errorType").toBe(want.errorType)
  if (typeof want.message === "string") expect(f.message, "message").toBe(want.message)
  else if (want.message !== undefined) expect(f.message ?? "", "message").toMatch(want.message)
  if (want.model !== undefined) expect(f.model, "model").toBe(want.model)
  if (typeof want.category === "string") expect(c.category, "category").toBe(want.category)
  else if (want.category !== undefined) expect(want.category, "category").toContain(c.category)
  if (want.kind !== undefined) expect(c.rateLimitKind, "rateLimitKind").toBe(want.kind)
  if (want.provider !== undefined) expect(c.provider, "provider").toBe(want.provider)
}
