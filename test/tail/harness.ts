/**
 * Test harness for the tailer: a store modelled on EventStore.commit (events by id, latest
 * checkpoint per key, both applied at once), real files in a temporary folder, and a
 * tailer that can be stopped (its scope closed: nothing is drained, like kill -9) and
 * started again on the committed checkpoints.
 */
import { Effect, Exit, Logger, Scope } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import type { FailureEvent } from "../../src/classify/Event.js"
import type { TailSpec } from "../../src/config/Config.js"
import type { IngestBatch, SourceCheckpoint } from "../../src/sources/Batch.js"
import { runTailer, type TailerDeps, type TailerHandle } from "../../src/sources/tail/Tailer.js"

export class MemoryStore {
  readonly events = new Map<string, FailureEvent>()
  readonly checkpoints = new Map<string, SourceCheckpoint>()
  duplicates = 0
  linesRead = 0
  ignored = 0
  batches = 0

  /** A commit takes this long (the batch is applied at its end, atomically). */
  delayMs = 0

  readonly sink = (batch: IngestBatch): Effect.Effect<void> =>
    Effect.zipRight(
      this.delayMs > 0 ? Effect.sleep(this.delayMs) : Effect.void,
      Effect.sync(() => this.apply(batch))
    )

  private apply(batch: IngestBatch): void {
    this.batches++
    for (const e of batch.events) {
      if (this.events.has(e.id)) this.duplicates++
      else this.events.set(e.id, e)
    }
    this.linesRead += batch.linesRead
    this.ignored += batch.ignored
    if (batch.checkpoint !== null) this.checkpoints.set(batch.checkpoint.key, batch.checkpoint)
  }

  /** Request ids (`rid-…`) of the stored events, sorted, duplicates kept. */
  rids(): Array<string> {
    return [...this.events.values()].map(ridOf).sort()
  }

  byRid(rid: string): Array<FailureEvent> {
    return [...this.events.values()].filter((e) => ridOf(e) === rid)
  }
}

export const ridOf = (e: FailureEvent): string => /rid-[0-9a-z]+/.exec(e.sample)?.[0] ?? `?${e.sample.slice(0, 60)}`

export const tempDir = (): string => fs.mkdtempSync(path.join(os.tmpdir(), "faultline-tail-"))

let clock = Date.parse("2025-06-01T00:00:00.000Z")
/** A distinct, increasing timestamp per line. */
export const stamp = (): string => new Date(clock++).toISOString()

let counter = 0
export const rid = (): string => `rid-${(counter++).toString(36)}${Math.random().toString(36).slice(2, 6)}`

/** One failed call on one line (the service's 429 with an embedded body). */
export const failLine = (id: string): string =>
  `${stamp()} ERROR chat completion failed request_id=${id} HTTP 429 {"code":50603,"message":"Request was rejected due to rate limiting. Details: TPM limit reached. ${id}","data":null}`

/** An ordinary line, ignored by the pipeline. */
export const infoLine = (id: string): string => `${stamp()} INFO served chat completion request_id=${id} in fine shape`

/** A `curl -i` dump: several lines, one failed call. */
export const curlDump = (id: string): Array<string> => [
  "HTTP/1.1 503 Service Unavailable",
  "content-type: application/json",
  `x-request-id: ${id}`,
  "",
  `{"code":50505,"message":"Model service overloaded. Please try again later. ${id}","data":null}`
]

export const waitFor = async (what: string, cond: () => boolean, timeoutMs = 15_000): Promise<void> => {
  const until = Date.now() + timeoutMs
  while (!cond()) {
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

export interface Running {
  readonly handle: TailerHandle
  stop(): Promise<void>
  drain(): Promise<void>
}

export interface StartOptions {
  readonly specs: ReadonlyArray<Partial<TailSpec> & { readonly path: string }>
  readonly cwd: string
  readonly firstStart?: boolean
  readonly tuning?: Partial<Pick<TailerDeps, "idleFlushMs" | "maxBatchLines" | "pollIntervalMs" | "rescanIntervalMs" | "rotateWaitMs">>
  /** Collect what the tailer logs here (instead of the console). */
  readonly logs?: Array<LogEntry>
}

export interface LogEntry {
  readonly level: string
  readonly message: string
}

/**
 * The two ways the tailer reads, with the same promises: scanning on the test's thread (what
 * the unbuilt sources do by default) and in the scan worker of the built daemon (dist/, which
 * the global setup keeps up to date). Test files run their cases under both.
 */
export const SCAN_MODES = [
  ["inline", null],
  ["scan worker", path.resolve(import.meta.dirname, "../../dist/src/sources/tail/scanWorker.js")]
] as const

let scanWorkerFile: string | null = null
/** Start tailers in one of `SCAN_MODES` from now on. */
export const useScanMode = (file: string | null): void => {
  scanWorkerFile = file
}
export const currentScanWorkerFile = (): string | null => scanWorkerFile

export const startTailer = async (store: MemoryStore, opts: StartOptions): Promise<Running> => {
  const scope = Effect.runSync(Scope.make())
  const deps: TailerDeps = {
    specs: opts.specs.map((s) => ({ service: null, startAt: "end" as const, ...s })),
    cwd: opts.cwd,
    sink: store.sink,
    loadCheckpoint: (key) => store.checkpoints.get(key) ?? null,
    allCheckpoints: () => [...store.checkpoints.values()],
    firstStart: opts.firstStart ?? store.checkpoints.size === 0,
    idleFlushMs: 100,
    rotateWaitMs: 400,
    scanWorkerFile,
    ...opts.tuning
  }
  const logs = opts.logs
  const capture = Logger.make(({ logLevel, message }) => {
    logs?.push({ level: logLevel.label, message: String(Array.isArray(message) ? message[0] : message) })
  })
  const tailer = logs === undefined ? runTailer(deps) : runTailer(deps).pipe(Effect.provide(Logger.replace(Logger.defaultLogger, capture)))
  const handle = await Effect.runPromise(tailer.pipe(Scope.extend(scope)))
  return {
    handle,
    stop: () => Effect.runPromise(Scope.close(scope, Exit.void)),
    drain: () => Effect.runPromise(handle.drain())
  }
}

export const append = (file: string, text: string): void => fs.appendFileSync(file, text)
export const appendLines = (file: string, lines: ReadonlyArray<string>): void => append(file, lines.map((l) => `${l}\n`).join(""))
