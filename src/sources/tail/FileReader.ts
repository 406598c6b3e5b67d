/**
 * Bytes of one file -> lines -> records -> events, with the read position to commit, in two
 * halves that can run on two threads:
 * - `RecordScanner`: lines -> records, and the cheap pre-filter (`hasFailureSignal`) that drops
 *   ordinary records. It sees every byte of the file (the bulk of the work on a backlog), so the
 *   tailer runs it in a worker thread (ScanWorker.ts); `replay` runs it inline.
 * - `eventsOfRecords`: the records that may be failures -> parsed, classified events with ids.
 * `RecordReader` is both halves on one thread. Synchronous and I/O-free: callers read chunks into
 * `splitter.prepare()`, call `splitter.commit(n)`, then `pump()`.
 *
 * The position to commit is the start of the oldest record the assembler has not finished
 * (it is re-read after a restart), or the end of the last complete line when nothing is pending.
 *
 * Event ids are deterministic: `deterministicEventId("<dev:ino>:<startOffset>:<record text>",
 * occurredAt)`. The same bytes read again (replaying a tailed file) give the same id; other
 * bytes at the same offset (a truncated, rewritten file) give another one. A record without a
 * timestamp has occurredAt = ingestedAt, so only timestamped records dedupe across reads.
 */
import type { FailureEvent } from "../../classify/Event.js"
import { classify } from "../../classify/classify.js"
import { type AssembledRecord, RecordAssembler } from "../../parse/assemble.js"
import { hasFailureSignal, parseRecord } from "../../parse/parse.js"
import { deterministicEventId } from "../ids.js"
import { makeEvent } from "../pipeline.js"
import { LineSplitter } from "./lineSplitter.js"

export interface Position {
  readonly offset: number
  /** 1-based number of the line starting at `offset`. */
  readonly line: number
}

export interface ReadBatch {
  readonly events: ReadonlyArray<FailureEvent>
  readonly ignored: number
  /** Lines pushed into the assembler since the previous batch. */
  readonly lines: number
}

/** What the scanner found since the last `takeScan()`. */
export interface Scan {
  /** Records that may be failed calls (passed the pre-filter), in order. */
  readonly records: ReadonlyArray<AssembledRecord>
  /** Records dropped by the pre-filter. */
  readonly skipped: number
  /** Lines pushed into the assembler. */
  readonly lines: number
}

export interface RecordReaderOptions {
  /** Identity of the file (`dev:ino`): event ids are derived from it, the record's offset and bytes. */
  readonly key: string
  /** `file:<path>`. */
  readonly source: string
  readonly service: string | null
  readonly chunkSize?: number
  readonly maxLineBytes?: number
}

/** Lines -> records -> the records worth parsing. */
export class RecordScanner {
  readonly splitter: LineSplitter
  private assembler = new RecordAssembler()
  private records: AssembledRecord[] = []
  private skipped = 0
  private lines = 0

  constructor(start: Position, chunkSize?: number, maxLineBytes?: number) {
    this.splitter = new LineSplitter(start.offset, start.line, chunkSize, maxLineBytes)
  }

  /**
   * Push buffered complete lines until `maxLines` lines are in the current scan.
   * Returns true when the limit stopped it (more lines may be buffered).
   */
  pump(maxLines: number): boolean {
    const splitter = this.splitter
    while (this.lines < maxLines) {
      const line = splitter.next()
      if (line === null) return false
      this.lines++
      const done = this.assembler.push(line.text, line.lineNo, line.start, line.end)
      if (done.length > 0) this.accept(done)
    }
    return true
  }

  /** Finish the pending record (the idle timeout, a truncation, a drain). */
  flush(): void {
    this.accept(this.assembler.flush())
  }

  /** The writer is gone: the bytes after the last newline are a line too; finish everything. */
  finish(): void {
    let line = this.splitter.next()
    while (line !== null) {
      this.lines++
      this.accept(this.assembler.push(line.text, line.lineNo, line.start, line.end))
      line = this.splitter.next()
    }
    const rest = this.splitter.rest()
    if (rest !== null) {
      this.lines++
      this.accept(this.assembler.push(rest.text, rest.lineNo, rest.start, rest.end))
    }
    this.flush()
  }

  /** A record is started but not known to be complete. */
  get hasPending(): boolean {
    return this.assembler.resumePoint() !== null
  }

  /** Where a restart must resume so that nothing is lost and nothing is read twice. */
  position(): Position {
    return this.assembler.resumePoint() ?? { offset: this.splitter.offset, line: this.splitter.line }
  }

  takeScan(): Scan {
    const scan: Scan = { records: this.records, skipped: this.skipped, lines: this.lines }
    this.records = []
    this.skipped = 0
    this.lines = 0
    return scan
  }

  /** Drop everything read and not taken, continue at `start` (a truncation, a failed commit). */
  restart(start: Position): void {
    this.splitter.reset(start.offset, start.line)
    this.assembler = new RecordAssembler()
    this.records = []
    this.skipped = 0
    this.lines = 0
  }

  private accept(records: ReadonlyArray<AssembledRecord>): void {
    for (const record of records) {
      if (hasFailureSignal(record.text)) this.records.push(record)
      else this.skipped++
    }
  }
}

const PRE_SCANNED = { prefiltered: true } as const
const PRE_SCANNED_TRUNCATED = { prefiltered: true, truncated: true } as const

/**
 * Parse and classify the records a scanner kept. Ids: the same bytes read again (a replay of a
 * tailed file) get the same id; other bytes at the same offset (the file was truncated and
 * rewritten) get another one.
 */
export function eventsOfRecords(
  records: ReadonlyArray<AssembledRecord>,
  opts: RecordReaderOptions & { readonly source: string },
  ingestedAt: string,
  nowMs: number,
  out: FailureEvent[]
): number {
  let ignored = 0
  for (const record of records) {
    const r = parseRecord(record.text, record.truncated ? PRE_SCANNED_TRUNCATED : PRE_SCANNED)
    if (r._tag === "Ignored") {
      ignored++
      continue
    }
    const occurredAt = r.failure.occurredAt ?? ingestedAt
    const t = Date.parse(occurredAt)
    const id = deterministicEventId(`${opts.key}:${record.startOffset}:${record.text}`, Number.isFinite(t) ? t : nowMs)
    out.push(
      makeEvent(r.failure, r.sample, classify(r.failure), { source: opts.source, line: record.line, ingestedAt, defaultService: opts.service, id })
    )
  }
  return ignored
}

/** Scans in, a batch of events out: what the tailer hands to the store with a position. */
export class EventBatcher {
  source: string
  private events: FailureEvent[] = []
  private ignored = 0
  private lines = 0
  private ingestedMs = -1
  private ingestedAt = ""

  constructor(private readonly opts: RecordReaderOptions) {
    this.source = opts.source
  }

  /** Parse and classify the records of `scan` into the batch. */
  absorb(scan: Scan, nowMs: number): void {
    this.lines += scan.lines
    this.ignored += scan.skipped
    if (scan.records.length === 0) return
    if (nowMs !== this.ingestedMs) {
      this.ingestedMs = nowMs
      this.ingestedAt = new Date(nowMs).toISOString()
    }
    this.ignored += eventsOfRecords(scan.records, { ...this.opts, source: this.source }, this.ingestedAt, nowMs, this.events)
  }

  /** Lines in the batch so far. */
  get size(): number {
    return this.lines
  }

  get hasOutput(): boolean {
    return this.lines > 0 || this.events.length > 0 || this.ignored > 0
  }

  takeBatch(): ReadBatch {
    const batch: ReadBatch = { events: this.events, ignored: this.ignored, lines: this.lines }
    this.events = []
    this.ignored = 0
    this.lines = 0
    return batch
  }
}

/** Both halves on one thread: bytes in, events out. */
export class RecordReader {
  readonly scanner: RecordScanner
  private batcher: EventBatcher

  constructor(
    private readonly opts: RecordReaderOptions,
    start: Position
  ) {
    this.batcher = new EventBatcher(opts)
    this.scanner = new RecordScanner(start, opts.chunkSize, opts.maxLineBytes)
  }

  get source(): string {
    return this.batcher.source
  }

  set source(source: string) {
    this.batcher.source = source
  }

  get splitter(): LineSplitter {
    return this.scanner.splitter
  }

  /** Push buffered lines until the batch holds `maxLines`; true when the limit stopped it. */
  pump(maxLines: number, nowMs: number): boolean {
    const more = this.scanner.pump(maxLines - this.batcher.size)
    this.batcher.absorb(this.scanner.takeScan(), nowMs)
    return more
  }

  flush(nowMs: number): void {
    this.scanner.flush()
    this.batcher.absorb(this.scanner.takeScan(), nowMs)
  }

  finish(nowMs: number): void {
    this.scanner.finish()
    this.batcher.absorb(this.scanner.takeScan(), nowMs)
  }

  get hasPending(): boolean {
    return this.scanner.hasPending
  }

  position(): Position {
    return this.scanner.position()
  }

  takeBatch(): ReadBatch {
    return this.batcher.takeBatch()
  }

  restart(start: Position): void {
    this.scanner.restart(start)
    this.batcher = new EventBatcher({ ...this.opts, source: this.batcher.source })
  }
}
