/**
 * `npm run bench`: runs the benchmarks in sequence — classify, store, tail, webhook, alert —
 * each in its own child process (`node --input-type=module -e "import(<dist/bench/X.js>).run()"`,
 * so one bench's heap, native memory and leftovers never weigh on the next), and prints ONE
 * table: name, value, unit, baseline, ratio, goal, met?. The rows are also written to
 * bench/out/latest.json. A bench that fails (or exceeds FL_BENCH_TIMEOUT_S, default 600) is
 * reported and the others still run.
 *
 * Env: FL_BENCH_ONLY=tail,webhook (a subset), FL_BENCH_QUICK=1 (store over 1 M events instead
 * of the 5 M the report goal is stated for), FL_BENCH_TIMEOUT_S, and each bench's own settings (FL_BENCH_EVENTS, FL_BENCH_MB,
 * FL_BENCH_SECONDS, FL_BENCH_ALERTS, ... see the files), passed through.
 */
import { spawn, type ChildProcess } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import { type BenchResult, builtBench, envNumber, formatTable, isMain, repoRoot } from "./common.js"

export const BENCHES = ["classify", "store", "tail", "webhook", "alert", "storm"] as const

export interface BenchOutcome {
  readonly bench: string
  readonly seconds: number
  readonly rows: ReadonlyArray<BenchResult>
  readonly error?: string
}

const CHILD_SCRIPT = `
import * as fs from "node:fs"
try {
  const m = await import(process.env.FL_BENCH_MODULE_URL)
  const rows = await m.run()
  fs.writeFileSync(process.env.FL_BENCH_RESULT_FILE, JSON.stringify(rows))
  process.exit(0)
} catch (e) {
  process.stderr.write((e && e.stack) ? e.stack + "\\n" : String(e) + "\\n")
  process.exit(1)
}
`

const running = new Set<ChildProcess>()
/** Set on SIGINT/SIGTERM: no further bench starts and latest.json is left as it was. */
let interrupted = false

/** Kill a child and everything it started (it leads its own process group). */
const killGroup = (c: ChildProcess, signal: NodeJS.Signals): void => {
  if (c.pid === undefined || c.exitCode !== null || c.signalCode !== null) return
  try {
    process.kill(-c.pid, signal)
  } catch {
    /* gone */
  }
}

const runOne = (bench: string, timeoutMs: number, env: NodeJS.ProcessEnv): Promise<BenchOutcome> => {
  const resultFile = path.join(os.tmpdir(), `faultline-bench-${bench}-${process.pid}-${Date.now()}.json`)
  const t0 = performance.now()
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--input-type=module", "-e", CHILD_SCRIPT], {
      cwd: repoRoot,
      env: { ...env, FL_BENCH_MODULE_URL: pathToFileURL(builtBench(bench)).href, FL_BENCH_RESULT_FILE: resultFile },
      stdio: ["ignore", "inherit", "inherit"],
      detached: true
    })
    running.add(child)
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      killGroup(child, "SIGTERM")
      setTimeout(() => killGroup(child, "SIGKILL"), 5000).unref()
    }, timeoutMs)
    const finish = (error: string | undefined): void => {
      clearTimeout(timer)
      running.delete(child)
      killGroup(child, "SIGKILL") // anything the bench left behind in its group
      const seconds = (performance.now() - t0) / 1000
      let rows: BenchResult[] = []
      if (error === undefined) {
        try {
          rows = JSON.parse(fs.readFileSync(resultFile, "utf8")) as BenchResult[]
        } catch (e) {
          error = `no results: ${(e as Error).message}`
        }
      }
      fs.rmSync(resultFile, { force: true })
      resolve(error === undefined ? { bench, seconds, rows } : { bench, seconds, rows, error })
    }
    child.once("error", (e) => finish(`could not start: ${e.message}`))
    child.once("exit", (code, signal) => {
      if (timedOut) finish(`timed out after ${timeoutMs / 1000} s`)
      else if (code !== 0) finish(`exited with ${code ?? signal}`)
      else finish(undefined)
    })
  })
}

/** `met` when a bench gave a goal without saying: understands "ratio >= x" and "< x" / ">= x" on the value. */
const judge = (r: BenchResult): boolean | undefined => {
  if (r.met !== undefined || r.goal === undefined) return r.met
  const m = /^(ratio\s*)?(>=|≥|>|<=|≤|<)\s*([\d.]+)/.exec(r.goal.trim())
  if (m === null) return undefined
  const x = m[1] !== undefined ? r.ratio : r.value
  if (x === undefined || !Number.isFinite(x)) return false
  const k = Number(m[3])
  switch (m[2]) {
    case ">=":
    case "≥":
      return x >= k
    case ">":
      return x > k
    case "<=":
    case "≤":
      return x <= k
    default:
      return x < k
  }
}

export async function run(): Promise<Array<BenchResult>> {
  const only = (process.env.FL_BENCH_ONLY ?? "").split(",").map((s) => s.trim()).filter((s) => s !== "")
  const unknown = only.filter((b) => !(BENCHES as ReadonlyArray<string>).includes(b))
  if (unknown.length > 0) throw new Error(`FL_BENCH_ONLY: unknown bench ${unknown.join(", ")} (known: ${BENCHES.join(", ")})`)
  const benches = BENCHES.filter((b) => only.length === 0 || only.includes(b))
  const timeoutMs = envNumber("FL_BENCH_TIMEOUT_S", 600) * 1000
  const env: NodeJS.ProcessEnv = { ...process.env }
  if (env.FL_BENCH_EVENTS === undefined) env.FL_BENCH_EVENTS = process.env.FL_BENCH_QUICK === "1" ? "1000000" : "5000000"

  const startedAt = new Date()
  const outcomes: BenchOutcome[] = []
  for (const bench of benches) {
    if (interrupted) break
    process.stderr.write(`\n=== ${bench} ===\n`)
    const o = await runOne(bench, timeoutMs, env)
    outcomes.push(o)
    process.stderr.write(o.error === undefined ? `=== ${bench}: ${o.rows.length} rows in ${o.seconds.toFixed(1)} s\n` : `=== ${bench} FAILED after ${o.seconds.toFixed(1)} s: ${o.error}\n`)
  }

  const rows: BenchResult[] = []
  for (const o of outcomes) {
    for (const r of o.rows) {
      const name = r.name.startsWith(`${o.bench}:`) || r.name.startsWith(`${o.bench} `) ? r.name : `${o.bench}: ${r.name}`
      const met = judge(r)
      rows.push({ ...r, name, ...(met === undefined ? {} : { met }) })
    }
  }
  process.stdout.write("\n" + formatTable(rows) + "\n")
  const failed = outcomes.filter((o) => o.error !== undefined)
  for (const o of failed) process.stdout.write(`FAILED ${o.bench}: ${o.error}\n`)
  const missed = rows.filter((r) => r.met === false)
  process.stdout.write(`\n${rows.length} rows from ${outcomes.length - failed.length}/${outcomes.length} benches in ${((Date.now() - startedAt.getTime()) / 1000).toFixed(0)} s; goals missed: ${missed.length}\n`)

  if (interrupted) {
    process.stdout.write("interrupted: bench/out/latest.json left unchanged\n")
    process.exitCode = 130
    return rows
  }
  const outDir = path.join(repoRoot, "bench/out")
  fs.mkdirSync(outDir, { recursive: true })
  const settings = Object.fromEntries(Object.entries(env).filter(([k]) => k.startsWith("FL_BENCH_") && k !== "FL_BENCH_MODULE_URL" && k !== "FL_BENCH_RESULT_FILE"))
  const out = {
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    node: process.version,
    cpus: os.cpus().length,
    settings,
    benches: outcomes.map((o) => ({ bench: o.bench, seconds: Math.round(o.seconds * 10) / 10, ...(o.error === undefined ? {} : { error: o.error }) })),
    results: rows
  }
  fs.writeFileSync(path.join(outDir, "latest.json"), JSON.stringify(out, null, 2) + "\n")
  process.stdout.write(`results written to ${path.relative(process.cwd(), path.join(outDir, "latest.json")) || "bench/out/latest.json"}\n`)
  if (failed.length > 0) process.exitCode = 1
  return rows
}

if (isMain(import.meta.url)) {
  const stop = (sig: NodeJS.Signals): void => {
    interrupted = true
    for (const c of running) killGroup(c, "SIGTERM")
    setTimeout(() => {
      for (const c of running) killGroup(c, "SIGKILL")
      process.exit(130)
    }, 3000).unref()
    process.stderr.write(`\n${sig}: stopping the running bench\n`)
  }
  process.once("SIGINT", () => stop("SIGINT"))
  process.once("SIGTERM", () => stop("SIGTERM"))
  run().catch((e: unknown) => {
    process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`)
    process.exitCode = 1
  })
}
