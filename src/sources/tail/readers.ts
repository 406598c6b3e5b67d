/**
 * How the tailer reads one open file: `TailReader`. Two implementations with the same results:
 * - `LocalReader`: scanner and parser on this thread (`replay`, and the tailer when the worker
 *   script is not there, as when the sources run under vitest without being built);
 * - `RemoteReader`: the scanner in the scan worker (scanWorker.ts), the parser here. The worker
 *   scans the next batch while this thread commits the current one.
 */
import { Effect } from "effect"
import * as fs from "node:fs"
import { fileURLToPath } from "node:url"
import { Worker } from "node:worker_threads"
import { EventBatcher, type Position, type ReadBatch, type RecordReaderOptions, RecordScanner } from "./FileReader.js"
import { ioSync, TailIoError } from "./io.js"
import { classifyRules } from "../../classify/rules.js"
import { type ScanCall, type ScanReply, type ScanState, workerDataOf } from "./scanProtocol.js"

export interface TailReader {
  /** `file:<path>`: follows the file's path (a rotated file keeps its events' source). */
  source: string
  /** Read and scan until the batch holds `maxLines` lines or the end is reached. */
  read(maxLines: number, nowMs: number): Effect.Effect<{ readonly more: boolean; readonly gotData: boolean }, TailIoError>
  /** Finish the pending record (idle timeout, truncation, drain). */
  flush(nowMs: number): Effect.Effect<void, TailIoError>
  /** The writer is gone: the last line needs no newline; finish everything. */
  finish(nowMs: number): Effect.Effect<void, TailIoError>
  /** Drop what was read and not taken, continue at `start`. */
  restart(start: Position): void
  /** Stop reading the descriptor: done before the file is closed. */
  close(): Effect.Effect<void>
  readonly hasPending: boolean
  /** Where a restart must resume, as of what `takeBatch()` returns. */
  position(): Position
  /** File offset where the next read starts (to notice a truncated file). */
  readonly readOffset: number
  takeBatch(): ReadBatch
}

/** Scanner and parser both on this thread. */
export class LocalReader implements TailReader {
  private readonly scanner: RecordScanner
  private readonly batcher: EventBatcher

  constructor(
    private readonly fd: number,
    private readonly file: string,
    opts: RecordReaderOptions,
    start: Position
  ) {
    this.scanner = new RecordScanner(start, opts)
    this.batcher = new EventBatcher(opts)
  }

  get source(): string {
    return this.batcher.source
  }

  set source(source: string) {
    this.batcher.source = source
  }

  read(maxLines: number, nowMs: number) {
    return ioSync("read", this.file, () => this.scanner.readFrom(this.fd, maxLines - this.batcher.size)).pipe(
      Effect.tap(() => this.absorb(nowMs))
    )
  }

  flush(nowMs: number) {
    return Effect.sync(() => {
      this.scanner.flush()
      this.absorb(nowMs)
    })
  }

  finish(nowMs: number) {
    return Effect.sync(() => {
      this.scanner.finish()
      this.absorb(nowMs)
    })
  }

  restart(start: Position): void {
    this.scanner.restart(start)
    this.batcher.takeBatch() // dropped: read and not taken
  }

  close(): Effect.Effect<void> {
    return Effect.void
  }

  get hasPending(): boolean {
    return this.scanner.hasPending
  }

  position(): Position {
    return this.scanner.position()
  }

  get readOffset(): number {
    return this.scanner.splitter.readOffset
  }

  takeBatch(): ReadBatch {
    return this.batcher.takeBatch()
  }

  private absorb(nowMs: number): void {
    this.batcher.absorb(this.scanner.takeScan(), nowMs)
  }
}

/** The compiled worker script next to this module, or null when running the .ts sources unbuilt. */
export const builtScanWorker = (): string | null => {
  const file = fileURLToPath(new URL("./scanWorker.js", import.meta.url))
  return import.meta.url.endsWith(".js") && fs.existsSync(file) ? file : null
}

/** The scan worker's young generation: 4 MB keeps the daemon's peak RSS ~30 MB lower than the default, at no cost in speed (bench tail). */
const YOUNG_MB = 4

type Pending = { readonly resolve: (r: ScanReply) => void; readonly path: string }

/**
 * The tailer's scan worker: requests answered in order. A worker that dies fails what is in
 * flight (the tailer rewinds to its last commit and retries) and is started again on next use.
 */
export class ScanWorker {
  private worker: Worker | null = null
  private seq = 0
  private nextId = 0
  private readonly pending = new Map<number, Pending>()

  constructor(private readonly file: string) {}

  /** A file id, unique for this worker's life and any restart of it. */
  newId(): number {
    return ++this.nextId
  }

  request(req: ScanCall, path: string): Effect.Effect<ScanState, TailIoError> {
    return Effect.suspend(() => ScanWorker.answer(this.send(req, path), path))
  }

  /** Post a request now; the promise resolves with its answer (a failed one when the worker is lost). */
  send(req: ScanCall, path: string): Promise<ScanReply> {
    return new Promise<ScanReply>((resolve) => {
      const seq = ++this.seq
      this.pending.set(seq, { resolve, path })
      this.ensure().postMessage({ ...req, seq })
    })
  }

  /** The state an answer carries, or its failure. */
  static answer(reply: Promise<ScanReply>, path: string): Effect.Effect<ScanState, TailIoError> {
    return Effect.promise(() => reply).pipe(
      Effect.flatMap((r) => (r.ok ? Effect.succeed(r) : Effect.fail(new TailIoError({ op: "read", path, code: r.code, message: r.message }))))
    )
  }

  /** Start the thread now, so that the first read does not wait for it to load. */
  start(): void {
    this.ensure()
  }

  terminate(): Effect.Effect<void> {
    return Effect.promise(async () => {
      const w = this.worker
      this.worker = null
      if (w !== null) await w.terminate()
    })
  }

  private ensure(): Worker {
    if (this.worker !== null) return this.worker
    // a small young generation: the worker makes a string per line, all short-lived, and the
    // default semi-spaces would hold tens of MB of them between scavenges
    const w = new Worker(this.file, { workerData: workerDataOf(classifyRules()), resourceLimits: { maxYoungGenerationSizeMb: YOUNG_MB } })
    w.unref()
    w.on("message", (r: ScanReply) => {
      const p = this.pending.get(r.seq)
      if (p === undefined) return
      this.pending.delete(r.seq)
      p.resolve(r)
    })
    const lost = (message: string) => {
      if (this.worker !== w) return
      this.worker = null
      const waiting = [...this.pending.entries()]
      this.pending.clear()
      for (const [seq, p] of waiting) p.resolve({ seq, ok: false, code: "EWORKER", message })
    }
    w.on("error", (e) => lost(`the scan worker failed: ${e.message}`))
    w.on("exit", (code) => lost(`the scan worker exited with ${code}`))
    this.worker = w
    return w
  }
}

/** The scanner in the scan worker, the parser and the batch here. */
export class RemoteReader implements TailReader {
  private readonly id: number
  private readonly batcher: EventBatcher
  private state: { position: Position; hasPending: boolean; readOffset: number }
  /** The worker must (re)open the file before the next request: at start and after `restart`. */
  private openAt: Position | null
  /** The worker has (or may have) state for this file, and may be reading its descriptor. */
  private known = false
  /**
   * The next `read`, asked for as soon as the previous one said there is more: the worker's
   * answer travels (and the worker scans on) while this thread commits the batch it has.
   */
  private next: Promise<ScanReply> | null = null

  constructor(
    private readonly worker: ScanWorker,
    private readonly fd: number,
    private readonly file: string,
    private readonly opts: RecordReaderOptions,
    start: Position
  ) {
    this.id = worker.newId()
    this.batcher = new EventBatcher(opts)
    this.state = { position: start, hasPending: false, readOffset: start.offset }
    this.openAt = start
  }

  get source(): string {
    return this.batcher.source
  }

  set source(source: string) {
    this.batcher.source = source
  }

  read(maxLines: number, nowMs: number) {
    const req = { op: "read", id: this.id, maxLines: Math.max(1, maxLines - this.batcher.size) } as const
    return this.call(req, nowMs).pipe(
      Effect.map((s) => {
        if (s.more) this.next = this.worker.send(req, this.file)
        return { more: s.more, gotData: s.gotData }
      })
    )
  }

  flush(nowMs: number) {
    return Effect.asVoid(this.call({ op: "flush", id: this.id }, nowMs))
  }

  finish(nowMs: number) {
    return Effect.asVoid(this.call({ op: "finish", id: this.id }, nowMs))
  }

  restart(start: Position): void {
    this.batcher.takeBatch() // dropped: read and not taken
    this.next = null // answered from the old state: dropped too
    this.state = { position: start, hasPending: false, readOffset: start.offset }
    this.openAt = start
  }

  /**
   * Answered only after the worker is done with the descriptor (it may be scanning ahead on
   * it): the tailer closes the file after this, and the number may then be reused.
   */
  close(): Effect.Effect<void> {
    this.next = null
    if (!this.known) return Effect.void
    return this.worker.request({ op: "close", id: this.id }, this.file).pipe(Effect.ignore)
  }

  get hasPending(): boolean {
    return this.state.hasPending
  }

  position(): Position {
    return this.state.position
  }

  /** As of the last answer: the worker may have read further, scanning ahead. */
  get readOffset(): number {
    return this.state.readOffset
  }

  takeBatch(): ReadBatch {
    return this.batcher.takeBatch()
  }

  private call(req: ScanCall, nowMs: number): Effect.Effect<ScanState, TailIoError> {
    return Effect.gen(this, function* () {
      if (this.openAt !== null) {
        const at = this.openAt
        this.known = true
        const { key, service, chunkSize, maxLineBytes } = this.opts
        yield* this.worker.request({ op: "open", id: this.id, fd: this.fd, start: at, scanner: { key, service, chunkSize, maxLineBytes } }, this.file)
        this.openAt = null
      }
      // the read asked for ahead of time answers a read; before anything else it is taken first
      const ahead = this.next
      this.next = null
      if (ahead !== null && req.op !== "read") yield* this.absorb(ScanWorker.answer(ahead, this.file), nowMs)
      return yield* this.absorb(ahead !== null && req.op === "read" ? ScanWorker.answer(ahead, this.file) : this.worker.request(req, this.file), nowMs)
    })
  }

  private absorb(answer: Effect.Effect<ScanState, TailIoError>, nowMs: number): Effect.Effect<ScanState, TailIoError> {
    return answer.pipe(
      // the worker lost this file's state (it died and was started again): reopen at the last
      // position handed out, which is where the tailer's next commit stands
      Effect.tapError(() => Effect.sync(() => (this.openAt = this.state.position))),
      Effect.tap((s) =>
        Effect.sync(() => {
          this.batcher.absorb(s.scan, nowMs)
          this.state = { position: s.position, hasPending: s.hasPending, readOffset: s.readOffset }
        })
      )
    )
  }
}
