/**
 * Records -> events: parse, classify, build the event (CONTRACT section 5). Shared by the tailer,
 * replay, the webhook and the classify CLI.
 */
import type { FailureEvent, Classification } from "../classify/Event.js"
import { classify } from "../classify/classify.js"
import type { Evidence, ExplainedField, ParsedFailure, ParseResult } from "../parse/ParsedFailure.js"
import { RecordAssembler, type AssembledRecord } from "../parse/assemble.js"
import { parseRecord, parseStructured, redactRecord } from "../parse/parse.js"
import { RecordMemo } from "./recordMemo.js"
import { newEventId } from "./ids.js"

export interface EventContext {
  /** `file:<path>`, `webhook` or `stdin`. */
  readonly source: string
  readonly line: number | null
  /** ISO-8601 instant the record was read. */
  readonly ingestedAt: string
  /** A given id (the webhook's `id`); a fresh ULID when neither this nor `idFor` is given. */
  readonly id?: string
  /** Service of the source (config `tail[].service`), used when the record names none. */
  readonly defaultService?: string | null
  /** The id, derived from the event's occurredAt (the tailer's deterministic ids); wins over `id`. */
  readonly idFor?: (occurredAt: string) => string
}

export interface RecordContext extends EventContext {
  /** Collect the evidence of each field and what decided the category (`--explain`). */
  readonly explain?: boolean
  /** The assembler cut the record. */
  readonly truncated?: boolean
  /** The pre-filter already passed the record (the tailer's scanner runs it). */
  readonly prefiltered?: boolean
}

/**
 * `--explain`: for each field the evidence that set it (the extractor and the text it read), and
 * what decided the category (CONTRACT section 2).
 */
export type Explanation = Record<ExplainedField, Evidence | null> & { readonly decidedBy: Classification["decidedBy"] | null }

export type RecordOutcome =
  | { readonly event: FailureEvent; readonly explain?: Explanation }
  | { readonly ignored: string; readonly explain?: Explanation }

const NO_EVIDENCE: Record<ExplainedField, Evidence | null> = { status: null, code: null, message: null, model: null, provider: null }

/** The explanation of a parse (and of its classification, for a failed call). */
export function explanationOf(r: ParseResult, c: Classification | null): Explanation {
  const evidence = r.evidence ?? NO_EVIDENCE
  // a provider told by the catalogue entry that decided, not by the record's text
  const provider =
    evidence.provider ??
    (c === null || c.provider === null
      ? null
      : c.providerText !== null
        ? { from: "provider-marker", text: c.providerText }
        : { from: "catalog", text: c.decidedBy.name })
  return { ...evidence, provider, decidedBy: c === null ? null : c.decidedBy }
}

export function makeEvent(parsed: ParsedFailure, sample: string, c: Classification, ctx: EventContext): FailureEvent {
  const occurredAt = parsed.occurredAt ?? ctx.ingestedAt
  return {
    id: ctx.idFor?.(occurredAt) ?? ctx.id ?? newEventId(),
    occurredAt,
    ingestedAt: ctx.ingestedAt,
    source: ctx.source,
    line: ctx.line,
    service: parsed.service ?? ctx.defaultService ?? null,
    status: parsed.status,
    code: parsed.code,
    message: parsed.message,
    model: parsed.model,
    requestId: parsed.requestId,
    endpoint: parsed.endpoint,
    stream: parsed.stream,
    category: c.category,
    rateLimitKind: c.rateLimitKind,
    severity: c.severity,
    retryable: c.retryable,
    action: c.action,
    fingerprint: c.fingerprint,
    bodyNotJson: parsed.bodyNotJson,
    provider: c.provider,
    sample
  }
}

/**
 * What this thread's records were decided by: a storm's repeats are answered from memory
 * (recordMemo.ts). One per isolate (the main thread's and the scan worker's).
 */
export const recordMemo = new RecordMemo()

/** One record of log text -> an event, or the reason it is not a failed call. */
export function recordToEvent(text: string, ctx: RecordContext): RecordOutcome {
  if (ctx.explain === true) {
    const r = parseRecord(text, ctx)
    if (r._tag === "Ignored") return { ignored: r.reason, explain: explanationOf(r, null) }
    const c = classify(r.failure)
    return { event: makeEvent(r.failure, r.sample, c, ctx), explain: explanationOf(r, c) }
  }
  const redacted = redactRecord(text, ctx)
  if ("_tag" in redacted) return { ignored: redacted._tag === "Ignored" ? redacted.reason : "unreadable" }
  const { parsed, verdict } = recordMemo.decide(redacted, ctx.truncated === true)
  if (parsed._tag === "Ignored") return { ignored: parsed.reason }
  return { event: makeEvent(parsed.failure, parsed.sample, verdict!, ctx) }
}

export type ClassifiedRecord =
  | { readonly event: FailureEvent; readonly line: number }
  | { readonly ignored: string; readonly line: number }

export interface ClassifyTextOptions {
  readonly ingestedAt?: string
  readonly defaultService?: string | null
}

/**
 * A whole text (a file, stdin) through the record assembler, as the tailer reads it: one entry
 * per record, in order, with the 1-based number of its first line.
 */
export function classifyText(text: string, source: string, opts: ClassifyTextOptions = {}): ClassifiedRecord[] {
  const ingestedAt = opts.ingestedAt ?? new Date().toISOString()
  const out: ClassifiedRecord[] = []
  const assembler = new RecordAssembler()
  const take = (records: ReadonlyArray<AssembledRecord>): void => {
    for (const rec of records) {
      const r = recordToEvent(rec.text, {
        source,
        line: rec.line,
        ingestedAt,
        truncated: rec.truncated,
        defaultService: opts.defaultService ?? null
      })
      out.push("event" in r ? { event: r.event, line: rec.line } : { ignored: r.ignored, line: rec.line })
    }
  }
  let offset = 0
  let lineNo = 1
  let from = 0
  while (from <= text.length) {
    const nl = text.indexOf("\n", from)
    const line = text.slice(from, nl === -1 ? text.length : nl)
    if (nl === -1 && line === "") break
    const bytes = Buffer.byteLength(line, "utf8") + (nl === -1 ? 0 : 1)
    take(assembler.push(line, lineNo, offset, offset + bytes))
    offset += bytes
    lineNo++
    if (nl === -1) break
    from = nl + 1
  }
  take(assembler.flush())
  return out
}

/**
 * The explanation of a stored event (`diagnose --explain`), read again from its stored sample:
 * the redacted record (a webhook's object as it was posted), at most 4 KiB of it.
 */
export function explainStored(e: Pick<FailureEvent, "source" | "sample">): Explanation {
  if (e.source === "webhook") {
    let o: unknown = null
    try {
      o = JSON.parse(e.sample)
    } catch {
      o = null
    }
    if (typeof o === "object" && o !== null && !Array.isArray(o)) {
      const r = parseStructured(o as Record<string, unknown>, { explain: true })
      return explanationOf(r, r._tag === "Failure" ? classify(r.failure) : null)
    }
  }
  const r = parseRecord(e.sample, { explain: true })
  return explanationOf(r, r._tag === "Failure" ? classify(r.failure) : null)
}
