/**
 * Bytes of one file -> lines -> records -> events, with the read position to commit, in two
 * halves that can run on two threads:
 * - `RecordScanner`: lines -> records, and the cheap pre-filter (`hasFailureSignal`) that drops
 *   ordinary records. It sees every byte of the file (the bulk of the work on a backlog), so the
 *   tailer runs it in a worker thread (ScanWorker.ts); `replay` runs it inline.
 * - `EventBatcher`: the records that may be failures -> parsed, classified events with ids,
 *   gathered into the batch the tailer commits with its position.
 * Synchronous: `RecordScanner.readFrom` reads a descriptor (page-cache reads take microseconds).
 *
 * The position to commit is the start of the oldest record the assembler has not finished
 * (it is re-read after a restart), or the end of the last complete line when nothing is pending.
 *
 * Event ids are deterministic: `deterministicEventId("<dev:ino>:<startOffset>:<record text>",
 * occurredAt)`, the hash computed by the scanner (`Candidate.idHash`), the time added by the
 * batcher. The same bytes read again (replaying a tailed file) give the same id; other bytes at
 * the same offset (a truncated, rewritten file) give another one. A record without a
 * timestamp has occurredAt = ingestedAt, so only timestamped records dedupe across reads.
 */
import * as fs from "node:fs"
import { type FailureEvent, instantMs } from "../../classify/Event.js"
import { type AssembledRecord, RecordAssembler } from "../../parse/assemble.js"
import { hasFailureSignal } from "../../parse/parse.js"
import { LineSignal, lineSignals } from "../../parse/lineSignals.js"
import { callOf } from "../../parse/call.js"
import { type CallCount, CallTally, minuteOf } from "../Batch.js"
import { eventIdAt, idHashOf } from "../ids.js"
import { type PackedEvents, unpackEvents } from "./eventPack.js"
import { recordToEvent } from "../pipeline.js"
import { type Line, LineSplitter } from "./lineSplitter.js"

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
  /** Successful calls read since the previous batch (CONTRACT section 3). */
  readonly calls: ReadonlyArray<CallCount>
}

/** A record that passed the pre-filter, with the hash part of its event id (`idHashOf`). */
export interface Candidate extends AssembledRecord {
  readonly idHash: string
}

/** What the scanner found since the last `takeScan()`. */
export interface Scan {
  /** Records that may be failed calls (passed the pre-filter), in order. */
  readonly records: ReadonlyArray<Candidate>
  /** Records dropped by the pre-filter. */
  readonly skipped: number
  /** Lines pushed into the assembler. */
  readonly lines: number
  /**
   * Successful calls among the dropped records, by minute (-1: the record has no time of its
   * own), the record's service (null: none), model and provider.
   */
  readonly calls: ReadonlyArray<CallCount>
  /**
   * Records the scan worker has parsed already (they come before `records`, which holds the
   * rest): their events, without `source` (the tailer's reader sets it), and how many of them
   * were not failed calls (a successful call among them is in `calls`).
   */
  readonly parsed?: ParsedPart
}

export interface ParsedPart {
  /** In order: the events of each batch scanned ahead, packed for the trip (eventPack.ts). */
  readonly packed: ReadonlyArray<PackedEvents>
  readonly ignored: number
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

export interface ScannerOptions {
  /** Identity of the file (`dev:ino`): the candidates' id hashes are derived from it. */
  readonly key: string
  /** Service of the source (config `tail[].service`), for the records the scan worker parses. */
  readonly service?: string | null
  readonly chunkSize?: number
  readonly maxLineBytes?: number
}

/** Bytes of an over-long line skipped per `readFrom` before it returns (`more`). */
const SKIP_PER_READ = 8 * 1024 * 1024

/**
 * A scan ends at this many candidates, or this many characters of them, whichever comes first,
 * even short of its line limit: in a failure storm three lines of four are candidates, and a
 * 50 k-line batch of events in flight (scanned, parsed, being committed) held tens of MB.
 * 1024 rather than 2048: ~2.5 MB less at the storm's peak (146–149 against 148–151 MiB, three
 * alternating runs each), for one more transaction per 1024 failures.
 */
export const SCAN_MAX_CANDIDATES = 1024
export const SCAN_MAX_CANDIDATE_CHARS = 2 * 1024 * 1024

/** Lines -> records -> the records worth parsing. */
export class RecordScanner {
  readonly splitter: LineSplitter
  private readonly key: string
  private assembler = new RecordAssembler()
  private records: Candidate[] = []
  private skipped = 0
  private lines = 0
  private calls = new CallTally()
  /** Characters of the candidates in the current scan. */
  private candidateChars = 0
  /** The lines pushed that have `lineSignals`, oldest first from `signalHead`: number, then flags. */
  private signalLines: number[] = []
  private signalHead = 0

  constructor(start: Position, opts: ScannerOptions) {
    this.key = opts.key
    this.splitter = new LineSplitter(start.offset, start.line, opts.chunkSize, opts.maxLineBytes, lineSignals)
  }

  /**
   * Push buffered complete lines until `maxLines` lines are in the current scan.
   * Returns true when the limit stopped it (more lines may be buffered).
   */
  pump(maxLines: number): boolean {
    const splitter = this.splitter
    while (!this.isFull(maxLines)) {
      const line = splitter.advance()
      if (line === null) return false
      const done = this.push(line)
      if (done.length > 0) this.accept(done)
    }
    return true
  }

  /**
   * Read `fd` and scan until `maxLines` lines are in the scan or the end is reached.
   * `more`: the line limit stopped it; `gotData`: bytes arrived. Throws what `fs.readSync` throws.
   */
  readFrom(fd: number, maxLines: number): { more: boolean; gotData: boolean } {
    const splitter = this.splitter
    let gotData = false
    let skipped = 0
    for (;;) {
      if (this.pump(maxLines)) return { more: true, gotData }
      // a gigabyte line without a newline gives no line to stop at: hand the thread back now
      // and then (`more`: the caller reads on), the line counts once when its newline arrives
      if (splitter.skipping && skipped >= SKIP_PER_READ) return { more: true, gotData }
      const { buffer, at, length } = splitter.prepare()
      const n = fs.readSync(fd, buffer, at, length, splitter.readOffset)
      if (n === 0) return { more: false, gotData }
      if (splitter.skipping) skipped += n
      splitter.commit(n)
      gotData = true
    }
  }

  /** Finish the pending record (the idle timeout, a truncation, a drain). */
  flush(): void {
    this.accept(this.assembler.flush())
  }

  /** The writer is gone: the bytes after the last newline are a line too; finish everything. */
  finish(): void {
    let line = this.splitter.advance()
    while (line !== null) {
      this.accept(this.push(line))
      line = this.splitter.advance()
    }
    const rest = this.splitter.rest()
    if (rest !== null) this.accept(this.push(rest))
    this.flush()
  }

  /** Lines in the current scan (pushed since the last `takeScan()`). */
  get scanned(): number {
    return this.lines
  }

  /** The current scan has `maxLines` lines, or as many candidates as a scan may hold. */
  isFull(maxLines: number): boolean {
    return this.lines >= maxLines || this.records.length >= SCAN_MAX_CANDIDATES || this.candidateChars >= SCAN_MAX_CANDIDATE_CHARS
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
    const scan: Scan = { records: this.records, skipped: this.skipped, lines: this.lines, calls: this.calls.take() }
    this.records = []
    this.skipped = 0
    this.lines = 0
    this.candidateChars = 0
    return scan
  }

  /** Drop everything read and not taken, continue at `start` (a truncation, a failed commit). */
  restart(start: Position): void {
    this.splitter.reset(start.offset, start.line)
    this.assembler = new RecordAssembler()
    this.records = []
    this.calls = new CallTally()
    this.skipped = 0
    this.lines = 0
    this.candidateChars = 0
    this.signalLines = []
    this.signalHead = 0
  }

  private push(line: Line): ReadonlyArray<AssembledRecord> {
    this.lines++
    if (line.marks !== 0) this.signalLines.push(line.lineNo, line.marks)
    return this.assembler.push(line.text, line.lineNo, line.start, line.end)
  }

  /** The `lineSignals` of the lines of `record`, together; forgets the lines up to its end. */
  private signalsOf(record: AssembledRecord): number {
    const end = record.line + record.lineCount
    const lines = this.signalLines
    let signals = 0
    while (this.signalHead < lines.length && lines[this.signalHead]! < end) {
      if (lines[this.signalHead]! >= record.line) signals |= lines[this.signalHead + 1]!
      this.signalHead += 2
    }
    if (this.signalHead === lines.length && lines.length > 0) {
      this.signalLines = []
      this.signalHead = 0
    }
    return signals
  }

  private accept(records: ReadonlyArray<AssembledRecord>): void {
    for (const record of records) {
      const signals = this.signalsOf(record)
      if (!hasFailureSignal(record.text, signals)) {
        this.skipped++
        if ((signals & LineSignal.Call) !== 0) {
          // a successful call: counted here, never parsed (CONTRACT section 3)
          const call = callOf(record.text)
          if (call !== null) this.calls.add(call.occurredAt === null ? -1 : minuteOf(call.occurredAt), call.service, call.model, call.provider, 1)
        }
        continue
      }
      // the same bytes read again (a replay of a tailed file) get the same id; other bytes at the
      // same offset (the file was truncated and rewritten) get another one
      this.candidateChars += record.text.length
      this.records.push({
        text: record.text,
        line: record.line,
        startOffset: record.startOffset,
        endOffset: record.endOffset,
        truncated: record.truncated,
        lineCount: record.lineCount,
        idHash: idHashOf([this.key, `:${record.startOffset}:`, record.text])
      })
    }
  }
}

/**
 * Candidates -> events: parse, classify, the deterministic id. The batcher runs it on what the
 * scanner hands over; the scan worker runs it too, on the batch it holds ready, while it would
 * otherwise wait for the tailer to ask for it.
 */
export class CandidateParser {
  private ingestedMs = -1
  private ingestedAt = ""

  constructor(
    /** `file:<path>`; the scan worker parses with "" (the reader sets the source). */
    public source: string,
    private readonly service: string | null
  ) {}

  /**
   * Parse `records[from, to)` read at `nowMs`: events into `events`, a successful call among the
   * rest into `calls`. Returns how many were not failed calls.
   */
  parse(records: ReadonlyArray<Candidate>, from: number, to: number, nowMs: number, events: FailureEvent[], calls: CallTally): number {
    if (nowMs !== this.ingestedMs) {
      this.ingestedMs = nowMs
      this.ingestedAt = new Date(nowMs).toISOString()
    }
    let ignored = 0
    for (let i = from; i < to; i++) {
      const record = records[i]!
      const r = recordToEvent(record.text, {
        source: this.source,
        line: record.line,
        ingestedAt: this.ingestedAt,
        defaultService: this.service,
        truncated: record.truncated,
        prefiltered: true,
        idFor: (occurredAt) => {
          const t = instantMs(occurredAt)
          return eventIdAt(record.idHash, Number.isFinite(t) ? t : nowMs)
        }
      })
      if ("event" in r) events.push(r.event)
      else {
        ignored++
        // a successful call with a failure word in it (`"rateLimitRemaining": 90`, `req-2err2c03`)
        const call = callOf(record.text)
        if (call !== null) calls.add(minuteOf(call.occurredAt ?? nowMs), call.service ?? this.service, call.model, call.provider, 1)
      }
    }
    return ignored
  }
}

/** Scans in, a batch of events out: what the tailer hands to the store with a position. */
export class EventBatcher {
  private events: FailureEvent[] = []
  private ignored = 0
  private lines = 0
  private readonly calls = new CallTally()
  private readonly parser: CandidateParser

  constructor(private readonly opts: RecordReaderOptions) {
    this.parser = new CandidateParser(opts.source, opts.service)
  }

  get source(): string {
    return this.parser.source
  }

  set source(source: string) {
    this.parser.source = source
  }

  /** Take the events the scan worker parsed, parse and classify the rest of `scan` into the batch. */
  absorb(scan: Scan, nowMs: number): void {
    this.lines += scan.lines
    this.ignored += scan.skipped
    const { service } = this.opts
    // a call without a time of its own happened about when it was read
    for (const c of scan.calls) this.calls.add(c.minute === -1 ? minuteOf(nowMs) : c.minute, c.service ?? service, c.model, c.provider, c.ok, c.failed)
    if (scan.parsed !== undefined) {
      const source = this.parser.source
      for (const e of scan.parsed.packed.flatMap(unpackEvents)) {
        ;(e as { source: string }).source = source
        this.events.push(e)
      }
      this.ignored += scan.parsed.ignored
    }
    if (scan.records.length > 0) this.ignored += this.parser.parse(scan.records, 0, scan.records.length, nowMs, this.events, this.calls)
  }

  /** Lines in the batch so far. */
  get size(): number {
    return this.lines
  }

  takeBatch(): ReadBatch {
    const batch: ReadBatch = { events: this.events, ignored: this.ignored, lines: this.lines, calls: this.calls.take() }
    this.events = []
    this.ignored = 0
    this.lines = 0
    return batch
  }
}
