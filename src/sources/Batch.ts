/**
 * What every source (file tailer, webhook, replay, stdin) hands to the store: events plus
 * the read position they were read up to. The store commits a batch in one transaction, so
 * a read position is never ahead of (nor behind) the events stored for it.
 */
import type { FailureEvent } from "../classify/Event.js"

/** Where to resume reading a file: committed in the same transaction as its events. */
export interface SourceCheckpoint {
  /** Stable identity of the file (not its path): survives renames. */
  readonly key: string
  /** The path the file had when last read. */
  readonly path: string
  /** Byte offset of the first byte not yet consumed (start of the oldest unfinished record). */
  readonly offset: number
  /** 1-based number of the line that starts at `offset`. */
  readonly line: number
  /** File size when read, for `lagBytes = size - offset`. */
  readonly size: number
  /** Hash of the file's first `headLength` bytes: tells a reused inode from the file we read. */
  readonly headHash: string
  readonly headLength: number
}

export interface IngestBatch {
  /** `file:<path>`, `webhook`, `stdin`: the label of ingest counters and metrics. */
  readonly source: string
  readonly events: ReadonlyArray<FailureEvent>
  /** Lines (or webhook records) read in this batch. */
  readonly linesRead: number
  /** Records that were read and are not failed calls. */
  readonly ignored: number
  readonly checkpoint: SourceCheckpoint | null
  /** Successful calls (and the webhook's counted failed calls) seen in this batch: counted, not stored. */
  readonly calls?: ReadonlyArray<CallCount>
  /**
   * The webhook's `calls` posts (counts kept by the application): a post with an `id` is
   * counted once, a retry with the same id adds nothing.
   */
  readonly callPosts?: ReadonlyArray<CallPost>
}

export interface CallPost {
  readonly id: string | null
  readonly calls: ReadonlyArray<CallCount>
}

export interface CommitResult {
  /** Events newly stored, in order (what alerting looks at). */
  readonly inserted: ReadonlyArray<FailureEvent>
  /** Events whose `id` was already stored. */
  readonly duplicates: number
  /** Ids of `calls` posts that were already counted (not counted again). */
  readonly repeatedCallPosts?: ReadonlySet<string>
}

/** The calls posts of `batch` that its commit counted. */
export const countedPosts = (batch: IngestBatch, result: CommitResult): ReadonlyArray<CallPost> =>
  (batch.callPosts ?? []).filter((p) => p.id === null || result.repeatedCallPosts?.has(p.id) !== true)

/** The calls of `batch` that its commit counted. */
export const countedCalls = (batch: IngestBatch, result: CommitResult): ReadonlyArray<CallCount> => {
  const posts = countedPosts(batch, result)
  return posts.length === 0 ? (batch.calls ?? []) : [...(batch.calls ?? []), ...posts.flatMap((p) => p.calls)]
}

/**
 * Calls of the LLM API counted in one minute for one service, model and provider (CONTRACT
 * section 3): `ok` the successful ones, `failed` calls that failed without an event (the webhook's
 * `calls` form). Each stored event is counted as a failed call by the store itself.
 */
export interface CallCount {
  /** Start of the minute, epoch ms. */
  readonly minute: number
  readonly service: string | null
  readonly model: string | null
  readonly provider: string | null
  readonly ok: number
  readonly failed: number
}

/** Call counts added up by minute, service, model and provider. */
export class CallTally {
  private readonly counts = new Map<string, { minute: number; service: string | null; model: string | null; provider: string | null; ok: number; failed: number }>()

  add(minute: number, service: string | null, model: string | null, provider: string | null, ok: number, failed = 0): void {
    const key = `${minute}\u0000${service ?? "\u0001"}\u0000${model ?? "\u0001"}\u0000${provider ?? "\u0001"}`
    const c = this.counts.get(key)
    if (c === undefined) this.counts.set(key, { minute, service, model, provider, ok, failed })
    else {
      c.ok += ok
      c.failed += failed
    }
  }

  get size(): number {
    return this.counts.size
  }

  /** The counts so far, and an empty tally. */
  take(): CallCount[] {
    const out = [...this.counts.values()]
    this.counts.clear()
    return out
  }
}

export const MINUTE_MS = 60_000
export const minuteOf = (ms: number): number => ms - (((ms % MINUTE_MS) + MINUTE_MS) % MINUTE_MS)
