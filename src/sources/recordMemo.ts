/**
 * The record memo: a failure storm repeats a few records with only their times and ids changed,
 * and parsing and classifying each one afresh (~20–100 µs) was most of what the tailer spent in
 * one. The memo keys what it decided on the redacted record's template (parse/template.ts: the
 * text with its timestamps, epoch numbers, ids and durations cut out into slots) and answers a
 * record of a known template by putting the new record's slot texts where the first record's
 * stood in every field, its time read again from its own slot.
 *
 * That answer is trusted only where it was shown to hold: the first time a slot of a template
 * varies, the record is parsed in full and compared field by field with what the memo would have
 * answered. Equal, the slot is known to vary freely; different, the template is never answered
 * from memory again. Every 256th answer of a template is checked the same way.
 *
 * Redaction always runs first, on every record: slots hold redacted text, so a secret can never
 * be carried from one record into another's answer. Bounded (4096 templates seen more than once,
 * oldest out first, and 4096 seen once, each map also by a million characters of record text:
 * a few MB at the most per thread); cleared when the classify rules change.
 */
import type { Classification } from "../classify/Event.js"
import { classify, fingerprint } from "../classify/classify.js"
import { rulesVersion } from "../classify/rules.js"
import type { ParsedFailure, ParseResult } from "../parse/ParsedFailure.js"
import { parseRedacted, type RedactedRecord, SAMPLE_MAX_BYTES } from "../parse/parse.js"
import { recordTemplate, SlotKind, type RecordTemplate } from "../parse/template.js"
import { timeValue } from "../parse/time.js"

/** A parse and, for a failed call, its classification. */
export interface Decided {
  readonly parsed: ParseResult
  readonly verdict: Classification | null
}

interface Entry {
  /** The first record (redacted), its slot texts and where they start. */
  readonly text: string
  readonly values: ReadonlyArray<string>
  readonly starts: ReadonlyArray<number>
  readonly decided: Decided
  /** The slot whose text gave the failure's occurredAt, -1 when none did. */
  readonly timeSlot: number
  readonly timeKind: SlotKind
  /** Slots whose first text is another slot's, or inside it (a bit each). */
  readonly overlapping: number
  /** Slots seen to vary with every answer as predicted (a bit each). */
  verified: number
  /** An answer from memory was once wrong: parse every record of this template. */
  unstable: boolean
  answers: number
  /** The first record's distinct slot texts, longest first, as one alternation (built on first use). */
  pattern: RegExp | null
}

const MAX_TEMPLATES = 4096
/** Characters of remembered record text, at most, in each of the two maps (1 MB of one-byte text). */
const MAX_CHARS = 1_000_000
const CHECK_EVERY = 256

export interface RecordMemoStats {
  /** Records answered from memory. */
  answered: number
  /** Records parsed in full (new template, a slot not yet checked, a check, an unstable template). */
  parsed: number
  /** Answers from memory that a check found wrong (the template is then parsed every time). */
  wrong: number
}

export class RecordMemo {
  /**
   * Templates seen twice or more, oldest out first; and templates seen once, dropped together when
   * full: a log's one-off records never push out a storm's templates.
   */
  private readonly entries = new Map<string, Entry>()
  private readonly once = new Map<string, Entry>()
  /** Characters of record text remembered in `entries` and in `once`. */
  private chars = 0
  private onceChars = 0
  private rules = rulesVersion()
  readonly stats: RecordMemoStats = { answered: 0, parsed: 0, wrong: 0 }

  /** The parse and classification of a redacted record, from memory where it was shown to hold. */
  decide(r: RedactedRecord, truncated: boolean): Decided {
    if (this.rules !== rulesVersion()) {
      this.entries.clear()
      this.once.clear()
      this.chars = this.onceChars = 0
      this.rules = rulesVersion()
    }
    const t = recordTemplate(r.text)
    if (t === null) return this.full(r, truncated)
    const key = `${t.key}\u0000${r.messagesCount ?? ""}${truncated ? "t" : ""}`
    let e = this.entries.get(key)
    if (e === undefined) {
      e = this.once.get(key)
      if (e !== undefined) {
        this.once.delete(key)
        this.onceChars -= e.text.length
        while (this.entries.size > 0 && (this.entries.size >= MAX_TEMPLATES || this.chars + e.text.length > MAX_CHARS)) {
          const [oldest, old] = this.entries.entries().next().value!
          this.entries.delete(oldest)
          this.chars -= old.text.length
        }
        this.entries.set(key, e)
        this.chars += e.text.length
      }
    }
    if (e === undefined) {
      const decided = this.full(r, truncated)
      this.remember(key, t, r.text, decided)
      return decided
    }
    if (e.unstable || e.values.length !== t.values.length) return this.full(r, truncated)
    let varied = 0
    for (let i = 0; i < t.values.length; i++) if (t.values[i] !== e.values[i]) varied |= 1 << i
    if (varied === 0) {
      this.stats.answered++
      return e.decided
    }
    const predicted = predict(e, t, varied, r.text)
    if (predicted === null) return this.full(r, truncated)
    if ((varied & ~e.verified) !== 0 || ++e.answers % CHECK_EVERY === 0) {
      const decided = this.full(r, truncated)
      if (sameDecision(decided, predicted)) e.verified |= varied
      else {
        e.unstable = true
        if ((varied & ~e.verified) === 0) this.stats.wrong++
      }
      return decided
    }
    this.stats.answered++
    return predicted
  }

  /** Templates remembered (for tests and the bench). */
  get size(): number {
    return this.entries.size + this.once.size
  }

  /** Characters of record text remembered (bounded: tests). */
  get rememberedChars(): number {
    return this.chars + this.onceChars
  }

  private full(r: RedactedRecord, truncated: boolean): Decided {
    this.stats.parsed++
    const parsed = parseRedacted(r, { truncated, prefiltered: true })
    return { parsed, verdict: parsed._tag === "Failure" ? classify(parsed.failure) : null }
  }

  private remember(key: string, t: RecordTemplate, text: string, decided: Decided): void {
    const p = decided.parsed
    // a sample cut at its byte bound would need cutting again: such records are parsed each time
    if (p._tag === "Failure" && p.sample !== text) return
    let timeSlot = -1
    const at = p._tag === "Failure" ? p.failure.occurredAt : null
    if (at !== null) {
      for (let i = 0; i < t.values.length && timeSlot === -1; i++) {
        const k = t.kinds[i]!
        if ((k === SlotKind.Time || k === SlotKind.Number) && timeOf(t.values[i]!, k) === at) timeSlot = i
      }
    }
    let overlapping = 0
    for (let i = 0; i < t.values.length; i++) {
      for (let j = 0; j < t.values.length; j++) {
        if (i !== j && t.values[i]!.indexOf(t.values[j]!) !== -1) overlapping |= (1 << i) | (1 << j)
      }
    }
    if (this.once.size >= MAX_TEMPLATES || this.onceChars + text.length > MAX_CHARS) {
      this.once.clear()
      this.onceChars = 0
    }
    this.onceChars += text.length
    this.once.set(key, {
      text,
      values: t.values,
      starts: t.starts,
      decided,
      timeSlot,
      timeKind: timeSlot === -1 ? SlotKind.Time : t.kinds[timeSlot]!,
      overlapping,
      verified: 0,
      unstable: false,
      answers: 0,
      pattern: null
    })
  }
}

function timeOf(value: string, kind: SlotKind): string | null {
  return kind === SlotKind.Number ? timeValue(Number(value)) : timeValue(value)
}

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/**
 * A field of the first record's answer, for a record of the same template: where the field is a
 * piece of the first record's text, the same piece of the new one (slots wholly inside it carried
 * along); otherwise each varied slot text in it replaced. undefined when it cannot be told.
 */
function carry(e: Entry, t: RecordTemplate, varied: number, text: string, s: string | null): string | null | undefined {
  if (s === null || s === "") return s
  // every place the field stands in the first record must give the same piece of the new one
  // (a piece that cuts a varied slot cannot be told: `in organization org-6` of `org-66tr5x…`)
  let found: string | undefined
  for (let p = e.text.indexOf(s), n = 0; p !== -1; p = e.text.indexOf(s, p + 1), n++) {
    const piece = n < 4 ? pieceAt(e, t, text, p, p + s.length) : undefined
    if (piece === undefined || (found !== undefined && piece !== found)) return undefined
    found = piece
  }
  if (found !== undefined) return found
  // not a piece of the record (unescaped, joined, normalised): its varied slot texts replaced
  let any = false
  for (let i = 0; i < e.values.length && !any; i++) if ((varied & (1 << i)) !== 0 && s.indexOf(e.values[i]!) !== -1) any = true
  if (!any) return s
  if ((varied & e.overlapping) !== 0) return undefined
  if (e.pattern === null) {
    const distinct = [...new Set(e.values)].sort((a, b) => b.length - a.length)
    e.pattern = new RegExp(distinct.map(escapeRe).join("|"), "g")
  }
  return s.replace(e.pattern, (m) => t.values[e.values.indexOf(m)]!)
}

/** `e.text[p, q)` in the new record: its slots carried along; undefined when a slot is cut by it. */
function pieceAt(e: Entry, t: RecordTemplate, text: string, p: number, q: number): string | undefined {
  let from = p
  let to = q
  for (let i = 0; i < e.values.length; i++) {
    const a = e.starts[i]!
    const b = a + e.values[i]!.length
    const grow = t.values[i]!.length - b + a
    if (b <= p) {
      from += grow
      to += grow
    } else if (a >= q) break
    else if (a >= p && b <= q) to += grow
    else if (t.values[i] !== e.values[i]) return undefined
  }
  return text.slice(from, to)
}

/** The answer for a record of `e`'s template with slot texts `t.values`; null when it cannot be told. */
function predict(e: Entry, t: RecordTemplate, varied: number, text: string): Decided | null {
  const p = e.decided.parsed
  if (p._tag === "Ignored") return e.decided
  if (text.length * 3 > SAMPLE_MAX_BYTES && Buffer.byteLength(text, "utf8") > SAMPLE_MAX_BYTES) return null
  const f = p.failure
  let occurredAt = f.occurredAt
  if (e.timeSlot !== -1 && (varied & (1 << e.timeSlot)) !== 0) {
    occurredAt = timeOf(t.values[e.timeSlot]!, e.timeKind)
    if (occurredAt === null) return null
  }
  let unknown = false
  const swap = (s: string | null): string | null => {
    const r = carry(e, t, varied, text, s)
    if (r === undefined) {
      unknown = true
      return s
    }
    return r
  }
  const failure: ParsedFailure = {
    ...f,
    code: typeof f.code === "string" ? swap(f.code) : f.code,
    message: swap(f.message),
    model: swap(f.model),
    requestId: swap(f.requestId),
    occurredAt,
    service: swap(f.service),
    endpoint: swap(f.endpoint),
    errorType: swap(f.errorType),
    errorClass: swap(f.errorClass),
    transportError: swap(f.transportError),
    ...(f.limitDetail === undefined ? {} : { limitDetail: swap(f.limitDetail) }),
    ...(f.otherLines === undefined ? {} : { otherLines: swap(f.otherLines) }),
    provider: swap(f.provider)
  }
  const v = e.decided.verdict!
  // the fingerprint masks the message by shapes of its own: read again where the message changed
  const fp = failure.message === f.message && failure.model === f.model && failure.service === f.service && failure.code === f.code ? v.fingerprint : fingerprint(failure, v)
  const verdict: Classification = { ...v, action: swap(v.action)!, fingerprint: fp, provider: swap(v.provider), providerText: swap(v.providerText) }
  return unknown ? null : { parsed: { _tag: "Failure", failure, sample: text }, verdict }
}

const FAILURE_FIELDS = [
  "status",
  "phraseStatus",
  "code",
  "message",
  "model",
  "requestId",
  "occurredAt",
  "service",
  "endpoint",
  "stream",
  "bodyNotJson",
  "errorType",
  "errorClass",
  "transportError",
  "limitDetail",
  "otherLines",
  "messagesCount",
  "truncated",
  "provider",
  "providerWeak"
] as const satisfies ReadonlyArray<keyof ParsedFailure>

const VERDICT_FIELDS = ["category", "rateLimitKind", "severity", "retryable", "action", "fingerprint", "provider", "providerText"] as const satisfies ReadonlyArray<
  keyof Classification
>

/** The same decision, field by field (an absent optional field and null are the same). */
export function sameDecision(a: Decided, b: Decided): boolean {
  const pa = a.parsed
  const pb = b.parsed
  if (pa._tag === "Ignored") return pb._tag === "Ignored" && pa.reason === pb.reason
  if (pb._tag === "Ignored") return false
  if (pa.sample !== pb.sample) return false
  for (const k of FAILURE_FIELDS) if ((pa.failure[k] ?? null) !== (pb.failure[k] ?? null)) return false
  const va = a.verdict!
  const vb = b.verdict!
  for (const k of VERDICT_FIELDS) if (va[k] !== vb[k]) return false
  return va.decidedBy.kind === vb.decidedBy.kind && va.decidedBy.name === vb.decidedBy.name
}
