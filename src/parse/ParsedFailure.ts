/**
 * What the parser reads out of one record (a log record, or a webhook object).
 * Every field is optional in reality; `null` means "the record does not say".
 * Secrets are already redacted in every string here.
 */
export interface ParsedFailure {
  readonly status: number | null
  /**
   * A status named only by its reason phrase (`Too Many Requests`, `Bad Gateway`) and no number:
   * not the record's `status` (it does not show one), but what the classifier reads it as.
   */
  readonly phraseStatus: number | null
  /** The service's `code` (int) or an OpenAI-style string code such as `rate_limit_exceeded`. */
  readonly code: number | string | null
  readonly message: string | null
  readonly model: string | null
  readonly requestId: string | null
  /** ISO-8601 instant, when the record carries a timestamp. */
  readonly occurredAt: string | null
  readonly service: string | null
  readonly endpoint: string | null
  readonly stream: boolean | null
  /** The body was an HTML page or other non-JSON text. */
  readonly bodyNotJson: boolean
  /** OpenAI-style `error.type` (e.g. `insufficient_quota`, `invalid_request_error`). */
  readonly errorType: string | null
  /** A client library's error class (`RateLimitError`, `APIConnectionError`, ...). */
  readonly errorClass: string | null
  /** Transport failure text when there was no proper answer (ECONNREFUSED, ETIMEDOUT, TLS, DNS, proxy). */
  readonly transportError: string | null
  /**
   * The limit an error names outside its message: Google's QuotaFailure `quotaId` / `quotaMetric`
   * (`GenerateRequestsPerDayPerProjectPerModel-FreeTier`). Read by the classifier with the message.
   */
  readonly limitDetail?: string | null
  /**
   * In a multi-line record, its other lines that say something failed (not the message's, not
   * stack frames; redacted, at most 8 lines / 1 KiB): what the classifier reads when the message
   * alone says little (`⚠️ API call failed: InternalServerError [HTTP 500]` above `Error: HTTP 500:
   * insufficient balance`). Never stored.
   */
  readonly otherLines?: string | null
  /** Number of chat `messages` in the request, when visible (their contents are never kept). */
  readonly messagesCount: number | null
  /** The record was longer than the record limit and was cut. */
  readonly truncated: boolean
  /** The API's provider or gateway (a catalogue family id) when the record tells it. */
  readonly provider: string | null
  /**
   * `provider` was told only by an SDK's name (`openai.NotFoundError`, `com.anthropic.errors.…`):
   * what the message, code or a catalogue entry says of the API (an Azure deployment, a Bedrock
   * wording) goes first.
   */
  readonly providerWeak?: boolean
}

/**
 * The extractors of the parse stage, one per shape family: what `--explain` names as the
 * source of a field.
 */
export type Extractor =
  | "webhook" // a structured webhook object's own fields
  | "json-log" // a JSON log line (pino, winston, bunyan, structlog, Vector / Fluent Bit)
  | "exception-object" // a serialized exception inside a JSON log (`err`, `error` with a stack)
  | "error-body" // an API error body: `{"error": {...}}`, `{code, message, data}`, problem+json, a Python dict
  | "loose-fields" // `code` / `message` fields of a body too broken to parse
  | "http-dump" // an HTTP status line (`curl -i`, `curl -v`, an access log)
  | "html" // an HTML error page of a gateway or proxy
  | "status-text" // a status in prose (`Error code: 429`, `status=503`, `HTTP 429`)
  | "sdk-exception" // a client library's exception text (`RateLimitError: ...`)
  | "client-text" // a client's own print of the body (.NET `HTTP 429 (type: code)`, a Go `map[...]`)
  | "error-code-text" // an explicit code in prose (`error code: 1010`)
  | "logfmt" // `error_message=... error_code=...`
  | "free-text" // the rest of a line: prose, key-value hints, URLs
  | "api-host" // the provider from an API host in a URL
  | "provider-marker" // the provider from an SDK or envelope name

/** One piece of evidence: the extractor and the (redacted) text it read, at most 200 chars. */
export interface Evidence {
  readonly from: Extractor | string
  readonly text: string
}

export type ExplainedField = "status" | "code" | "message" | "model" | "provider"

/** Evidence collected while parsing (the body's status is a candidate, used when nothing better). */
export type EvidenceMap = { [K in ExplainedField | "bodyStatus"]?: Evidence }

/** The outcome of parsing one record: a failed call, or a reason it is not one. */
export type ParseResult =
  | {
      readonly _tag: "Failure"
      readonly failure: ParsedFailure
      /** redacted raw record, at most 4 KiB */
      readonly sample: string
      /** With `explain`: the evidence of each field. */
      readonly evidence?: Record<ExplainedField, Evidence | null>
    }
  | { readonly _tag: "Ignored"; readonly reason: string; readonly evidence?: Record<ExplainedField, Evidence | null> }

export const emptyFailure: ParsedFailure = {
  status: null,
  phraseStatus: null,
  code: null,
  message: null,
  model: null,
  requestId: null,
  occurredAt: null,
  service: null,
  endpoint: null,
  stream: null,
  bodyNotJson: false,
  errorType: null,
  errorClass: null,
  transportError: null,
  messagesCount: null,
  truncated: false,
  provider: null
}
