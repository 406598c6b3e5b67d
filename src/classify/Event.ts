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
  /** What decided the category: a configured rule, a catalogue entry, the status, the wording. */
  readonly decidedBy: { readonly kind: "rule" | "catalog" | "status" | "wording"; readonly name: string }
  /** The provider, from the record or from the catalogue entry that matched; null when unknown. */
  readonly provider: string | null
  /** What told the classifier the provider (a marker in the message), when not the record or the entry. */
  readonly providerText: string | null
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
  readonly provider: string | null
  readonly sample: string
}

const digit = (s: string, i: number): number => {
  const d = s.charCodeAt(i) - 48
  return d >= 0 && d <= 9 ? d : NaN
}

/**
 * Epoch ms of an event's instant (`occurredAt`, `ingestedAt`), NaN when it is not one:
 * `Date.parse`, with a fast path for the form every event carries (`toISOString()`:
 * `2026-11-21T10:00:00.123Z`). The store, the alert engine and the tickets each read every
 * event's time, and Date.parse was ~150 ns of it.
 */
export function instantMs(iso: string): number {
  if (iso.length !== 24 || iso.charCodeAt(4) !== 45 || iso.charCodeAt(7) !== 45 || iso.charCodeAt(10) !== 84 || iso.charCodeAt(13) !== 58 || iso.charCodeAt(16) !== 58 || iso.charCodeAt(19) !== 46 || iso.charCodeAt(23) !== 90) {
    return Date.parse(iso)
  }
  const month = digit(iso, 5) * 10 + digit(iso, 6)
  const day = digit(iso, 8) * 10 + digit(iso, 9)
  const hour = digit(iso, 11) * 10 + digit(iso, 12)
  const minute = digit(iso, 14) * 10 + digit(iso, 15)
  const second = digit(iso, 17) * 10 + digit(iso, 18)
  // anything unusual (including the 29th-31st, which a month may not have) is Date.parse's to judge
  if (!(month >= 1 && month <= 12 && day >= 1 && day <= 28 && hour <= 23 && minute <= 59 && second <= 59)) return Date.parse(iso)
  const year = digit(iso, 0) * 1000 + digit(iso, 1) * 100 + digit(iso, 2) * 10 + digit(iso, 3)
  const ms = digit(iso, 20) * 100 + digit(iso, 21) * 10 + digit(iso, 22)
  // (Date.UTC reads the years 0-99 as 1900-1999)
  if (!(year >= 100 && ms >= 0)) return Date.parse(iso)
  return Date.UTC(year, month - 1, day, hour, minute, second, ms)
}
