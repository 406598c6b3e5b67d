/**
 * The scan worker: reads tailed files (by the descriptors the tailer opened) and turns bytes
 * into lines, records and pre-filtered records on its own thread, while the main thread parses
 * the few records that may be failures and writes to SQLite. On a backlog this half sees every
 * byte and the other half only the failures; split this way the two threads carry similar loads.
 *
 * After answering a `read` that stopped at its line limit, it scans the next batch ahead, so
 * that batch is ready when the tailer has committed this one.
 */
import { parentPort } from "node:worker_threads"
import { RecordScanner } from "./FileReader.js"
import type { ScanReply, ScanRequest } from "./scanProtocol.js"

interface Scanned {
  readonly fd: number
  readonly scanner: RecordScanner
  /** Bytes arrived while scanning ahead, not yet reported. */
  gotData: boolean
  /** Scanning ahead failed: reported (and cleared) on the next request. */
  error: NodeJS.ErrnoException | null
}

const files = new Map<number, Scanned>()

const stateOf = (f: Scanned, more: boolean, gotData: boolean) => ({
  scan: f.scanner.takeScan(),
  position: f.scanner.position(),
  hasPending: f.scanner.hasPending,
  readOffset: f.scanner.splitter.readOffset,
  more,
  gotData
})

const handle = (req: ScanRequest): { reply: ScanReply; ahead: (() => void) | null } => {
  if (req.op === "open") {
    files.set(req.id, { fd: req.fd, scanner: new RecordScanner(req.start, req.scanner), gotData: false, error: null })
    return { reply: { seq: req.seq, ok: true, ...stateOf(files.get(req.id)!, false, false) }, ahead: null }
  }
  if (req.op === "close") {
    files.delete(req.id)
    return { reply: { seq: req.seq, ok: true, scan: { records: [], skipped: 0, lines: 0 }, position: { offset: 0, line: 1 }, hasPending: false, readOffset: 0, more: false, gotData: false }, ahead: null }
  }
  const f = files.get(req.id)
  if (f === undefined) return { reply: { seq: req.seq, ok: false, code: "EBADF", message: `scan worker: file ${req.id} is not open` }, ahead: null }
  if (f.error !== null) {
    const e = f.error
    f.error = null
    throw e
  }
  if (req.op === "flush") {
    f.scanner.flush()
    return { reply: { seq: req.seq, ok: true, ...stateOf(f, false, false) }, ahead: null }
  }
  if (req.op === "finish") {
    f.scanner.finish()
    return { reply: { seq: req.seq, ok: true, ...stateOf(f, false, false) }, ahead: null }
  }
  const { more, gotData } = f.scanner.readFrom(f.fd, req.maxLines)
  const reply: ScanReply = { seq: req.seq, ok: true, ...stateOf(f, more, gotData || f.gotData) }
  f.gotData = false
  const ahead = more
    ? () => {
        try {
          f.gotData = f.scanner.readFrom(f.fd, req.maxLines).gotData
        } catch (e) {
          f.error = e as NodeJS.ErrnoException
        }
      }
    : null
  return { reply, ahead }
}

parentPort!.on("message", (req: ScanRequest) => {
  let ahead: (() => void) | null = null
  try {
    const out = handle(req)
    parentPort!.postMessage(out.reply)
    ahead = out.ahead
  } catch (e) {
    const err = e as NodeJS.ErrnoException
    parentPort!.postMessage({ seq: req.seq, ok: false, code: err?.code ?? "EUNKNOWN", message: err?.message ?? String(e) } satisfies ScanReply)
  }
  ahead?.()
})
