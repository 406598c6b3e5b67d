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
}

export interface CommitResult {
  /** Events newly stored, in order (what alerting looks at). */
  readonly inserted: ReadonlyArray<FailureEvent>
  /** Events whose `id` was already stored. */
  readonly duplicates: number
}
