/**
 * What the store answers: the report of CONTRACT section 6, incidents (GET /v1/incidents),
 * event pages (GET /v1/events) and the ingest totals that initialise the metrics of section 9.
 * Times are ISO-8601 strings (UTC, milliseconds) in every answer.
 */
import { Data } from "effect"
import type { Category, RateLimitKind, Severity, FailureEvent } from "../classify/Event.js"

/** A query the store cannot answer: HTTP answers 400. */
export class StoreQueryError extends Data.TaggedError("StoreQueryError")<{
  readonly reason: "bad_cursor" | "bad_window" | "bad_limit"
  readonly message: string
}> {}

/** Filters of GET /v1/events. `since` inclusive, `until` exclusive, epoch ms. */
export interface ListEventsQuery {
  readonly category?: string | undefined
  readonly rateLimitKind?: string | undefined
  readonly model?: string | undefined
  readonly service?: string | undefined
  readonly provider?: string | undefined
  readonly status?: number | undefined
  readonly since?: number | undefined
  readonly until?: number | undefined
  /** 1..1000. */
  readonly limit: number
  /** `nextCursor` of the previous page. */
  readonly cursor?: string | undefined
}

export interface EventPage {
  readonly events: FailureEvent[]
  readonly nextCursor: string | null
}

/** The report window: `since` inclusive, `until` exclusive, epoch ms. */
export interface ReportQuery {
  readonly since: number
  readonly until: number
  readonly service?: string | undefined
  readonly model?: string | undefined
}

/**
 * A failure ratio as a percentage with one decimal (0.125 -> "12.5%"), as the report, the page,
 * the CLI, alerts and the diagnosis write it; `fixed` keeps a trailing ".0" for table columns.
 */
export const percent = (ratio: number, fixed = false): string => {
  const p = Math.round(ratio * 1000) / 10
  return `${fixed ? p.toFixed(1) : p}%`
}

/** Key of `byStatus` for events without an HTTP status (transport failures). */
export const NO_STATUS = "none"

export interface ReportTop {
  readonly fingerprint: string
  readonly category: Category
  readonly rateLimitKind: RateLimitKind | null
  readonly status: number | null
  readonly code: number | string | null
  readonly message: string | null
  readonly model: string | null
  readonly service: string | null
  /** Occurrences inside the window. */
  readonly count: number
  /** First / last occurrence inside the window. */
  readonly firstSeen: string
  readonly lastSeen: string
  readonly action: string
}

export interface ReportModel {
  /** null for events that name no model. */
  readonly model: string | null
  readonly total: number
  /** Only categories that occurred. */
  readonly byCategory: Partial<Record<Category, number>>
  /** Calls of this model in the window, failed and successful. */
  readonly calls: number
  /** total / calls; null where no call was counted. */
  readonly failureRatio: number | null
}

export interface TimelineBucket {
  /** Start of the bucket, aligned to a multiple of the step since the epoch (UTC). */
  readonly start: string
  /** Every category, zeros included. */
  readonly byCategory: Record<Category, number>
  /** Calls counted in the bucket, failed and successful. */
  readonly calls: number
}

export interface ReportSource {
  readonly source: string
  readonly offset: number
  /** File size when last read minus offset (the tailer may refine it with the current size). */
  readonly lagBytes: number
}

/** CONTRACT section 6. */
export interface Report {
  /** `step`: the timeline step as a duration ("1m", "5m", "1h", "6h", "1d"). */
  readonly window: { readonly since: string; readonly until: string; readonly step: string }
  readonly total: number
  /** Every category, zeros included. */
  readonly byCategory: Record<Category, number>
  /** Every rate-limit kind, zeros included (rate_limit events only). */
  readonly byRateLimitKind: Record<RateLimitKind, number>
  /** HTTP status as a string; `"none"` for events without a status. Only statuses that occurred. */
  readonly byStatus: Record<string, number>
  /**
   * Calls of the LLM API in the window, failed and successful (CONTRACT section 3): counted per
   * minute, so the window's edges are rounded out to whole minutes.
   */
  readonly calls: number
  /** total / calls; null where no call was counted. */
  readonly failureRatio: number | null
  /** Failures by provider slug; events whose provider is not known are not counted here. */
  readonly byProvider: Record<string, number>
  /** Sorted by total desc, then model. */
  readonly byModel: ReadonlyArray<ReportModel>
  /** Top 10 fingerprints by count inside the window. */
  readonly top: ReadonlyArray<ReportTop>
  /** Continuous: empty buckets included. */
  readonly timeline: ReadonlyArray<TimelineBucket>
  /** Filled by the caller from the alert store; the event store answers 0. */
  readonly alerts: { readonly firing: number }
  /** Filled by the caller from the ticket store; the event store answers 0. */
  readonly tickets: { readonly open: number }
  /** Cumulative since the database was created (not bound to the window). */
  readonly ingest: {
    readonly linesRead: number
    readonly ignored: number
    readonly failures: number
    readonly sources: ReadonlyArray<ReportSource>
  }
}

export type IncidentState = "active" | "quiet"

export interface IncidentsQuery {
  readonly state?: IncidentState | undefined
  /** Only incidents whose lastSeen >= since (epoch ms). */
  readonly since?: number | undefined
  /** Default 100, at most 1000. */
  readonly limit?: number | undefined
  /** `nextCursor` of the previous page. */
  readonly cursor?: string | undefined
  /** "Now" for the active/quiet split (default Date.now()). */
  readonly now?: number | undefined
}

/** One fingerprint, all time (GET /v1/incidents). */
export interface Incident {
  readonly fingerprint: string
  /** `active` when lastSeen is within the last hour, else `quiet`. */
  readonly state: IncidentState
  readonly category: Category
  readonly rateLimitKind: RateLimitKind | null
  /** Same as rateLimitKind (CONTRACT section 6 calls it "kind"). */
  readonly kind: RateLimitKind | null
  readonly severity: Severity
  readonly retryable: boolean
  readonly status: number | null
  readonly code: number | string | null
  readonly model: string | null
  readonly service: string | null
  /** Of the latest occurrence. */
  readonly message: string | null
  readonly action: string
  readonly count: number
  readonly firstSeen: string
  readonly lastSeen: string
  /** Raw record of the latest occurrence, and its event id. */
  readonly sample: string
  readonly sampleEventId: string
}

export interface IncidentPage {
  readonly incidents: Incident[]
  readonly nextCursor: string | null
}

/** Start-up values of the Prometheus counters (CONTRACT section 9). */
export interface IngestTotals {
  /** faultline_lines_read_total / faultline_lines_ignored_total{source}. */
  readonly sources: ReadonlyArray<{
    readonly source: string
    readonly linesRead: number
    readonly ignored: number
    readonly failures: number
  }>
  /** faultline_failures_total{category,rate_limit_kind,status,model,service}, all time. */
  readonly failures: ReadonlyArray<{
    readonly category: Category
    readonly rateLimitKind: RateLimitKind | null
    readonly status: number | null
    readonly model: string | null
    readonly service: string | null
    readonly count: number
  }>
  /** faultline_source_lag_bytes{source} as last committed (source = `file:<path>`). */
  readonly lag: ReadonlyArray<{
    readonly source: string
    readonly key: string
    readonly offset: number
    readonly size: number
    readonly lagBytes: number
  }>
}

export interface ModelSeen {
  readonly model: string
  readonly failures: number
  readonly lastSeen: string
}
