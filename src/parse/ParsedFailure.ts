/**
 * What the parser reads out of one record (a log record, or a webhook object).
 * Every field is optional in reality; `null` means "the record does not say".
 * Secrets are already redacted in every string here.
 */
export interface ParsedFailure {
  readonly status: number | null
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
  /** Number of chat `messages` in the request, when visible (their contents are never kept). */
  readonly messagesCount: number | null
  /** The record was longer than the record limit and was cut. */
  readonly truncated: boolean
  /** The API's provider or gateway (a catalogue family id) when the record tells it. */
  readonly provider: string | null
}

/** The outcome of parsing one record: a failed call, or a reason it is not one. */
export type ParseResult =
  | { readonly _tag: "Failure"; readonly failure: ParsedFailure; /** redacted raw record, at most 4 KiB */ readonly sample: string }
  | { readonly _tag: "Ignored"; readonly reason: string }

export const emptyFailure: ParsedFailure = {
  status: null,
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
