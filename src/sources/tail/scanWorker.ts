/**
 * The scan worker: reads tailed files (by the descriptors the tailer opened) and turns bytes
 * into lines, records and pre-filtered records on its own thread, while the main thread parses
 * the few records that may be failures and writes to SQLite. On a backlog this half sees every
 * byte and the other half only the failures; split this way the two threads carry similar loads.
 *
 * After answering a `read` that stopped at its line limit, it scans up to AHEAD more batches of
 * that size, a few thousand lines per turn of its event loop (so that a request is answered
 * within milliseconds), and answers the next reads from those.
 */
import { parentPort } from "node:worker_threads"
import { type Position, RecordScanner, type Scan } from "./FileReader.js"
import type { ScanReply, ScanRequest, ScanState } from "./scanProtocol.js"

/**
 * Batches scanned ahead of the reads, at most. One is enough since the tailer asks for the next
 * batch before committing the current one (RemoteReader): two measured the same speed and
 * ~5 MB more peak RSS.
 */
const AHEAD = 1
/**
 * Lines scanned per turn of the event loop while scanning ahead (~5 ms): a request arriving
 * meanwhile waits for the turn to end, so a turn must be short.
 */
const TURN_LINES = 4096

interface Scanned {
  readonly fd: number
  readonly scanner: RecordScanner
  /** Whole batches scanned ahead, oldest first; what the scanner holds comes after them. */
  readonly ready: ScanState[]
  /** Line limit of the last read: the size of the batches scanned ahead. */
  maxLines: number
  /** Bytes arrived while scanning ahead, not yet reported. */
  gotData: boolean
  /** Scanning ahead failed: reported (and cleared) on the next request. */
  error: NodeJS.ErrnoException | null
  /** A turn of scanning ahead is scheduled. */
  scheduled: boolean
}

const files = new Map<number, Scanned>()

const stateOf = (f: Scanned, more: boolean, gotData: boolean): ScanState => ({
  scan: f.scanner.takeScan(),
  position: f.scanner.position(),
  hasPending: f.scanner.hasPending,
  readOffset: f.scanner.splitter.readOffset,
  more,
  gotData
})

/** Everything scanned ahead and what the scanner holds, as one answer (flush, finish). */
const drained = (f: Scanned): ScanState => {
  const last = stateOf(f, false, f.gotData)
  f.gotData = false
  if (f.ready.length === 0) return last
  const scans: Scan[] = [...f.ready.map((s) => s.scan), last.scan]
  const gotData = f.ready.some((s) => s.gotData) || last.gotData
  f.ready.length = 0
  return {
    ...last,
    gotData,
    scan: {
      records: scans.flatMap((s) => s.records),
      skipped: scans.reduce((n, s) => n + s.skipped, 0),
      lines: scans.reduce((n, s) => n + s.lines, 0),
      calls: scans.flatMap((s) => s.calls)
    }
  }
}

/** Scan a turn's worth of lines ahead, and schedule the next turn while there is room and more to read. */
const scanAhead = (id: number, f: Scanned): void => {
  f.scheduled = false
  if (files.get(id) !== f || f.error !== null || f.ready.length >= AHEAD) return
  try {
    const { more, gotData } = f.scanner.readFrom(f.fd, Math.min(f.maxLines, f.scanner.scanned + TURN_LINES))
    f.gotData ||= gotData
    // the end: what was read stays in the scanner, for the next read to go on from
    if (!more) return
    if (f.scanner.scanned >= f.maxLines) {
      f.ready.push(stateOf(f, true, f.gotData))
      f.gotData = false
    }
  } catch (e) {
    f.error = e as NodeJS.ErrnoException
    return
  }
  schedule(id, f)
}

const schedule = (id: number, f: Scanned): void => {
  if (f.scheduled || f.ready.length >= AHEAD) return
  f.scheduled = true
  setImmediate(scanAhead, id, f)
}

const closed = (seq: number): ScanReply => ({
  seq,
  ok: true,
  scan: { records: [], skipped: 0, lines: 0, calls: [] },
  position: { offset: 0, line: 1 } satisfies Position,
  hasPending: false,
  readOffset: 0,
  more: false,
  gotData: false
})

const handle = (req: ScanRequest): ScanReply => {
  if (req.op === "open") {
    const f: Scanned = { fd: req.fd, scanner: new RecordScanner(req.start, req.scanner), ready: [], maxLines: 1, gotData: false, error: null, scheduled: false }
    files.set(req.id, f)
    return { seq: req.seq, ok: true, ...stateOf(f, false, false) }
  }
  if (req.op === "close") {
    files.delete(req.id)
    return closed(req.seq)
  }
  const f = files.get(req.id)
  if (f === undefined) return { seq: req.seq, ok: false, code: "EBADF", message: `scan worker: file ${req.id} is not open` }
  if (f.error !== null) {
    const e = f.error
    f.error = null
    throw e
  }
  if (req.op === "flush") {
    f.scanner.flush()
    return { seq: req.seq, ok: true, ...drained(f) }
  }
  if (req.op === "finish") {
    f.scanner.finish()
    return { seq: req.seq, ok: true, ...drained(f) }
  }
  f.maxLines = req.maxLines
  const ready = f.ready.shift()
  if (ready !== undefined) {
    schedule(req.id, f)
    return { seq: req.seq, ok: true, ...ready }
  }
  const { more, gotData } = f.scanner.readFrom(f.fd, req.maxLines)
  const reply: ScanReply = { seq: req.seq, ok: true, ...stateOf(f, more, gotData || f.gotData) }
  f.gotData = false
  if (more) schedule(req.id, f)
  return reply
}

parentPort!.on("message", (req: ScanRequest) => {
  try {
    parentPort!.postMessage(handle(req))
  } catch (e) {
    const err = e as NodeJS.ErrnoException
    parentPort!.postMessage({ seq: req.seq, ok: false, code: err?.code ?? "EUNKNOWN", message: err?.message ?? String(e) } satisfies ScanReply)
  }
})
