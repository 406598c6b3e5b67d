/** The vocabulary of CONTRACT section 4 and the event object of section 5. */

export const categories = [
  "model_not_found",
  "invalid_request",
  "auth_key",
  "auth_realname",
  "permission",
  "quota",
  "rate_limit",
  "overload",
  "server_error",
  "transport",
  "unknown"
] as const
export type Category = (typeof categories)[number]

export const rateLimitKinds = ["RPM", "RPH", "RPD", "TPM", "TPD", "IPM", "IPD", "unknown"] as const
export type RateLimitKind = (typeof rateLimitKinds)[number]

export const severities = ["critical", "warning", "info"] as const
export type Severity = (typeof severities)[number]

/** The verdict on one parsed failure. */
export interface Classification {
  readonly category: Category
  /** Non-null exactly when category is `rate_limit`. */
  readonly rateLimitKind: RateLimitKind | null
  readonly severity: Severity
  readonly retryable: boolean
  readonly action: string
  /** 16 hex chars, stable across request ids, counts, durations and quoted values. */
  readonly fingerprint: string
}

/** One failed call as stored, served and printed (CONTRACT section 5). */
export interface FailureEvent {
  readonly id: string
  readonly occurredAt: string
  readonly ingestedAt: string
  /** `file:<path>`, `webhook` or `stdin`. */
  readonly source: string
  readonly line: number | null
  readonly service: string | null
  readonly status: number | null
  readonly code: number | string | null
  readonly message: string | null
  readonly model: string | null
  readonly requestId: string | null
  readonly endpoint: string | null
  readonly stream: boolean | null
  readonly category: Category
  readonly rateLimitKind: RateLimitKind | null
  readonly severity: Severity
  readonly retryable: boolean
  readonly action: string
  readonly fingerprint: string
  readonly bodyNotJson: boolean
  readonly sample: string
}
