/**
 * The scan worker: reads tailed files (by the descriptors the tailer opened) and turns bytes
 * into lines, records and pre-filtered records on its own thread, while the main thread writes
 * to SQLite.
 *
 * After answering a `read` that stopped at its line limit, it scans up to AHEAD more batches of
 * that size, a few thousand lines per turn of its event loop (so that a request is answered
 * within milliseconds), and answers the next reads from those. With a batch scanned ahead and
 * nothing else to do, it parses that batch's candidates, a few at a time, until the tailer asks
 * for it; the tailer parses whatever is left. The work shares itself out: on an ordinary log the
 * scan of every byte keeps this thread busy and the main thread parses the few failures; in a
 * failure storm the scan is quick, and this thread parses most of them while the main thread
 * commits.
 */
import { parentPort, workerData } from "node:worker_threads"
import type { FailureEvent } from "../../classify/Event.js"
import { setClassifyRules } from "../../classify/rules.js"
import { CallTally } from "../Batch.js"
import { PackBuilder } from "./eventPack.js"
import { CandidateParser, type Position, RecordScanner, type Scan } from "./FileReader.js"
import { rulesFromWorkerData, type ScanReply, type ScanRequest, type ScanState } from "./scanProtocol.js"

/**
 * Batches scanned ahead of the reads, at most. The tailer asks for the next batch before
 * committing the current one (RemoteReader), so one was enough while parsing was most of the
 * work. With the record memo and packed events the two threads' batches take about as long as
 * each other, and one batch of slack smooths their waits: the 4 % log 0.60–0.70 of its plain
 * loop with two against 0.50–0.54 with one (four alternating pairs), the storm alike, the same
 * peak RSS (144–149 MB).
 */
const AHEAD = 2
/**
 * Lines scanned per turn of the event loop while scanning ahead (~5 ms): a request arriving
 * meanwhile waits for the turn to end, so a turn must be short.
 */
const TURN_LINES = 4096
/** Batches ahead, at most, once those ahead are parsed (the tailer commits slower than this thread scans and parses). */
const AHEAD_PARSED = 2
/** Candidates parsed per turn of the event loop while waiting (~1-3 ms). */
const TURN_RECORDS = 64

// the daemon's `classify.rules`, which decide before the built-in catalogue here too
setClassifyRules(await rulesFromWorkerData(workerData))

/** A batch scanned ahead, and how far its candidates are parsed. */
interface Ready {
  readonly state: ScanState
  parsed: number
  /** The events parsed so far, packed as they come (eventPack.ts). */
  readonly events: PackBuilder
  ignored: number
  readonly calls: CallTally
}

interface Scanned {
  readonly fd: number
  readonly scanner: RecordScanner
  readonly parser: CandidateParser
  /** Whole batches scanned ahead, oldest first; what the scanner holds comes after them. */
  readonly ready: Ready[]
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

const readyOf = (state: ScanState): Ready => ({ state, parsed: 0, events: new PackBuilder(), ignored: 0, calls: new CallTally() })

/** Events of one parse call, handed to a batch's pack at once (reused: the objects die young). */
const parsedNow: FailureEvent[] = []

/** Parse up to `n` more candidates of `r`; true when all are parsed. */
const parseSome = (f: Scanned, r: Ready, n: number): boolean => {
  const records = r.state.scan.records
  const to = Math.min(records.length, r.parsed + n)
  if (to > r.parsed) {
    parsedNow.length = 0
    r.ignored += f.parser.parse(records, r.parsed, to, Date.now(), parsedNow, r.calls)
    for (const e of parsedNow) r.events.add(e)
    parsedNow.length = 0
  }
  r.parsed = to
  return to === records.length
}

/** A batch scanned ahead as an answer: what is parsed as events, the rest as candidates. */
const answerOf = (r: Ready): ScanState => {
  if (r.parsed === 0) return r.state
  const scan = r.state.scan
  const calls = r.calls.take()
  return {
    ...r.state,
    scan: {
      records: r.parsed === scan.records.length ? [] : scan.records.slice(r.parsed),
      skipped: scan.skipped,
      lines: scan.lines,
      calls: calls.length === 0 ? scan.calls : [...scan.calls, ...calls],
      parsed: { packed: [r.events.finish()], ignored: r.ignored }
    }
  }
}

/** Everything scanned ahead and what the scanner holds, as one answer (flush, finish). */
const drained = (f: Scanned): ScanState => {
  const last = stateOf(f, false, f.gotData)
  f.gotData = false
  if (f.ready.length === 0) return last
  // the batches ahead are parsed to the end, so that the events stay in the order of the records
  for (const r of f.ready) parseSome(f, r, Infinity)
  const ready = f.ready.splice(0)
  return {
    ...last,
    gotData: ready.some((r) => r.state.gotData) || last.gotData,
    scan: {
      records: last.scan.records,
      skipped: ready.reduce((n, r) => n + r.state.scan.skipped, last.scan.skipped),
      lines: ready.reduce((n, r) => n + r.state.scan.lines, last.scan.lines),
      calls: [...ready.flatMap((r) => [...r.state.scan.calls, ...r.calls.take()]), ...last.scan.calls],
      parsed: { packed: ready.map((r) => r.events.finish()), ignored: ready.reduce((n, r) => n + r.ignored, 0) }
    }
  }
}

/**
 * One turn of work ahead of the reads: scan a turn's worth of lines while there is room for a
 * batch ahead and more to read; else parse a few candidates of the batch ahead. Schedules the
 * next turn while there is work.
 */
const workAhead = (id: number, f: Scanned): void => {
  f.scheduled = false
  if (files.get(id) !== f || f.error !== null) return
  if (f.ready.length >= AHEAD) {
    const r = f.ready.find((b) => b.parsed < b.state.scan.records.length)
    if (r !== undefined) {
      parseSome(f, r, TURN_RECORDS)
      schedule(id, f)
      return
    }
    // everything ahead is parsed and the tailer is still busy committing: scan one more
    if (f.ready.length >= AHEAD_PARSED) return
  }
  try {
    const { more, gotData } = f.scanner.readFrom(f.fd, Math.min(f.maxLines, f.scanner.scanned + TURN_LINES))
    f.gotData ||= gotData
    // the end: what was read stays in the scanner, for the next read to go on from
    if (!more) return
    if (f.scanner.isFull(f.maxLines)) {
      f.ready.push(readyOf(stateOf(f, true, f.gotData)))
      f.gotData = false
    }
  } catch (e) {
    f.error = e as NodeJS.ErrnoException
    return
  }
  schedule(id, f)
}

const schedule = (id: number, f: Scanned): void => {
  if (f.scheduled) return
  f.scheduled = true
  setImmediate(workAhead, id, f)
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
    const f: Scanned = {
      fd: req.fd,
      scanner: new RecordScanner(req.start, req.scanner),
      parser: new CandidateParser("", req.scanner.service ?? null),
      ready: [],
      maxLines: 1,
      gotData: false,
      error: null,
      scheduled: false
    }
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
    return { seq: req.seq, ok: true, ...answerOf(ready) }
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
