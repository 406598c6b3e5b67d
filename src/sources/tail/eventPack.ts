/**
 * The events the scan worker parsed, packed for the trip to the main thread: one table of the
 * distinct values of the batch and one cell (a table index) per field of each event. A storm's
 * events share most of their fields (category, action, fingerprint, model, message, source…),
 * and the structured clone of plain event objects sent and rebuilt every one of those strings
 * for every event: packed, the batch is about half the bytes and the main thread allocates one
 * object per event, its strings shared.
 */
import type { FailureEvent } from "../../classify/Event.js"

/** Every field of an event, in the order events are rebuilt (one hidden class for all). */
const FIELDS = [
  "id",
  "occurredAt",
  "ingestedAt",
  "source",
  "line",
  "service",
  "status",
  "code",
  "message",
  "model",
  "requestId",
  "endpoint",
  "stream",
  "category",
  "rateLimitKind",
  "severity",
  "retryable",
  "action",
  "fingerprint",
  "bodyNotJson",
  "provider",
  "sample"
] as const satisfies ReadonlyArray<keyof FailureEvent>

/** A field added to FailureEvent and not to FIELDS (nor to `unpackEvents`) fails to compile here. */
type NoneLeft<T extends never> = T
export type EveryFieldPacked = NoneLeft<Exclude<keyof FailureEvent, (typeof FIELDS)[number]>>

/** Fields that differ from event to event: stored without looking for an equal value. */
const OWN = new Set<string>(["id", "occurredAt", "line", "requestId", "sample"])

export interface PackedEvents {
  readonly count: number
  /** The distinct values (strings, numbers, booleans, null). */
  readonly values: ReadonlyArray<string | number | boolean | null>
  /** `count * FIELDS.length` indexes into `values`, event by event. */
  readonly cells: Int32Array
}

/**
 * Events packed as they are parsed: the scan worker adds each event as soon as it has it, so a
 * batch's event objects die young instead of living (and being copied by every scavenge) until
 * the batch is answered.
 */
export class PackBuilder {
  private readonly values: Array<string | number | boolean | null> = []
  private readonly seen = new Map<string | number | boolean | null, number>()
  private cells = new Int32Array(64 * FIELDS.length)
  private count = 0

  get size(): number {
    return this.count
  }

  add(e: FailureEvent): void {
    let k = this.count * FIELDS.length
    if (k + FIELDS.length > this.cells.length) {
      const bigger = new Int32Array(this.cells.length * 2)
      bigger.set(this.cells)
      this.cells = bigger
    }
    const cells = this.cells
    const values = this.values
    for (const f of FIELDS) {
      const v = e[f]
      if (OWN.has(f)) {
        cells[k++] = values.length
        values.push(v)
        continue
      }
      let at = this.seen.get(v)
      if (at === undefined) {
        at = values.length
        values.push(v)
        this.seen.set(v, at)
      }
      cells[k++] = at
    }
    this.count++
  }

  finish(): PackedEvents {
    return { count: this.count, values: this.values, cells: this.cells.slice(0, this.count * FIELDS.length) }
  }
}

export function packEvents(events: ReadonlyArray<FailureEvent>): PackedEvents {
  const b = new PackBuilder()
  for (const e of events) b.add(e)
  return b.finish()
}

export function unpackEvents(p: PackedEvents): FailureEvent[] {
  const out: FailureEvent[] = new Array(p.count)
  const v = p.values as ReadonlyArray<never>
  const c = p.cells
  let k = 0
  for (let i = 0; i < p.count; i++) {
    out[i] = {
      id: v[c[k]!]!,
      occurredAt: v[c[k + 1]!]!,
      ingestedAt: v[c[k + 2]!]!,
      source: v[c[k + 3]!]!,
      line: v[c[k + 4]!]!,
      service: v[c[k + 5]!]!,
      status: v[c[k + 6]!]!,
      code: v[c[k + 7]!]!,
      message: v[c[k + 8]!]!,
      model: v[c[k + 9]!]!,
      requestId: v[c[k + 10]!]!,
      endpoint: v[c[k + 11]!]!,
      stream: v[c[k + 12]!]!,
      category: v[c[k + 13]!]!,
      rateLimitKind: v[c[k + 14]!]!,
      severity: v[c[k + 15]!]!,
      retryable: v[c[k + 16]!]!,
      action: v[c[k + 17]!]!,
      fingerprint: v[c[k + 18]!]!,
      bodyNotJson: v[c[k + 19]!]!,
      provider: v[c[k + 20]!]!,
      sample: v[c[k + 21]!]!
    }
    k += FIELDS.length
  }
  return out
}
