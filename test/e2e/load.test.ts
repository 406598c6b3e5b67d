/**
 * Load against the built daemon, loopback only and bounded in time (~10 s of webhook load):
 * while the tailer reads a file growing as fast as a writer can append (~200k lines, 5 %
 * failures, unique request ids), autocannon posts structured failures (each with a unique
 * `id`) to POST /v1/events, and a separate thread probes /healthz every 100 ms on fresh
 * connections (as a kubelet does).
 *
 * Then: every 202-accepted event is stored exactly once, nothing refused (only 503 is
 * allowed) is stored, every failure written to the file is stored exactly once, the report's
 * total is exactly the sum, /healthz p99 stays under 1 s and the daemon's peak RSS under 300 MB.
 *
 * Requests still in flight when autocannon stops are destroyed unanswered: the daemon may have
 * stored them. They are counted apart ("in doubt"), at most one per connection.
 */
import * as fs from "node:fs"
import * as fsp from "node:fs/promises"
import { createRequire } from "node:module"
import * as path from "node:path"
import { Worker } from "node:worker_threads"
import { afterEach, describe, expect, it } from "vitest"
import { type Daemon, startDaemon, tempDir, waitFor } from "../support/daemon.js"

// autocannon ships no type declarations: the part of its programmatic API used here
interface CannonRequest {
  readonly method?: string
  readonly path?: string
  readonly headers?: Record<string, string>
  readonly body?: string
  readonly setupRequest?: (req: CannonRequest, context: Record<string, unknown>) => CannonRequest
  readonly onResponse?: (status: number, body: string, context: Record<string, unknown>) => void
}
interface CannonResult {
  readonly requests: { readonly average: number }
  readonly latency: { readonly p50: number; readonly p99: number }
  readonly totalRequests: number
  readonly totalCompletedRequests: number
  readonly errors: number
  readonly timeouts: number
  readonly non2xx: number
  readonly statusCodeStats: Record<string, { readonly count: number }>
  readonly duration: number
}
type Autocannon = (
  opts: {
    readonly url: string
    readonly connections: number
    readonly duration: number
    readonly pipelining?: number
    readonly timeout?: number
    readonly method?: string
    readonly headers?: Record<string, string>
    readonly requests: ReadonlyArray<CannonRequest>
  },
  cb: (err: Error | null, result: CannonResult) => void
) => { on(event: "response", listener: (client: object, statusCode: number) => void): void }
const autocannon = createRequire(import.meta.url)("autocannon") as Autocannon

const MODEL = "Qwen/Qwen2.5-7B-Instruct"
const FILE_SERVICE = "load-file"
const HOOK_SERVICE = "load-hook"
const LINES = 200_000
const CHUNK_LINES = 2_000
const CONNECTIONS = 32
const DURATION_S = 10

const daemons: Daemon[] = []
afterEach(async () => {
  for (const d of daemons.splice(0)) if (d.proc.exitCode === null && d.proc.signalCode === null) await d.kill9()
})

// ---------------------------------------------------------------------------------------------
// what is written and posted

/** Line `i` of the file: every 20th a failure (text or pino JSON) with request id `req-7f3a-lf-<i>`. */
const fileLine = (i: number, at: string): { text: string; failure: string | null } => {
  if (i % 20 !== 7) return { text: `${at} INFO http - GET /api/items/${i} 200 3ms user=u${i % 977}`, failure: null }
  const id = `lf-${i}`
  return {
    failure: id,
    text:
      i % 40 === 7
        ? `${at} ERROR chat.client - request_id=req-7f3a-${id} HTTP 429 {"code":50603,"message":"Request was rejected due to rate limiting. Details: TPM limit reached.","data":null}`
        : JSON.stringify({ level: 50, time: Date.parse(at), msg: "upstream call failed", requestId: `req-7f3a-${id}`, status: 503, body: { code: 50508, message: "System is too busy now. Please try again later.", data: null }, model: MODEL })
  }
}

/** Appends all lines in chunks, as fast as it can; resolves with the failure ids written. */
const writeGrowingFile = async (file: string): Promise<{ failures: string[]; bytes: number; ms: number }> => {
  const t0 = Date.now()
  const failures: string[] = []
  let bytes = 0
  for (let start = 0; start < LINES; start += CHUNK_LINES) {
    const at = new Date().toISOString()
    let chunk = ""
    for (let i = start; i < Math.min(LINES, start + CHUNK_LINES); i++) {
      const l = fileLine(i, at)
      chunk += l.text + "\n"
      if (l.failure !== null) failures.push(l.failure)
    }
    bytes += Buffer.byteLength(chunk)
    await fsp.appendFile(file, chunk)
  }
  return { failures, bytes, ms: Date.now() - t0 }
}

const hookBody = (id: string): string =>
  JSON.stringify({
    id,
    service: HOOK_SERVICE,
    status: 429,
    model: MODEL,
    requestId: `req-7f3a-${id}`,
    body: { code: 50603, message: "Request was rejected due to rate limiting. Details: TPM limit reached.", data: null }
  })

// ---------------------------------------------------------------------------------------------
// measuring

/** Probes GET /healthz every `everyMs` from its own thread, each on a new connection; latencies in ms (timeouts as Infinity). */
const startHealthProbe = (url: string, everyMs = 100) => {
  const worker = new Worker(
    `
    const { parentPort, workerData } = require("node:worker_threads")
    const http = require("node:http")
    const samples = []
    let sent = 0
    const probe = () => {
      sent++
      const t0 = performance.now()
      const req = http.get(workerData.url + "/healthz", { agent: false, timeout: 10000 }, (res) => {
        res.resume()
        res.on("end", () => samples.push({ status: res.statusCode, ms: performance.now() - t0 }))
      })
      req.on("timeout", () => req.destroy(new Error("timeout")))
      req.on("error", (e) => samples.push({ status: String(e.message), ms: Infinity }))
    }
    const timer = setInterval(probe, workerData.everyMs)
    parentPort.on("message", () => {
      clearInterval(timer)
      // the probes in flight finish (each is bounded by its 10 s timeout)
      const wait = setInterval(() => {
        if (samples.length >= sent) {
          clearInterval(wait)
          parentPort.postMessage(samples)
        }
      }, 20)
    })
    `,
    { eval: true, workerData: { url, everyMs } }
  )
  return {
    stop: (): Promise<Array<{ status: number | string; ms: number }>> =>
      new Promise((resolve, reject) => {
        worker.once("message", (samples) => {
          void worker.terminate()
          resolve(samples)
        })
        worker.once("error", reject)
        worker.postMessage("stop")
      })
  }
}

const percentile = (sorted: ReadonlyArray<number>, p: number): number => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN

/** VmHWM (peak resident set) and VmRSS of a process, in MB. */
const memoryOf = (pid: number): { peakMb: number; rssMb: number } => {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8")
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN)
  return { peakMb: kb("VmHWM") / 1024, rssMb: kb("VmRSS") / 1024 }
}

/** Every stored event of `service`: its request id (without `req-7f3a-`), walking all pages. */
const storedIds = async (d: Daemon, service: string): Promise<string[]> => {
  const ids: string[] = []
  let cursor: string | null = null
  do {
    const page: { events: Array<{ requestId: string | null }>; nextCursor: string | null } = await d.json(
      `/v1/events?since=3650d&service=${service}&limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`
    )
    for (const e of page.events) ids.push(e.requestId?.replace(/^req-7f3a-/, "") ?? "<none>")
    cursor = page.nextCursor
  } while (cursor !== null)
  return ids
}

const duplicatesOf = (ids: ReadonlyArray<string>): string[] => {
  const sorted = [...ids].sort()
  return sorted.filter((id, i) => i > 0 && sorted[i - 1] === id)
}

// ---------------------------------------------------------------------------------------------

describe("load", () => {
  it("tails a fast-growing file while webhooks are hammered: nothing lost or stored twice, /healthz p99 < 1 s, peak RSS < 300 MB", async () => {
    const dir = tempDir("faultline-load-")
    fs.mkdirSync(path.join(dir, "logs"))
    const log = path.join(dir, "logs/app.log")
    const d = await startDaemon({
      dir,
      config: { tail: [{ path: path.join(dir, "logs/**/*.log"), startAt: "beginning", service: FILE_SERVICE }] },
      env: { FAULTLINE_LOG_LEVEL: "info" }
    })
    daemons.push(d)
    const pid = d.proc.pid!

    // per request: its id, and what became of it
    let next = 0
    const sent = new Set<string>()
    const accepted = new Set<string>()
    const refused = new Map<string, number>()
    const badBodies: string[] = []

    // probes during autocannon's connection ramp only, for the figures (see below)
    const rampHealth = startHealthProbe(d.url)
    const t0 = Date.now()
    // when every connection has had its first answer: the end of autocannon's connection ramp
    const answered = new Set<object>()
    let rampDoneAt: number | null = null
    const cannon = new Promise<CannonResult>((resolve, reject) => {
      const instance = autocannon(
        {
          url: d.url,
          connections: CONNECTIONS,
          duration: DURATION_S,
          pipelining: 1,
          timeout: 30,
          requests: [
            {
              method: "POST",
              path: "/v1/events",
              headers: { "content-type": "application/json" },
              setupRequest: (req, context) => {
                const id = `lh-${next++}`
                context.id = id
                sent.add(id)
                return { ...req, body: hookBody(id) }
              },
              onResponse: (status, body, context) => {
                const id = context.id as string
                if (status === 202) {
                  accepted.add(id)
                  if (!/"accepted":1\b/.test(body)) badBodies.push(body)
                } else refused.set(id, status)
              }
            }
          ]
        },
        (err, result) => (err ? reject(err) : resolve(result))
      )
      instance.on("response", (client) => {
        if (rampDoneAt !== null) return
        answered.add(client)
        if (answered.size === CONNECTIONS) rampDoneAt = Date.now()
      })
    })
    void cannon.catch(() => undefined) // awaited below; not an unhandled rejection meanwhile

    // The probes and the writer start once autocannon's connections are up. Node accepts one new
    // connection per event-loop iteration: 32 connections arriving while the daemon is busy (its
    // loop turning every 50-400 ms on a loaded machine) take 1.5-2 s to be accepted, and a probe's
    // new connection queued behind them waits as long. That connection storm is reported on its
    // own; this test measures the daemon under sustained load.
    await waitFor("autocannon's connections to be up", () => rampDoneAt !== null || undefined, 20_000, 5)
    const rampSamples = rampHealth.stop()
    void rampSamples.catch(() => undefined)
    const health = startHealthProbe(d.url)
    const writeStart = Date.now()
    const writer = writeGrowingFile(log)
    // the tail's progress (its committed offset), watched from the start until the whole file is in
    let totalBytes: number | null = null
    const tailDone = waitFor(
      "the tailer to commit the whole file",
      async () => {
        const r = await d.json("/v1/report?since=1h")
        const src = (r.ingest.sources as Array<{ source: string; offset: number }>).find((s) => s.source === `file:${log}`)
        return src !== undefined && totalBytes !== null && src.offset === totalBytes ? Date.now() : undefined
      },
      80_000,
      250
    )
    void tailDone.catch(() => undefined) // awaited below; not an unhandled rejection meanwhile
    const written = await writer
    totalBytes = written.bytes
    const cannonResult = await cannon
    const tailMs = (await tailDone) - writeStart
    const samples = await health.stop()
    const memory = memoryOf(pid)

    // ---- what was stored --------------------------------------------------------------------
    const fileStored = await storedIds(d, FILE_SERVICE)
    const hookStored = await storedIds(d, HOOK_SERVICE)
    const hookStoredSet = new Set(hookStored)
    // requests in flight when autocannon stopped: sent, never answered; the daemon may have stored them
    const inDoubt = [...sent].filter((id) => !accepted.has(id) && !refused.has(id))
    const inDoubtStored = inDoubt.filter((id) => hookStoredSet.has(id))
    const report = await d.json("/v1/report?since=1h")

    const lagMax = Number(/^faultline_nodejs_eventloop_lag_max_seconds (\S+)/m.exec(await (await fetch(`${d.url}/metrics`)).text())?.[1]) * 1000
    const all = samples.map((x) => x.ms).sort((a, b) => a - b)
    const rampMax = Math.max(0, ...(await rampSamples).map((x) => x.ms))
    const twoXX = Object.entries(cannonResult.statusCodeStats).filter(([code]) => code.startsWith("2")).reduce((n, [, v]) => n + Number(v.count), 0)
    const fmt = (n: number | undefined) => (n === undefined ? "-" : n.toFixed(0))
    console.log(
      [
        `load: webhook ${cannonResult.requests.average.toFixed(0)} requests/s for ${cannonResult.duration} s over ${CONNECTIONS} connections, ` +
          `latency p50 ${cannonResult.latency.p50} ms p99 ${cannonResult.latency.p99} ms; status ${JSON.stringify(cannonResult.statusCodeStats)}, ` +
          `errors ${cannonResult.errors}, timeouts ${cannonResult.timeouts}; 2xx ${twoXX}, in flight when autocannon stopped ${inDoubt.length} (of which stored ${inDoubtStored.length})`,
        `load: tail ${LINES} lines (${(written.bytes / 1e6).toFixed(1)} MB, ${written.failures.length} failures) appended in ${written.ms} ms, ` +
          `all committed after ${tailMs} ms = ${Math.round(LINES / (tailMs / 1000))} lines/s (while under webhook load)`,
        `load: /healthz ${samples.length} probes (new connection each): p50 ${fmt(percentile(all, 50))} ms p99 ${fmt(percentile(all, 99))} ms max ${fmt(all[all.length - 1])} ms; ` +
          `daemon event-loop lag max ${fmt(lagMax)} ms; ` +
          `(before: autocannon's ${CONNECTIONS} connections up after ${rampDoneAt === null ? "-" : rampDoneAt - t0} ms, /healthz max ${fmt(rampMax)} ms meanwhile)`,
        `load: daemon peak RSS (VmHWM) ${memory.peakMb.toFixed(0)} MB, now ${memory.rssMb.toFixed(0)} MB; ` +
          `stored ${fileStored.length} file + ${hookStored.length} webhook events; report total ${report.total}`
      ].join("\n")
    )

    // ---- webhooks ---------------------------------------------------------------------------
    expect(cannonResult.errors, "connection errors").toBe(0)
    expect(accepted.size, "2xx answers seen per request = autocannon's 2xx count").toBe(twoXX)
    expect(accepted.size).toBeGreaterThan(1_000)
    expect(badBodies.slice(0, 3)).toEqual([])
    // non-2xx only as 503 under load
    expect([...new Set(refused.values())].filter((s) => s !== 503)).toEqual([])
    expect(inDoubt.length).toBeLessThanOrEqual(CONNECTIONS)
    expect(duplicatesOf(hookStored)).toEqual([])
    expect([...accepted].filter((id) => !hookStoredSet.has(id)).slice(0, 5), "accepted but not stored").toEqual([])
    expect([...refused.keys()].filter((id) => hookStoredSet.has(id)).slice(0, 5), "refused but stored").toEqual([])
    expect(hookStored.filter((id) => !sent.has(id)).slice(0, 5), "stored but never sent").toEqual([])
    expect(hookStored.length).toBe(accepted.size + inDoubtStored.length)

    // ---- the file -----------------------------------------------------------------------------
    expect(duplicatesOf(fileStored)).toEqual([])
    expect(fileStored.length).toBe(written.failures.length)
    const fileSet = new Set(fileStored)
    expect(written.failures.filter((id) => !fileSet.has(id)).slice(0, 5), "written but not stored").toEqual([])

    // ---- the report, the health probe, memory -------------------------------------------------
    expect(report.total).toBe(written.failures.length + hookStored.length)
    expect(report.ingest.failures).toBe(written.failures.length + hookStored.length)
    expect(samples.filter((x) => x.status !== 200).slice(0, 3)).toEqual([])
    expect(samples.length).toBeGreaterThan(50)
    expect(percentile(all, 99)).toBeLessThan(1_000)
    expect(memory.peakMb).toBeLessThan(300)
  }, 150_000)
})
