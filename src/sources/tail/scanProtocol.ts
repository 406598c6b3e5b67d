/**
 * Messages between the tailer and its scan worker (scanWorker.ts). Every request is answered,
 * in order; every answer carries the scanner's state as of that answer, which is what the
 * tailer commits with the events of the scans it has received.
 */
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
