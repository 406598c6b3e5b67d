/**
 * Messages between the tailer and its scan worker (scanWorker.ts). Every request is answered,
 * in order; every answer carries the scanner's state as of that answer, which is what the
 * tailer commits with the events of the scans it has received.
 */
import type { ClassifyRule } from "../../classify/rules.js"
import type { Position, Scan, ScannerOptions } from "./FileReader.js"

export type ScanRequest =
  /** Start (or restart) scanning the file open as `fd` at `start`: everything not taken is dropped. */
  | { readonly seq: number; readonly op: "open"; readonly id: number; readonly fd: number; readonly start: Position; readonly scanner: ScannerOptions }
  /** Read and scan until `maxLines` lines are scanned or the end is reached. */
  | { readonly seq: number; readonly op: "read"; readonly id: number; readonly maxLines: number }
  /** Finish the pending record (idle, truncation, drain). */
  | { readonly seq: number; readonly op: "flush"; readonly id: number }
  /** The writer is gone: the bytes after the last newline are a line too; finish everything. */
  | { readonly seq: number; readonly op: "finish"; readonly id: number }
  /** Forget the file; nothing reads its descriptor after this is answered. */
  | { readonly seq: number; readonly op: "close"; readonly id: number }

export interface ScanState {
  readonly scan: Scan
  /** Where a restart must resume (start of the oldest pending record, or after the last line). */
  readonly position: Position
  readonly hasPending: boolean
  /** File offset where the next read starts. */
  readonly readOffset: number
  /** `read`: the line limit stopped it (more may remain). */
  readonly more: boolean
  /** `read`: bytes arrived since the previous answer. */
  readonly gotData: boolean
}

export type ScanReply =
  | ({ readonly seq: number; readonly ok: true } & ScanState)
  | { readonly seq: number; readonly ok: false; readonly code: string; readonly message: string }

/** A request before the client numbers it. */
export type ScanCall = ScanRequest extends infer R ? (R extends ScanRequest ? Omit<R, "seq"> : never) : never

/** A `classify.rules` entry as it crosses to the worker: its message pattern as source text. */
type RuleData = Omit<ClassifyRule, "match"> & { readonly match: Omit<ClassifyRule["match"], "message"> & { readonly message?: string } }

/** The worker's `workerData`: the `classify.rules` in force, which the worker's parser uses too. */
export interface ScanWorkerData {
  readonly rules: ReadonlyArray<RuleData>
}

export const workerDataOf = (rules: ReadonlyArray<ClassifyRule>): ScanWorkerData => ({
  rules: rules.map((r) => ({ ...r, match: { ...r.match, message: r.match.message?.source } }))
})

/**
 * The rules of `workerDataOf`, compiled again (they compiled when the config loaded). The
 * pattern engine is loaded only when a rule has a pattern.
 */
export const rulesFromWorkerData = async (data: unknown): Promise<ClassifyRule[]> => {
  const rules = (data as ScanWorkerData | undefined)?.rules ?? []
  if (rules.length === 0) return []
  const { compileUserPattern } = await import("../../config/userPattern.js")
  return rules.map((r) => {
    const { message, ...match } = r.match
    if (message === undefined) return { ...r, match }
    const pattern = compileUserPattern(message)
    if (typeof pattern === "string") throw new Error(`classify.rules: ${r.name}: ${pattern}`)
    return { ...r, match: { ...match, message: pattern } }
  })
}
