/**
 * Bytes of one file -> lines -> records -> events, with the read position to commit.
 * Synchronous and I/O-free: the tailer and `replay` read chunks into `splitter.prepare()`,
 * call `splitter.commit(n)`, then `pump()`; a batch is taken with `takeBatch()`.
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
import { type AssembledRecord, RecordAssembler } from "../../parse/assemble.js"
import { deterministicEventId } from "../ids.js"
import { recordToEvent } from "../pipeline.js"
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

export interface RecordReaderOptions {
  /** Identity of the file (`dev:ino`): event ids are derived from it, the record's offset and bytes. */
  readonly key: string
  /** `file:<path>`. */
  readonly source: string
  readonly service: string | null
  readonly chunkSize?: number
  readonly maxLineBytes?: number
}

export class RecordReader {
  readonly splitter: LineSplitter
  source: string
  private assembler = new RecordAssembler()
  private events: FailureEvent[] = []
  private ignored = 0
  private lines = 0
  private ingestedMs = -1
  private ingestedAt = ""

  constructor(
    private readonly opts: RecordReaderOptions,
    start: Position
  ) {
    this.source = opts.source
    this.splitter = new LineSplitter(start.offset, start.line, opts.chunkSize, opts.maxLineBytes)
  }

  /**
   * Push buffered complete lines until `maxLines` lines are in the current batch.
   * Returns true when the limit stopped it (more lines may be buffered).
   */
  pump(maxLines: number, nowMs: number): boolean {
    const splitter = this.splitter
    while (this.lines < maxLines) {
      const line = splitter.next()
      if (line === null) return false
      this.lines++
      const done = this.assembler.push(line.text, line.lineNo, line.start, line.end)
      if (done.length > 0) this.accept(done, nowMs)
    }
    return true
  }

  /** Finish the pending record (the idle timeout, a truncation, a drain). */
  flush(nowMs: number): void {
    this.accept(this.assembler.flush(), nowMs)
  }

  /** The writer is gone: the bytes after the last newline are a line too; finish everything. */
  finish(nowMs: number): void {
    let line = this.splitter.next()
    while (line !== null) {
      this.lines++
      this.accept(this.assembler.push(line.text, line.lineNo, line.start, line.end), nowMs)
      line = this.splitter.next()
    }
    const rest = this.splitter.rest()
    if (rest !== null) {
      this.lines++
      this.accept(this.assembler.push(rest.text, rest.lineNo, rest.start, rest.end), nowMs)
    }
    this.flush(nowMs)
  }

  /** A record is started but not known to be complete. */
  get hasPending(): boolean {
    return this.assembler.resumePoint() !== null
  }

  /** Where a restart must resume so that nothing is lost and nothing is read twice. */
  position(): Position {
    return this.assembler.resumePoint() ?? { offset: this.splitter.offset, line: this.splitter.line }
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

  /** Drop everything read and not taken, continue at `start` (a truncation, a failed commit). */
  restart(start: Position): void {
    this.splitter.reset(start.offset, start.line)
    this.assembler = new RecordAssembler()
    this.events = []
    this.ignored = 0
    this.lines = 0
  }

  private accept(records: ReadonlyArray<AssembledRecord>, nowMs: number): void {
    if (records.length === 0) return
    if (nowMs !== this.ingestedMs) {
      this.ingestedMs = nowMs
      this.ingestedAt = new Date(nowMs).toISOString()
    }
    for (const record of records) {
      const result = recordToEvent(record.text, {
        source: this.source,
        line: record.line,
        ingestedAt: this.ingestedAt,
        defaultService: this.opts.service,
        truncated: record.truncated
      })
      if ("event" in result) {
        const event = result.event
        const t = Date.parse(event.occurredAt)
        // The same bytes read again (a replay of a tailed file) get the same id; other bytes at
        // the same offset (the file was truncated and rewritten) get another one.
        const id = deterministicEventId(`${this.opts.key}:${record.startOffset}:${record.text}`, Number.isFinite(t) ? t : nowMs)
        this.events.push({ ...event, id })
      } else {
        this.ignored++
      }
    }
  }
}
