/**
 * Failure-storm benchmark (issue 15, "must show", first row).
 *
 * A log where three lines of four are failed calls (default 300 k lines, ~57 MB;
 * FL_BENCH_QUICK=1: 60 k; FL_BENCH_STORM_LINES sets it): pino JSON 429 lines (status + body
 * 50603 "TPM limit reached"), text `HTTP 503 {"code":50508,...}` lines and Python SDK
 * `openai.BadRequestError: Error code: 400 - {'error': {...}}` lines over three models, every
 * fourth line an ordinary INFO line; request ids and timestamps differ on every line.
 *
 * The tail bench's machinery is reused (bench/tail.ts): `runDaemon` with `fileBeforeStart` (the
 * log is in place before the daemon is spawned, so the clock includes start-up and stops when
 * every failure is stored) and `plainLoop` with `aggregate` (read lines, JSON.parse or regex,
 * one INSERT + one incident upsert per failure, 5000 per transaction), run before and after the
 * daemon, mean time used. Rows: lines/s vs the plain loop (goal ratio >= 1.0), failures stored
 * (= written, each once: events rows, distinct ids and distinct request ids), the daemon's peak
 * RSS (VmHWM, goal <= 150 MB), database bytes per failure (db + WAL after a TRUNCATE checkpoint,
 * goal <= 200; baseline: the plain loop's database, measured the same way).
 *
 * Env: FL_BENCH_QUICK=1, FL_BENCH_STORM_LINES, FL_BENCH_TAIL_TIMEOUT_S (default 300).
 * Run: `node dist/bench/storm.js [--json]` or `FL_BENCH_ONLY=storm node dist/bench/run.js`.
 */
import BetterSqlite3 from "better-sqlite3"
import * as fs from "node:fs"
import * as path from "node:path"
import { type BenchResult, envNumber, makeTempDir, note, ratioOf, removeTempDir, rng, round, runStandalone } from "./common.js"
import { type GeneratedLog, pad, plainLoop, runDaemon, textTs } from "./tail.js"

// ---------------------------------------------------------------------------------------------
// the log

const MODELS = ["deepseek-ai/DeepSeek-V3", "Qwen/Qwen2.5-72B-Instruct", "THUDM/glm-4-9b-chat"]
const BAD_REQUEST_MESSAGES = [
  "Model does not exist. Please check it carefully.",
  "max_tokens is too large: 12000.",
  "temperature must be between 0 and 2."
]

/** The storm log written: its lines, the failed calls among them, its bytes. */
export type StormLog = GeneratedLog

export const generateStorm = (file: string, lines: number, endMs = Date.now(), seed = 15): StormLog => {
  const r = rng(seed)
  const int = (n: number): number => Math.floor(r() * n)
  const hex = (n: number): string => {
    let s = ""
    for (let i = 0; i < n; i++) s += "0123456789abcdef"[int(16)]
    return s
  }
  const startMs = endMs - 3_600_000
  const fd = fs.openSync(file, "w")
  let bytes = 0
  let failures = 0
  try {
    let out: string[] = []
    for (let i = 0; i < lines; i++) {
      const t = startMs + Math.floor((i / lines) * 3_600_000) + int(7)
      const reqId = `req-${pad(i, 7)}-${hex(6)}`
      const model = MODELS[int(MODELS.length)]!
      if (i % 4 === 3) {
        out.push(`${textTs(t)} INFO  app.jobs - processed batch ${int(99999)} in ${int(900)}ms request_id=${reqId}`)
      } else {
        failures++
        switch (int(3)) {
          case 0:
            out.push(JSON.stringify({ level: 50, time: t, status: 429, body: { code: 50603, message: "Request was rejected due to rate limiting. Details: TPM limit reached.", data: null }, model, requestId: reqId }))
            break
          case 1:
            out.push(`${textTs(t)} ERROR app.client - request_id=${reqId} model=${model} HTTP 503 {"code":50508,"message":"System is too busy now. Please try again later.","data":null}`)
            break
          default:
            out.push(`${textTs(t)} ERROR app.agent - request_id=${reqId} model=${model} openai.BadRequestError: Error code: 400 - {'error': {'message': '${BAD_REQUEST_MESSAGES[int(BAD_REQUEST_MESSAGES.length)]}', 'type': 'invalid_request_error', 'param': None, 'code': None}}`)
        }
      }
      if (out.length === 8192 || i === lines - 1) {
        bytes += fs.writeSync(fd, out.join("\n") + "\n")
        out = []
      }
    }
  } finally {
    fs.closeSync(fd)
  }
  return { lines, failures, bytes }
}

// ---------------------------------------------------------------------------------------------

/** Bytes of `db` + its WAL after a TRUNCATE checkpoint (nothing else may have it open). */
const dbBytes = (dbFile: string): number => {
  const db = new BetterSqlite3(dbFile, { fileMustExist: true })
  try {
    db.pragma("wal_checkpoint(TRUNCATE)")
    const size = (f: string): number => (fs.existsSync(f) ? fs.statSync(f).size : 0)
    return size(dbFile) + size(`${dbFile}-wal`)
  } finally {
    db.close()
  }
}

const removeDb = (dbFile: string): void => {
  for (const ext of ["", "-wal", "-shm"]) fs.rmSync(`${dbFile}${ext}`, { force: true })
}

export async function run(): Promise<Array<BenchResult>> {
  const lines = Math.round(envNumber("FL_BENCH_STORM_LINES", process.env.FL_BENCH_QUICK === "1" ? 60_000 : 300_000))
  const timeoutMs = envNumber("FL_BENCH_TAIL_TIMEOUT_S", 300) * 1000
  const dir = makeTempDir("faultline-bench-storm-")
  try {
    const gen = path.join(dir, "gen")
    fs.mkdirSync(gen)
    const file = path.join(gen, "app.log")
    const tg = performance.now()
    const log = generateStorm(file, lines)
    note(`storm: generated ${round(log.bytes / 1048576, 1)} MB, ${log.lines} lines, ${log.failures} failures in ${round((performance.now() - tg) / 1000, 1)} s`)

    fs.readFileSync(file) // the same warm page cache for everyone
    const plain = (label: string, from: string) => {
      const dbFile = path.join(dir, `baseline-${label}.db`)
      const t0 = performance.now()
      const c0 = process.cpuUsage()
      const r = plainLoop(from, dbFile, { aggregate: true })
      const s = (performance.now() - t0) / 1000
      const c = process.cpuUsage(c0)
      const cpu = (c.user + c.system) / 1e6
      const bytes = dbBytes(dbFile)
      removeDb(dbFile)
      note(`storm: plain loop (${label}) ${r.lines} lines, ${r.failures} rows in ${round(s, 2)} s (CPU ${round(cpu, 2)} s), ${bytes} db bytes`)
      if (r.lines !== log.lines) throw new Error(`plain loop read ${r.lines} lines, ${log.lines} were written`)
      if (r.failures !== log.failures) throw new Error(`plain loop found ${r.failures} failures, ${log.failures} were written`)
      return { ...r, s, cpu, bytes }
    }
    const before = plain("before", file)

    const d = await runDaemon(dir, file, log, timeoutMs, { fileBeforeStart: true })
    note(`storm: faultline ${d.lines} lines, ${d.failures} failures in ${round(d.seconds, 2)} s (ready after ${round(d.readySeconds, 2)} s), VmHWM ${round(d.peakRssMb)} MB, CPU ${round(d.cpuSeconds, 2)} s (main ${round(d.threads.main, 2)}, scan worker ${round(d.threads.worker, 2)}, others ${round(d.threads.others, 2)})`)
    // every failure stored once: rows, distinct ids and distinct request ids all equal the failures written
    const check = new BetterSqlite3(d.dbPath, { readonly: true, fileMustExist: true })
    const stored = check.prepare("SELECT count(*) AS n, count(DISTINCT id) AS ids, count(DISTINCT request_id) AS reqs FROM events").get() as { n: number; ids: number; reqs: number }
    check.close()
    const bytes = dbBytes(d.dbPath)
    note(`storm: events ${stored.n} rows, ${stored.ids} ids, ${stored.reqs} request ids; db + WAL ${bytes} bytes after checkpoint`)

    const after = plain("after", path.join(dir, "logs", "app.log"))
    const baseS = (before.s + after.s) / 2
    const baseLps = log.lines / baseS
    const lps = d.lines / d.seconds
    const baseFps = log.failures / baseS
    const fps = d.failures / d.seconds
    const bpf = bytes / Math.max(1, stored.n)
    const baseBpf = before.bytes / before.failures
    const once = stored.n === log.failures && stored.ids === log.failures && stored.reqs === log.failures && d.failures === log.failures
    const tag = `${round(log.bytes / 1048576)} MB, ${log.lines} lines, ${log.failures} failures`
    return [
      { name: `storm: faultline daemon lines/s incl. start-up (${tag})`, value: Math.round(lps), unit: "lines/s", baseline: Math.round(baseLps), ratio: ratioOf(lps, baseLps), goal: "ratio >= 1.0", met: lps / baseLps >= 1.0 },
      { name: "storm: faultline daemon failures/s incl. start-up", value: Math.round(fps), unit: "failures/s", baseline: Math.round(baseFps), ratio: ratioOf(fps, baseFps) },
      { name: "storm: CPU time, every thread, incl. start-up (baseline: the plain loop's)", value: round(d.cpuSeconds, 2), unit: "s", baseline: round((before.cpu + after.cpu) / 2, 2), ratio: ratioOf(d.cpuSeconds, (before.cpu + after.cpu) / 2) },
      { name: "storm: daemon spawn to /readyz (inside the time above)", value: round(d.readySeconds, 2), unit: "s", baseline: round(d.seconds, 2), ratio: ratioOf(d.readySeconds, d.seconds) },
      { name: "storm: failures stored once / written (events rows; distinct ids, request ids)", value: stored.n, unit: "events", baseline: log.failures, ratio: ratioOf(stored.n, log.failures, 4), goal: "= written", met: once },
      { name: "storm: faultline daemon peak RSS (VmHWM)", value: round(d.peakRssMb, 1), unit: "MB", goal: "<= 150 MB", met: d.peakRssMb <= 150 },
      { name: "storm: database bytes per failure (db + WAL after checkpoint; baseline: plain loop's db)", value: round(bpf, 1), unit: "B/failure", baseline: round(baseBpf, 1), ratio: ratioOf(bpf, baseBpf), goal: "<= 200 B", met: bpf <= 200 }
    ]
  } finally {
    removeTempDir(dir)
  }
}

runStandalone(import.meta.url, run)
