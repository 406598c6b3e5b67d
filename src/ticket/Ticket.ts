/**
 * The escalation ticket as served and sent (CONTRACT sections 6 and 7). Its own module, below
 * both the ticket store (ticket/tickets.ts) and the outbox (alert/outbox.ts) that sends it, so
 * the two do not import each other.
 */
import type { TicketGroupLabel } from "../config/Config.js"
import type { Diagnosis } from "./diagnosis.js"

export interface Ticket {
  readonly id: string
  readonly fingerprint: string
  readonly state: "open" | "acknowledged" | "resolved"
  readonly count: number
  readonly firstSeen: string
  readonly lastSeen: string
  readonly reopenedCount: number
  /** The most frequent of `models` (null when no occurrence named a model). */
  readonly model: string | null
  /** The most frequent of `services`. */
  readonly service: string | null
  readonly status: number | null
  readonly code: number | string | null
  readonly message: string | null
  /** The models the signature was seen from, with their occurrence counts, most frequent first. */
  readonly models: ReadonlyArray<{ readonly model: string; readonly count: number }>
  readonly services: ReadonlyArray<{ readonly service: string; readonly count: number }>
  /** The most frequent of `providers`. */
  readonly provider: string | null
  readonly providers: ReadonlyArray<{ readonly provider: string; readonly count: number }>
  /** The values of the `tickets.groupBy` labels this ticket is for ({} when none). */
  readonly group: Readonly<Partial<Record<TicketGroupLabel, string | null>>>
  readonly sample: string
  readonly diagnosis: Diagnosis
  readonly openedAt: string
  readonly acknowledgedAt: string | null
  readonly resolvedAt: string | null
  readonly eventId: string
}

export type TicketState = Ticket["state"]
