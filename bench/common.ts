/**
 * Shared helpers of the benchmarks (bench/tail.ts, webhook.ts, alert.ts, run.ts): the result
 * row, printing, running standalone, starting the built daemon as a user does, temp folders and
 * child processes that are cleaned up on every way out, /proc sampling, small statistics.
 *
 * Benchmarks never assert timings: each row carries a baseline measured in the same run and
 * the ratio; `goal`/`met` only say whether the figure reaches the goal written in the brief.
 */
import { spawn, type ChildProcess } from "node:child_process"
import * as fs from "node:fs"
import * as http from "node:http"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { loadMigrations, type Migration } from "../src/store/Database.js"

export interface BenchResult {
  name: string
  value: number
  unit: string
  baseline?: number
  ratio?: number
  goal?: string
  /** Whether `value`/`ratio` reaches `goal` (set by the bench that knows what the goal means). */
  met?: boolean
}

// ---------------------------------------------------------------------------------------------
// environment

/** A positive number from the environment, or `dflt`. */
export const envNumber = (name: string, dflt: number): number => {
  const raw = process.env[name]
  if (raw === undefined || raw.trim() === "") return dflt
  const n = Number(raw.replace(/_/g, ""))
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number, got ${JSON.stringify(raw)}`)
  return n
}

/** The repository root: the folder holding package.json above this file (works from bench/ and dist/bench/). */
export const repoRoot = (() => {
  let dir = path.dirname(fileURLToPath(import.meta.url))
  for (let i = 0; i < 5; i++) {
    if (fs.existsSync(path.join(dir, "package.json")) && fs.existsSync(path.join(dir, "migrations"))) return dir
    dir = path.dirname(dir)
  }
  throw new Error("cannot find the faultline repository root above " + fileURLToPath(import.meta.url))
})()

/** What main.ts's `#!/usr/bin/env -S [NAME=VALUE...] node [FLAG...]` line sets: env and node flags. */
export const shebangOf = (file: string): { env: Record<string, string>; flags: string[] } => {
  const first = fs.readFileSync(file, "utf8").slice(0, 200).split("\n")[0]!
  const m = /^#!\S*env -S (.*)$/.exec(first)
  const env: Record<string, string> = {}
  const flags: string[] = []
  if (m === null) return { env, flags }
  let seenNode = false
  for (const word of m[1]!.split(/\s+/).filter((a) => a !== "")) {
    const assignment = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(word)
    if (!seenNode && assignment !== null) env[assignment[1]!] = assignment[2]!
    else if (!seenNode) seenNode = true // the command: node
    else flags.push(word)
  }
  return { env, flags }
}

/** The daemon the benches run; FL_BENCH_CLI picks another build of it (an A/B of two builds). */
export const cliPath = process.env.FL_BENCH_CLI ?? path.join(repoRoot, "dist/src/main.js")

/** The built JS file of bench `name` (dist/bench/<name>.js). */
export const builtBench = (name: string): string => path.join(repoRoot, "dist/bench", `${name}.js`)

// ---------------------------------------------------------------------------------------------
// clean-up of temp folders and child processes, on every way out

const tempDirs = new Set<string>()
const children = new Set<ChildProcess>()

const cleanupSync = (): void => {
  for (const c of children) {
    if (c.exitCode === null && c.signalCode === null) {
      try {
        c.kill("SIGKILL")
      } catch {
        /* gone */
      }
    }
  }
  children.clear()
  for (const d of tempDirs) fs.rmSync(d, { recursive: true, force: true })
  tempDirs.clear()
}

let hooked = false
const hookExit = (): void => {
  if (hooked) return
  hooked = true
  process.once("exit", cleanupSync)
  for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.once(sig, () => {
      cleanupSync()
      process.exit(130)
    })
  }
}

/** A fresh temp folder, removed by `removeTempDir` or at exit. */
/**
 * The schema a plain-loop baseline writes to: the layout before thin event rows (migrations
 * 001-006), one wide `events` table with its indexes, as a simple program would store failures.
 */
export const plainLayout = (): ReadonlyArray<Migration> => loadMigrations().filter((m) => m.version < 7)

export const makeTempDir = (prefix: string): string => {
  hookExit()
  const d = fs.mkdtempSync(path.join(os.tmpdir(), prefix))
  tempDirs.add(d)
  return d
}

export const removeTempDir = (d: string): void => {
  fs.rmSync(d, { recursive: true, force: true })
  tempDirs.delete(d)
}

/** Spawn a child that is killed at exit if still running. */
export const spawnTracked = (cmd: string, args: ReadonlyArray<string>, opts: Parameters<typeof spawn>[2]): ChildProcess => {
  hookExit()
  const c = spawn(cmd, args, opts)
  children.add(c)
  c.once("exit", () => children.delete(c))
  return c
}

/** Stop a child: SIGTERM, then SIGKILL after `graceMs`. */
export const stopChild = async (c: ChildProcess, graceMs = 5000): Promise<number | null> => {
  if (c.exitCode !== null || c.signalCode !== null) return c.exitCode
  const exited = new Promise<number | null>((resolve) => c.once("exit", (code) => resolve(code)))
  c.kill("SIGTERM")
  const timer = setTimeout(() => c.kill("SIGKILL"), graceMs)
  const code = await exited
  clearTimeout(timer)
  children.delete(c)
  return code
}

// ---------------------------------------------------------------------------------------------
// networking, waiting

export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const srv = net.createServer()
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as net.AddressInfo).port
      srv.close(() => resolve(port))
    })
    srv.on("error", reject)
  })

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

/** Poll `probe` until it returns a value (not undefined/null/false); fails after `timeoutMs`. */
export const waitFor = async <A>(
  what: string,
  probe: () => Promise<A | undefined | null | false> | A | undefined | null | false,
  timeoutMs: number,
  everyMs = 25
): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  let last: unknown
  for (;;) {
    try {
      const v = await probe()
      if (v !== undefined && v !== null && v !== false) return v as A
    } catch (e) {
      last = e
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${String(last)}` : ""}`)
    await sleep(everyMs)
  }
}

/** GET/POST on 127.0.0.1 with a timeout; the body parsed as JSON. */
export const fetchJson = async <A = any>(url: string, init: RequestInit = {}, timeoutMs = 15_000): Promise<A> => {
  const r = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) })
  const text = await r.text()
  if (!r.ok) throw new Error(`${init.method ?? "GET"} ${url}: ${r.status} ${text.slice(0, 500)}`)
  return JSON.parse(text) as A
}

// ---------------------------------------------------------------------------------------------
// the built daemon

export interface DaemonHandle {
  readonly url: string
  readonly port: number
  readonly pid: number
  readonly dbPath: string
  readonly proc: ChildProcess
  /** The last few KiB of the daemon's stdout + stderr (for error messages). */
  tail(): string
  stop(): Promise<number | null>
}

/**
 * `node dist/src/main.js serve --config <dir>/faultline.json` with the database in `dir`, on a
 * free port of 127.0.0.1, resolved once `/readyz` answers 200. `config` is merged over
 * `{database, http}`. The daemon's log is kept (bounded), not printed. Env: FL_BENCH_DAEMON_NODE_ARGS
 * (extra node flags, e.g. `--cpu-prof --cpu-prof-dir=DIR`), FL_BENCH_DAEMON_LOG_LEVEL (default info).
 */
export const startDaemon = async (dir: string, config: Record<string, unknown>, env: Record<string, string> = {}): Promise<DaemonHandle> => {
  if (!fs.existsSync(cliPath)) throw new Error(`${cliPath} not found: build first (npm run build)`)
  const port = await freePort()
  const dbPath = path.join(dir, "data/faultline.db")
  const configPath = path.join(dir, "faultline.json")
  fs.writeFileSync(
    configPath,
    JSON.stringify({ database: { path: dbPath }, ...config, http: { host: "127.0.0.1", port, ...((config.http as object) ?? {}) } }, null, 2)
  )
  // e.g. FL_BENCH_DAEMON_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" to profile the daemon
  // the flags of the CLI's `#!/usr/bin/env -S node …` line: the daemon runs as `npm start` runs it
  const shebang = shebangOf(cliPath)
  const nodeArgs = [...shebang.flags, ...(process.env.FL_BENCH_DAEMON_NODE_ARGS ?? "").split(/\s+/).filter((a) => a !== "")]
  const proc = spawnTracked(process.execPath, [...nodeArgs, cliPath, "serve", "--config", configPath], {
    cwd: dir,
    env: { ...process.env, ...shebang.env, FAULTLINE_LOG_LEVEL: process.env.FL_BENCH_DAEMON_LOG_LEVEL ?? "info", ...env },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let log = ""
  const keep = (d: Buffer): void => {
    log += d.toString("utf8")
    if (log.length > 64 * 1024) log = log.slice(-32 * 1024)
  }
  proc.stdout!.on("data", keep)
  proc.stderr!.on("data", keep)
  const url = `http://127.0.0.1:${port}`
  const handle: DaemonHandle = {
    url,
    port,
    pid: proc.pid!,
    dbPath,
    proc,
    tail: () => log.slice(-4000),
    stop: () => stopChild(proc)
  }
  try {
    await waitFor(
      `faultline to be ready on ${url}`,
      async () => {
        if (proc.exitCode !== null) throw new Error(`faultline exited with ${proc.exitCode}: ${log.slice(-2000)}`)
        const r = await fetch(url + "/readyz", { signal: AbortSignal.timeout(2000) }).catch(() => null)
        return r?.status === 200
      },
      30_000,
      50
    )
  } catch (e) {
    await stopChild(proc)
    throw e
  }
  return handle
}

// ---------------------------------------------------------------------------------------------
// /proc

/** VmRSS and VmHWM (peak RSS) of a process, in MiB; null when it is gone. */
export const memoryOf = (pid: number): { rssMb: number; hwmMb: number } | null => {
  let text: string
  try {
    text = fs.readFileSync(`/proc/${pid}/status`, "utf8")
  } catch {
    return null
  }
  const kb = (key: string): number => {
    const m = new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(text)
    return m === null ? NaN : Number(m[1])
  }
  return { rssMb: kb("VmRSS") / 1024, hwmMb: kb("VmHWM") / 1024 }
}

/** Samples VmRSS of `pid` every `everyMs`; `stop()` gives the highest sample and VmHWM. */
export const sampleMemory = (pid: number, everyMs = 100) => {
  let peakRss = 0
  let lastHwm = 0
  const tick = (): void => {
    const m = memoryOf(pid)
    if (m === null) return
    peakRss = Math.max(peakRss, m.rssMb)
    lastHwm = Math.max(lastHwm, m.hwmMb)
  }
  tick()
  const timer = setInterval(tick, everyMs)
  return {
    stop: (): { peakRssMb: number; hwmMb: number } => {
      tick()
      clearInterval(timer)
      return { peakRssMb: peakRss, hwmMb: lastHwm }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// numbers

/** mulberry32: a small deterministic PRNG, so every run generates the same data. */
export const rng = (seed: number): (() => number) => {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** Nearest-rank percentile (p in 0..100) of unsorted numbers. */
export const percentile = (xs: ReadonlyArray<number>, p: number): number => {
  if (xs.length === 0) return NaN
  const s = [...xs].sort((a, b) => a - b)
  const rank = Math.min(s.length, Math.max(1, Math.ceil((p / 100) * s.length)))
  return s[rank - 1]!
}

export const round = (x: number, digits = 0): number => {
  const f = 10 ** digits
  return Math.round(x * f) / f
}

export const ratioOf = (value: number, baseline: number, digits = 3): number =>
  baseline > 0 && Number.isFinite(value) ? round(value / baseline, digits) : NaN

// ---------------------------------------------------------------------------------------------
// the baselines' stand-in for classification (a status -> category table and a cheap hash)

/** The category of CONTRACT section 4 for a status, without looking at the message. */
export const categoryOf = (status: number | null): string => {
  switch (status) {
    case null:
      return "transport"
    case 400:
      return "invalid_request"
    case 401:
      return "auth_key"
    case 402:
      return "quota"
    case 403:
      return "permission"
    case 429:
      return "rate_limit"
    case 500:
      return "server_error"
    case 503:
    case 504:
      return "overload"
    default:
      return "unknown"
  }
}

/** FNV-1a, 32 bits, as hex: a cheap non-crypto grouping hash. */
export const fnv = (s: string): string => {
  let h = 0x811c9dc5
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return (h >>> 0).toString(16).padStart(8, "0")
}

// ---------------------------------------------------------------------------------------------
// output

const fmt = (x: number | undefined): string => {
  if (x === undefined) return ""
  if (!Number.isFinite(x)) return String(x)
  if (Number.isInteger(x)) return x.toLocaleString("en-US")
  return Math.abs(x) >= 100 ? Math.round(x).toLocaleString("en-US") : String(round(x, 3))
}

const metText = (r: BenchResult): string => (r.met === undefined ? (r.goal === undefined ? "" : "?") : r.met ? "yes" : "NO")

/** One table: name, value, unit, baseline, ratio, goal, met?. */
export const formatTable = (rows: ReadonlyArray<BenchResult>): string => {
  const header = ["name", "value", "unit", "baseline", "ratio", "goal", "met?"]
  const cells = rows.map((r) => [r.name, fmt(r.value), r.unit, fmt(r.baseline), r.ratio === undefined ? "" : String(r.ratio), r.goal ?? "", metText(r)])
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)))
  const right = new Set([1, 3, 4])
  const line = (c: ReadonlyArray<string>): string =>
    c.map((s, i) => (right.has(i) ? s.padStart(widths[i]!) : s.padEnd(widths[i]!))).join("  ").trimEnd()
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...cells.map(line)].join("\n")
}

/** Progress and notes go to stderr, so `--json` keeps stdout clean. */
export const note = (msg: string): void => {
  process.stderr.write(`[bench] ${msg}\n`)
}

/** True when the module `metaUrl` is the script node was started with. */
export const isMain = (metaUrl: string): boolean => {
  const entry = process.argv[1]
  return entry !== undefined && metaUrl === pathToFileURL(path.resolve(entry)).href
}

/**
 * Run a bench when its file is executed directly: a table on stdout, or with `--json` the rows
 * as JSON (nothing else on stdout).
 */
export const runStandalone = (metaUrl: string, run: () => Promise<ReadonlyArray<BenchResult>>): void => {
  if (!isMain(metaUrl)) return
  const asJson = process.argv.includes("--json")
  run().then(
    (rows) => {
      process.stdout.write(asJson ? JSON.stringify(rows) + "\n" : formatTable(rows) + "\n")
      // servers, sockets or timers left by a library must not keep a finished bench alive
      setTimeout(() => process.exit(0), 200).unref()
    },
    (e: unknown) => {
      process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`)
      process.exitCode = 1
      setTimeout(() => process.exit(1), 200).unref()
    }
  )
}

/** A tiny HTTP server on 127.0.0.1:0 calling `onRequest` with the whole body. */
export const startHttp = async (
  onRequest: (req: http.IncomingMessage, body: Buffer, res: http.ServerResponse) => void
): Promise<{ url: string; port: number; close(): Promise<void> }> => {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => onRequest(req, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks), res))
  })
  server.keepAliveTimeout = 30_000
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as net.AddressInfo).port
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}
