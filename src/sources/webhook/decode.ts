/**
 * `POST /v1/events` bodies (CONTRACT section 6): a JSON object, a JSON array of objects, or
 * NDJSON. Each object is a structured failure or a raw record (what Vector's `http` sink and
 * Fluent Bit's `http` output send). Pure: text in, records or reasons out.
 */
import { Either, ParseResult, Schema } from "effect"

export type BodyFormat = "json" | "ndjson"

/** The content types we read; anything else is 415. */
export const bodyFormatOf = (contentType: string | undefined): BodyFormat | null => {
  const ct = (contentType ?? "").split(";")[0]!.trim().toLowerCase()
  if (ct === "application/json" || ct.endsWith("+json")) return "json"
  if (ct === "application/x-ndjson" || ct === "application/ndjson" || ct === "application/jsonlines" ||
      ct === "application/x-jsonlines" || ct === "application/json-seq") return "ndjson"
  return null
}

export type BodyItem = { readonly index: number; readonly value: unknown } | { readonly index: number; readonly error: string }

export type DecodedBody = { readonly _tag: "Items"; readonly items: ReadonlyArray<BodyItem> } | { readonly _tag: "BadJson"; readonly message: string }

const jsonError = (e: unknown): string => (e instanceof Error ? e.message : String(e))

/** Split a body into items. A broken JSON body is one error; a broken NDJSON line is one rejected item. */
export const decodeBody = (format: BodyFormat, text: string): DecodedBody => {
  if (format === "json") {
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch (e) {
      return { _tag: "BadJson", message: `body is not valid JSON: ${jsonError(e)}` }
    }
    if (Array.isArray(parsed)) return { _tag: "Items", items: parsed.map((value, index) => ({ index, value })) }
    return { _tag: "Items", items: [{ index: 0, value: parsed }] }
  }
  const items: BodyItem[] = []
  let index = 0
  let start = 0
  while (start <= text.length) {
    let end = text.indexOf("\n", start)
    if (end === -1) end = text.length
    const line = text.slice(start, end).trim()
    start = end + 1
    if (line.length === 0) continue
    try {
      items.push({ index, value: JSON.parse(line) })
    } catch (e) {
      items.push({ index, error: `line is not valid JSON: ${jsonError(e)}` })
    }
    index++
  }
  return { _tag: "Items", items }
}

const OptionalText = Schema.optional(Schema.NullOr(Schema.String.pipe(Schema.maxLength(65_536))))
/** Raw log text: bounded by the body limit only; the parser cuts it at the record limit and flags it. */
const RawText = Schema.optional(Schema.NullOr(Schema.String))

/**
 * One ingest record. Field types are checked here, at the boundary; the parser then reads
 * the failure out of it (structured fields win over what a raw text says).
 */
export const IngestRecord = Schema.Struct(
  {
    id: Schema.optional(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(200))),
    occurredAt: Schema.optional(Schema.NullOr(Schema.Union(Schema.String, Schema.Number))),
    service: OptionalText,
    endpoint: OptionalText,
    status: Schema.optional(Schema.NullOr(Schema.Int.pipe(Schema.between(100, 599)))),
    body: Schema.optional(Schema.Unknown),
    code: Schema.optional(Schema.NullOr(Schema.Union(Schema.Int, Schema.String.pipe(Schema.maxLength(200))))),
    message: RawText,
    model: OptionalText,
    requestId: OptionalText,
    stream: Schema.optional(Schema.NullOr(Schema.Boolean)),
    error: OptionalText,
    raw: RawText,
    log: RawText
  },
  // Vector and Fluent Bit add their own fields (host, file, timestamp, date, source_type...).
  { key: Schema.String, value: Schema.Unknown }
)
export type IngestRecord = typeof IngestRecord.Type

const decodeRecord = Schema.decodeUnknownEither(IngestRecord)

/** The reason, with any quoted input cut short (a rejected 70 KB value is not echoed back). */
export const formatRecordError = (e: ParseResult.ParseError): string =>
  ParseResult.ArrayFormatter.formatErrorSync(e)
    .slice(0, 2)
    .map((i) => `${i.path.length ? i.path.join(".") + ": " : ""}${i.message.length > 300 ? i.message.slice(0, 300) + "…" : i.message}`)
    .join("; ")

/** Check one item's shape; a non-object or a wrongly typed field is a rejected item with a reason. */
export const checkRecord = (value: unknown): Either.Either<IngestRecord, string> => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return Either.left(`expected a JSON object, got ${value === null ? "null" : Array.isArray(value) ? "an array" : typeof value}`)
  }
  return Either.mapLeft(decodeRecord(value), formatRecordError)
}

/** Occurrence time hints that shippers add: Vector `timestamp`, Fluent Bit `date` (epoch seconds), `@timestamp`. */
export const shipperTime = (r: Record<string, unknown>): string | null => {
  for (const k of ["occurredAt", "timestamp", "@timestamp", "time", "date"]) {
    const v = r[k]
    if (typeof v === "string" && /^\d{4}-\d{2}-\d{2}/.test(v)) {
      const t = Date.parse(v)
      if (!Number.isNaN(t)) return new Date(t).toISOString()
    }
    if (typeof v === "number" && Number.isFinite(v) && v > 0) {
      // seconds (Fluent Bit) or milliseconds
      const ms = v < 1e11 ? v * 1000 : v
      if (ms < 8.64e15) return new Date(ms).toISOString()
    }
  }
  return null
}

/** Label values of a `calls` entry: short texts (they become metric labels). */
const CallLabel = Schema.optional(Schema.NullOr(Schema.String.pipe(Schema.maxLength(200))))
const Count = Schema.Int.pipe(Schema.between(0, 1_000_000_000))
const Instant = Schema.String.pipe(
  Schema.filter((s) => !Number.isNaN(Date.parse(s)) && /^\d{4}-\d\d-\d\d/.test(s), { message: () => "expected an ISO-8601 instant" })
)

/**
 * Call counts kept by the application (CONTRACT section 6): `{"id"?, "calls": [{"minute",
 * "service"?, "model"?, "provider"?, "ok", "failed"}]}`. `failed` counts calls, not events.
 */
export const CallsPostRecord = Schema.Struct({
  id: Schema.optional(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(200))),
  calls: Schema.Array(
    Schema.Struct({ minute: Instant, service: CallLabel, model: CallLabel, provider: CallLabel, ok: Count, failed: Count })
  ).pipe(Schema.maxItems(10_000))
})
export type CallsPostRecord = typeof CallsPostRecord.Type

const decodeCallsPost = Schema.decodeUnknownEither(CallsPostRecord)

/** An item holding a `calls` array is a calls post, not an event record. */
export const isCallsPost = (value: unknown): boolean =>
  typeof value === "object" && value !== null && !Array.isArray(value) && Array.isArray((value as Record<string, unknown>)["calls"])

export const checkCallsPost = (value: unknown): Either.Either<CallsPostRecord, string> => Either.mapLeft(decodeCallsPost(value), formatRecordError)
