/**
 * Fault injection against the built daemon, run as a user runs it (the built CLI, a config file,
 * a temp folder, an ephemeral loopback port): a database locked by another process, database
 * files that cannot be written, a full disk, `kill -9` in the middle of a batch, of the
 * migrations and of a delivery, and a receiver that hangs forever beside a healthy one.
 *
 * Each fault must be recovered from without loss (every failure written or accepted is stored
 * exactly once), with a clear log line and a metric where one exists, and must not wedge the
 * daemon (/healthz answers 200 throughout), not even while another process holds the lock.
 *
 * Faults are held for a stated period (the only fixed waits here); everything else is polled.
 * Tests that need privileges (chattr +i, mounting a tmpfs) probe for them first and are skipped
 * with the reason when the machine does not allow them.
 */
import BetterSqlite3 from "better-sqlite3"
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { cliPath, type Daemon, freePort, repoRoot, startDaemon, tempDir, waitFor } from "../support/daemon.js"
import { type Receiver, startReceiver } from "../support/receiver.js"

const WAIT = 45_000
const MODEL = "Qwen/Qwen2.5-7B-Instruct"

// ---------------------------------------------------------------------------------------------
// what each test started, stopped after it whatever happened

const daemons: Daemon[] = []
const receivers: Receiver[] = []
const children: ChildProcess[] = []
const handles: BetterSqlite3.Database[] = []
const cleanups: Array<() => void> = []
afterEach(async () => {
  for (const h of handles.splice(0)) {
    try {
      if (h.inTransaction) h.exec("ROLLBACK")
      h.close()
    } catch {
      /* already closed */
    }
  }
  for (const d of daemons.splice(0)) if (d.proc.exitCode === null && d.proc.signalCode === null) await d.kill9()
  for (const c of children.splice(0)) {
    if (c.exitCode === null && c.signalCode === null) {
      const exited = new Promise((resolve) => c.once("exit", resolve))
      c.kill("SIGKILL")
      await exited
    }
  }
  for (const r of receivers.splice(0)) await r.close()
  for (const f of cleanups.splice(0).reverse()) {
    try {
      f()
    } catch (e) {
      console.warn(`cleanup failed: ${String(e)}`)
    }
  }
})

const daemon = async (dir: string, config: Record<string, unknown>, env?: Record<string, string>, port?: number): Promise<Daemon> => {
  const d = await startDaemon({ dir, config, ...(env ? { env } : {}), ...(port ? { port } : {}) })
  daemons.push(d)
  return d
}

const receiver = async (): Promise<Receiver> => {
  const r = await startReceiver()
  receivers.push(r)
  return r
}

const newDir = (prefix: string): string => {
  const dir = tempDir(`faultline-${prefix}-`)
  fs.mkdirSync(path.join(dir, "logs"))
  return dir
}

const tailConfig = (dir: string, service: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  tail: [{ path: path.join(dir, "logs/**/*.log"), startAt: "beginning", service }],
  ...extra
})

// ---------------------------------------------------------------------------------------------
// failures written to files and posted to the webhook, each identified by a unique request id

let seq = 0
/** A failure line (text or pino JSON, alternately) whose request id `req-7f3a-<id>` identifies it. */
const failureLine = (id: string): string =>
  seq++ % 2 === 0
    ? `${new Date().toISOString()} ERROR chat.client - request_id=req-7f3a-${id} HTTP 429 {"code":50603,"message":"Request was rejected due to rate limiting. Details: TPM limit reached.","data":null}`
    : JSON.stringify({ level: 50, time: Date.now(), msg: "upstream call failed", requestId: `req-7f3a-${id}`, status: 503, body: { code: 50508, message: "System is too busy now. Please try again later.", data: null }, model: MODEL })
const ordinaryLine = (i: number): string => `${new Date().toISOString()} INFO http - GET /api/items/${i} 200 3ms`

/** A structured webhook record with its own `id` (and the same request id). */
const hookRecord = (id: string, service: string) => ({
  id,
  service,
  status: 429,
  model: MODEL,
  requestId: `req-7f3a-${id}`,
  body: { code: 50603, message: "Request was rejected due to rate limiting. Details: TPM limit reached.", data: null }
})

interface Posted {
  readonly ids: ReadonlyArray<string>
  readonly status: number
  readonly retryAfter: string | null
  readonly text: string
  readonly ms: number
}

/** POST /v1/events with our own generous timeout (the daemon may be stalled by the fault). */
const postEvents = async (d: Daemon, records: ReadonlyArray<{ readonly id: string; readonly [k: string]: unknown }>): Promise<Posted> => {
  const t0 = Date.now()
  const ids = records.map((x) => x.id)
  try {
    const r = await fetch(`${d.url}/v1/events`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(records),
      signal: AbortSignal.timeout(60_000)
    })
    const text = await r.text()
    return { ids, status: r.status, retryAfter: r.headers.get("retry-after"), text, ms: Date.now() - t0 }
  } catch (e) {
    // a transport failure (connection reset, timeout): status 0, the cause in `text`
    const cause = (e as { cause?: { code?: string; message?: string } }).cause
    return { ids, status: 0, retryAfter: null, text: `${String(e)}: ${cause?.code ?? cause?.message ?? ""}`, ms: Date.now() - t0 }
  }
}

/** The request ids (without `req-7f3a-`) of every stored event of `service`, walking all pages. */
const storedIds = async (d: Daemon, service: string): Promise<string[]> => {
  const ids: string[] = []
  let cursor: string | null = null
  do {
    const page: { events: Array<{ requestId: string | null }>; nextCursor: string | null } = await d.json(
      `/v1/events?since=3650d&service=${encodeURIComponent(service)}&limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`
    )
    for (const e of page.events) ids.push(e.requestId?.replace(/^req-7f3a-/, "") ?? "<none>")
    cursor = page.nextCursor
  } while (cursor !== null)
  return ids
}

/** Waits until every expected id of `service` is stored, then requires each exactly once and nothing else. */
const expectStoredOnce = async (d: Daemon, service: string, expected: ReadonlyArray<string>, timeoutMs = WAIT): Promise<void> => {
  const want = [...expected].sort()
  const wantSet = new Set(want)
  let got: string[] = []
  try {
    await waitFor(
      `${want.length} stored events of ${service}`,
      async () => {
        got = (await storedIds(d, service)).sort()
        const have = new Set(got)
        return want.every((id) => have.has(id)) ? true : undefined
      },
      timeoutMs,
      200
    )
  } catch (e) {
    const have = new Set(got)
    const missing = want.filter((id) => !have.has(id))
    const problems = d.logs().filter((l) => Number(l.level) >= 40).slice(-5)
    throw new Error(`${(e as Error).message}; missing ${missing.length}: ${missing.slice(0, 5).join(", ")}; warnings ${JSON.stringify(problems)}`)
  }
  const twice = got.filter((id, i) => i > 0 && got[i - 1] === id)
  const extra = got.filter((id) => !wantSet.has(id))
  expect({ storedTwice: twice, notWritten: extra, count: got.length }).toEqual({ storedTwice: [], notWritten: [], count: want.length })
}

/** The value of one Prometheus sample line (`name{labels}`), or null. */
const metric = async (d: Daemon, sample: string): Promise<number | null> => {
  const text = await (await fetch(`${d.url}/metrics`, { signal: AbortSignal.timeout(30_000) })).text()
  for (const l of text.split("\n")) if (l.startsWith(`${sample} `)) return Number(l.slice(sample.length + 1))
  return null
}

/** Warning-or-worse log lines whose message matches. */
const logged = (d: Daemon, msg: RegExp, minLevel = 40): Array<Record<string, unknown>> =>
  d.logs().filter((l) => Number(l.level) >= minLevel && typeof l.msg === "string" && msg.test(l.msg))

/** Polls /healthz every `everyMs` (one probe at a time) until stopped; every answer and its latency. */
const watchHealth = (d: Daemon, everyMs = 100) => {
  const samples: Array<{ status: number | string; ms: number }> = []
  let stopped = false
  const loop = (async () => {
    while (!stopped) {
      const t0 = performance.now()
      let status: number | string
      try {
        const r = await fetch(`${d.url}/healthz`, { signal: AbortSignal.timeout(30_000) })
        await r.arrayBuffer()
        status = r.status
      } catch (e) {
        status = String(e)
      }
      samples.push({ status, ms: performance.now() - t0 })
      if (!stopped) await new Promise((r) => setTimeout(r, everyMs))
    }
  })()
  return {
    stop: async () => {
      stopped = true
      await loop
      const ms = samples.map((s) => s.ms).sort((a, b) => a - b)
      return { samples, statuses: [...new Set(samples.map((s) => s.status))], max: ms[ms.length - 1] ?? 0, p50: ms[Math.floor(ms.length / 2)] ?? 0 }
    }
  }
}

const pause = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

/** SQLite's own integrity check of the daemon's database, through a read-only connection of ours. */
const expectIntact = (dir: string): void => {
  const db = new BetterSqlite3(path.join(dir, "data/faultline.db"), { readonly: true, timeout: 20_000 })
  handles.push(db)
  expect(db.pragma("integrity_check", { simple: true })).toBe("ok")
  db.close()
}

// ---------------------------------------------------------------------------------------------
// privileges for faults that bite as root

const run = (cmd: string, args: ReadonlyArray<string>): void => {
  execFileSync(cmd, args, { stdio: ["ignore", "ignore", "pipe"] })
}

/** Null when `chattr +i` stops writes through an already open file descriptor here; else why not. */
const probeImmutable = (): string | null => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "faultline-probe-"))
  const file = path.join(dir, "f")
  const fd = fs.openSync(file, "a")
  try {
    fs.writeSync(fd, "a")
    try {
      run("chattr", ["+i", file])
    } catch (e) {
      return `chattr +i is not possible here (${String((e as Error).message).split("\n")[0]})`
    }
    try {
      fs.writeSync(fd, "b")
      return "chattr +i does not stop writes to an open file on this file system"
    } catch {
      return null
    } finally {
      run("chattr", ["-i", file])
    }
  } finally {
    fs.closeSync(fd)
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

/** Null when a tmpfs can be mounted (and unmounted) here; else why not. */
const probeTmpfs = (): string | null => {
  if (process.platform !== "linux") return "mounting a tmpfs needs Linux"
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "faultline-probe-"))
  try {
    run("mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", dir])
    run("umount", [dir])
    return null
  } catch (e) {
    return `cannot mount a tmpfs (needs CAP_SYS_ADMIN): ${String((e as Error).message).split("\n")[0]}`
  } finally {
    fs.rmSync(dir, { recursive: true, force: true, maxRetries: 2 })
  }
}

const noImmutable = probeImmutable()
const noTmpfs = probeTmpfs()
if (noImmutable !== null) console.warn(`faults.test: the read-only test is skipped: ${noImmutable}`)
if (noTmpfs !== null) console.warn(`faults.test: the disk-full test is skipped: ${noTmpfs}`)

// ---------------------------------------------------------------------------------------------
// A storage fault held for a while, with lines appended and webhooks posted during it

interface DuringFault {
  readonly fileIds: string[]
  readonly posts: Array<Promise<Posted>>
}

/** For `holdMs`: every `everyMs`, append failures (and ordinary lines) and post a webhook of 2 records. */
const produceDuring = async (d: Daemon, log: string, tag: string, hookService: string, holdMs: number, everyMs = 700): Promise<DuringFault> => {
  const out: DuringFault = { fileIds: [], posts: [] }
  const end = Date.now() + holdMs
  for (let round = 0; Date.now() < end; round++) {
    let text = ""
    for (let i = 0; i < 5; i++) {
      const id = `${tag}-f${round}-${i}`
      out.fileIds.push(id)
      text += failureLine(id) + "\n" + ordinaryLine(i) + "\n"
    }
    fs.appendFileSync(log, text)
    out.posts.push(postEvents(d, [hookRecord(`${tag}-h${round}-a`, hookService), hookRecord(`${tag}-h${round}-b`, hookService)]))
    await pause(Math.min(everyMs, Math.max(0, end - Date.now())))
  }
  return out
}

/**
 * After the fault is gone: every webhook POST answered 202 (stored) or 503 with Retry-After
 * (not stored); those, and any that failed in transport (whose fate the client cannot know),
 * are re-posted by us as a client would. Then every file failure is stored exactly once, as is
 * every webhook record.
 */
const settleAfterFault = async (d: Daemon, during: DuringFault, fileService: string, hookService: string, warmup: { file: ReadonlyArray<string>; hook: ReadonlyArray<string> }) => {
  const answers = await Promise.all(during.posts)
  const byStatus = answers.reduce<Record<string, number>>((m, a) => ({ ...m, [a.status]: (m[a.status] ?? 0) + 1 }), {})
  for (const a of answers) {
    expect([202, 503, 0], `POST answered ${a.status}: ${a.text}`).toContain(a.status)
    if (a.status === 503) {
      expect(a.retryAfter, "503 carries Retry-After").toMatch(/^\d+$/)
      expect(JSON.parse(a.text).error.code).toBe("not_ready")
    } else if (a.status === 202) {
      expect(JSON.parse(a.text)).toMatchObject({ accepted: a.ids.length, duplicates: 0 })
    }
  }
  // the tailer lost nothing and stored nothing twice
  await expectStoredOnce(d, fileService, [...warmup.file, ...during.fileIds])
  // what was refused with 503 was not stored: the client's retry stores it, once
  const refused = answers.filter((a) => a.status === 503)
  const transport = answers.filter((a) => a.status === 0)
  const stored = new Set(await storedIds(d, hookService))
  for (const a of refused) for (const id of a.ids) expect(stored.has(id), `${id} refused with 503 but stored`).toBe(false)
  for (const a of [...refused, ...transport]) {
    const again = await postEvents(d, a.ids.map((id) => hookRecord(id, hookService)))
    expect(again.status, again.text).toBe(202)
    const body = JSON.parse(again.text)
    expect(body.accepted + body.duplicates).toBe(a.ids.length)
    if (a.status === 503) expect(body.accepted).toBe(a.ids.length)
  }
  await expectStoredOnce(d, hookService, [...warmup.hook, ...answers.flatMap((a) => a.ids)])
  return {
    byStatus,
    refused: refused.length,
    transport: transport.map((a) => a.text),
    slowestPostMs: Math.max(...answers.map((a) => a.ms))
  }
}

/**
 * A write error (not a lock) during the fault: every POST got 503 at once, /healthz kept
 * answering, the tailer logged its retries with the cause (`cause` matches it) and the metric
 * counted the store errors.
 */
const expectWriteFaultAnswered = async (
  label: string,
  d: Daemon,
  outcome: Awaited<ReturnType<typeof settleAfterFault>>,
  during: DuringFault,
  health: ReturnType<typeof watchHealth>,
  cause: RegExp
): Promise<void> => {
  const h = await health.stop()
  console.log(
    `${label}: POSTs ${JSON.stringify(outcome.byStatus)} (slowest ${outcome.slowestPostMs} ms); ` +
      `/healthz ${h.samples.length} probes, statuses ${JSON.stringify(h.statuses)}, p50 ${h.p50.toFixed(0)} ms, max ${h.max.toFixed(0)} ms`
  )
  expect(outcome.byStatus).toEqual({ "503": during.posts.length })
  expect(outcome.slowestPostMs).toBeLessThan(2_000)
  expect(h.statuses).toEqual([200])
  const retries = logged(d, /could not commit a batch; will retry/)
  expect(retries.length).toBeGreaterThan(0)
  console.log(`${label}: ${retries.length} warnings like ${JSON.stringify({ msg: retries[0]!.msg, error: retries[0]!.error })}`)
  expect(JSON.stringify(retries[0])).toMatch(cause)
  expect(await metric(d, `faultline_ingest_errors_total{reason="store_unavailable"}`)).toBeGreaterThanOrEqual(1)
}

/** The daemon still works: a new webhook record and a new line are stored promptly. */
const stillWorks = async (d: Daemon, log: string, fileService: string, hookService: string, tag: string, fileIds: ReadonlyArray<string>, hookIds: ReadonlyArray<string>) => {
  const r = await postEvents(d, [hookRecord(`${tag}-after`, hookService)])
  expect(r.status, r.text).toBe(202)
  fs.appendFileSync(log, failureLine(`${tag}-after`) + "\n")
  await expectStoredOnce(d, fileService, [...fileIds, `${tag}-after`], 20_000)
  await expectStoredOnce(d, hookService, [...hookIds, `${tag}-after`], 20_000)
}

// ---------------------------------------------------------------------------------------------

describe("storage faults", () => {
  /** A daemon tailing one file, with one failure stored through each source before the fault. */
  const warmDaemon = async (tag: string) => {
    const dir = newDir(tag)
    const log = path.join(dir, "logs/app.log")
    const d = await daemon(dir, tailConfig(dir, `${tag}-file`))
    fs.appendFileSync(log, failureLine(`${tag}-warm`) + "\n")
    await expectStoredOnce(d, `${tag}-file`, [`${tag}-warm`])
    const warm = await postEvents(d, [hookRecord(`${tag}-warm-hook`, `${tag}-hook`)])
    expect(warm.status, warm.text).toBe(202)
    return { dir, log, d, warmup: { file: [`${tag}-warm`], hook: [`${tag}-warm-hook`] } }
  }

  /** Another process holds a write transaction on the database for `holdMs` while failures arrive. */
  const underLock = async (tag: string, holdMs: number) => {
    const w = await warmDaemon(tag)
    const health = watchHealth(w.d)
    const locker = new BetterSqlite3(path.join(w.dir, "data/faultline.db"), { timeout: 20_000 })
    handles.push(locker)
    locker.exec("BEGIN IMMEDIATE")
    const lockedAt = Date.now()
    const during = await produceDuring(w.d, w.log, tag, `${tag}-hook`, holdMs)
    // held for the stated time, then released
    await pause(Math.max(0, lockedAt + holdMs - Date.now()))
    locker.exec("COMMIT")
    locker.close()
    const heldMs = Date.now() - lockedAt
    const outcome = await settleAfterFault(w.d, during, `${tag}-file`, `${tag}-hook`, w.warmup)
    const h = await health.stop()
    console.log(
      `locked db (${tag}): held ${heldMs} ms; POSTs ${JSON.stringify(outcome.byStatus)} (slowest ${outcome.slowestPostMs} ms` +
        `${outcome.transport.length > 0 ? `; transport errors: ${outcome.transport.join(", ")}` : ""}); ` +
        `/healthz ${h.samples.length} probes, statuses ${JSON.stringify(h.statuses)}, p50 ${h.p50.toFixed(0)} ms, max ${h.max.toFixed(0)} ms`
    )
    return { ...w, during, outcome, health: h }
  }

  it("a database locked by another process for 8 s: 202 or 503 + Retry-After, nothing lost or stored twice; the tailer retries; /healthz 200 once released", async () => {
    const { dir, d, log, during, outcome, health, warmup } = await underLock("lock", 8_000)
    // every POST got 202 or 503 (or, see the next test, a reset connection): never a 500
    expect(Object.keys(outcome.byStatus).every((k) => ["202", "503", "0"].includes(k))).toBe(true)
    // (how /healthz fares during the lock is the next test's, failing, subject)
    expect(health.samples.length).toBeGreaterThan(0)
    const after = await fetch(`${d.url}/healthz`, { signal: AbortSignal.timeout(2_000) })
    expect(after.status).toBe(200)

    // a clear log line about the retried commit, naming the cause, and the metric
    const retries = logged(d, /could not commit a batch; will retry/)
    expect(retries.length).toBeGreaterThan(0)
    console.log(`locked db: ${retries.length} warnings like ${JSON.stringify({ msg: retries[0]!.msg, error: retries[0]!.error })}`)
    expect(JSON.stringify(retries[0])).toMatch(/locked|busy/i)
    expect(await metric(d, `faultline_ingest_errors_total{reason="store_unavailable"}`)).toBeGreaterThanOrEqual(1)

    await stillWorks(d, log, "lock-file", "lock-hook", "lock", [...warmup.file, ...during.fileIds], await storedIds(d, "lock-hook"))
    expectIntact(dir)
  }, 120_000)

  // BUG (reported): the busy wait of a locked database happens on the event loop. Every commit
  // attempt blocks the whole daemon for busy_timeout (5 s, src/store/Database.ts), and queued
  // commits follow one another, so the daemon answers nothing for about as long as the lock is
  // held: /healthz stalls for seconds, and a request (/healthz or a webhook) sent on an idle
  // keep-alive connection during the stall is reset (Node's 5 s keepAliveTimeout fires before
  // the request is read) instead of being answered. Certain to fail: the first commit under the
  // lock blocks the loop for 5 s, so no /healthz probe meanwhile can answer within 2 s.
  it("keeps answering while the database is locked: /healthz within 2 s and no webhook connection reset", async () => {
    const { health, outcome } = await underLock("lockrt", 6_000)
    expect({ healthz: health.statuses, healthzMaxUnder2s: health.max < 2_000, transportErrors: outcome.transport }).toEqual({
      healthz: [200],
      healthzMaxUnder2s: true,
      transportErrors: []
    })
  }, 120_000)

  it.skipIf(noImmutable !== null)("database files that cannot be written (chattr +i) for 6 s: 503 + Retry-After at once, the tailer retries, nothing lost", async () => {
    const { dir, log, d, warmup } = await warmDaemon("ro")
    // the folder, the database and its WAL become immutable: writes through the daemon's open
    // descriptors fail with EPERM even for root (-shm stays writable: it is memory-mapped)
    const db = path.join(dir, "data/faultline.db")
    const frozen = [path.join(dir, "data"), db, `${db}-wal`]
    for (const f of frozen) expect(fs.existsSync(f), f).toBe(true)
    cleanups.push(() => run("chattr", ["-i", ...frozen]))
    const health = watchHealth(d)
    run("chattr", ["+i", ...frozen])
    const frozenAt = Date.now()
    const during = await produceDuring(d, log, "ro", "ro-hook", 6_000)
    await pause(Math.max(0, frozenAt + 6_000 - Date.now()))
    run("chattr", ["-i", ...frozen])

    const outcome = await settleAfterFault(d, during, "ro-file", "ro-hook", warmup)
    // a write error fails at once: every POST during the fault got 503, quickly
    await expectWriteFaultAnswered("read-only db files", d, outcome, during, health, /I\/O|readonly|read-only|permitted|EPERM/i)

    await stillWorks(d, log, "ro-file", "ro-hook", "ro", [...warmup.file, ...during.fileIds], await storedIds(d, "ro-hook"))
    expectIntact(dir)
  }, 120_000)

  it.skipIf(noTmpfs !== null)("a full disk (the database on a tiny tmpfs, filled up) for 6 s: 503 + Retry-After, the tailer retries, nothing lost", async () => {
    const dir = newDir("diskfull")
    const dataDir = path.join(dir, "data")
    fs.mkdirSync(dataDir)
    run("mount", ["-t", "tmpfs", "-o", "size=16m", "tmpfs", dataDir])
    cleanups.push(() => {
      try {
        run("umount", [dataDir])
      } catch {
        run("umount", ["-l", dataDir])
      }
    })
    const log = path.join(dir, "logs/app.log")
    const d = await daemon(dir, tailConfig(dir, "full-file"))
    fs.appendFileSync(log, failureLine("full-warm") + "\n")
    await expectStoredOnce(d, "full-file", ["full-warm"])
    const warm = await postEvents(d, [hookRecord("full-warm-hook", "full-hook")])
    expect(warm.status, warm.text).toBe(202)
    const warmup = { file: ["full-warm"], hook: ["full-warm-hook"] }

    const health = watchHealth(d)
    // fill what is left of the file system
    const filler = path.join(dataDir, "filler")
    const fd = fs.openSync(filler, "w")
    const block = Buffer.alloc(64 * 1024, 1)
    try {
      for (;;) fs.writeSync(fd, block)
    } catch (e) {
      expect((e as NodeJS.ErrnoException).code).toBe("ENOSPC")
    }
    // and the last partial block
    try {
      for (;;) fs.writeSync(fd, block.subarray(0, 512))
    } catch {
      /* full */
    }
    fs.closeSync(fd)
    const filledAt = Date.now()
    const during = await produceDuring(d, log, "full", "full-hook", 6_000)
    await pause(Math.max(0, filledAt + 6_000 - Date.now()))
    fs.rmSync(filler)

    const outcome = await settleAfterFault(d, during, "full-file", "full-hook", warmup)
    // SQLITE_FULL fails at once: every POST during the fault got 503, quickly
    await expectWriteFaultAnswered("disk full", d, outcome, during, health, /full/i)

    await stillWorks(d, log, "full-file", "full-hook", "full", [...warmup.file, ...during.fileIds], await storedIds(d, "full-hook"))
    expectIntact(dir)
    await d.kill9()
  }, 120_000)
})

// ---------------------------------------------------------------------------------------------

describe("a database faultline may not write", () => {
  // root writes through any mode bits: run the daemon as `nobody` when this machine can (CI runs as root)
  const asNobody = process.getuid?.() === 0 && fs.existsSync("/usr/bin/setpriv")

  it.runIf(asNobody)("a read-only database file: exit 1, one line naming the path and what to do, no stack trace", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "fl-ro-"))
    const db = path.join(dir, "faultline.db")
    new BetterSqlite3(db).close()
    fs.writeFileSync(path.join(dir, "app.log"), "2026-11-21 10:00:00 ERROR HTTP 500 {\"code\":50000,\"message\":\"x\"}\n")
    fs.chmodSync(db, 0o444)
    fs.chmodSync(dir, 0o555)
    try {
      let code = 0
      let stderr = ""
      try {
        execFileSync("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", process.execPath, cliPath, "replay", path.join(dir, "app.log")], {
          cwd: dir,
          env: { PATH: process.env["PATH"] ?? "", FAULTLINE_DB: db },
          stdio: ["ignore", "pipe", "pipe"],
          timeout: 60_000
        })
      } catch (e) {
        const err = e as { status: number | null; stderr: Buffer }
        code = err.status ?? -1
        stderr = err.stderr.toString()
      }
      expect(code, stderr).toBe(1)
      const lines = stderr.trimEnd().split("\n")
      expect(lines, stderr).toHaveLength(1)
      expect(lines[0]).toContain(db)
      expect(lines[0]).toMatch(/readonly|read-only/)
      expect(lines[0]).toMatch(/FAULTLINE_DB/)
      expect(stderr).not.toMatch(/\n\s+at /)
    } finally {
      fs.chmodSync(dir, 0o755)
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe("kill -9", () => {
  it("in the middle of a 50k-line file: after restart every failure is stored exactly once and every line counted once", async () => {
    const dir = newDir("k9batch")
    const config = tailConfig(dir, "k9-file")
    let d = await daemon(dir, config)
    const expected: string[] = []
    let linesWritten = 0
    let killedAt: number | null = null
    // 50k lines are appended to a followed file at once; kill while the tailer is part-way
    // through them (if it was too quick for us, another file is tried)
    for (let attempt = 0; attempt < 6 && killedAt === null; attempt++) {
      const lines: string[] = []
      for (let i = 0; i < 50_000; i++) {
        if (i % 10 === 3) {
          const id = `k9-${attempt}-${i}`
          expected.push(id)
          lines.push(failureLine(id))
        } else lines.push(ordinaryLine(i))
      }
      const before = linesWritten
      linesWritten += lines.length
      // the file is followed (empty) first, then the 50k lines are appended at once
      const file = path.join(dir, `logs/batch-${attempt}.log`)
      fs.writeFileSync(file, "")
      await waitFor(
        "the tailer to follow the new file",
        async () => ((await d.json("/v1/report?since=3650d")).ingest.sources as Array<{ source: string }>).some((x) => x.source === `file:${file}`) || undefined,
        30_000
      )
      fs.appendFileSync(file, lines.join("\n") + "\n")
      const seen = await waitFor(
        "the tailer to start on the file",
        async () => {
          const r = await d.json("/v1/report?since=3650d")
          return r.ingest.linesRead > before ? (r.ingest.linesRead as number) : undefined
        },
        30_000,
        5
      )
      if (seen < linesWritten) {
        await d.kill9()
        killedAt = seen
      }
    }
    expect(killedAt, "the tailer was caught in the middle of a file").not.toBeNull()
    console.log(`kill -9 mid-file: killed with ${killedAt} of ${linesWritten} lines committed`)

    d = await daemon(dir, config)
    await expectStoredOnce(d, "k9-file", expected, 60_000)
    const r = await waitFor(
      "every line counted",
      async () => {
        const rep = await d.json("/v1/report?since=3650d")
        return rep.ingest.linesRead >= linesWritten ? rep : undefined
      },
      30_000,
      100
    )
    expect(r.ingest).toMatchObject({ linesRead: linesWritten, failures: expected.length, ignored: linesWritten - expected.length })
    expect(r.total).toBe(expected.length)
    expectIntact(dir)
  }, 150_000)

  it("during start-up and the migrations, on fresh databases: each crash leaves whole migrations only, and the next start applies the rest once and works", async () => {
    const migrations = fs
      .readdirSync(path.join(repoRoot, "migrations"))
      .filter((f) => /^\d+_.+\.sql$/.test(f))
      .map((f) => {
        // what the migration creates and drops, in order (a later migration may drop what an
        // earlier one made: 007 replaces the events table by a view)
        const steps = [...fs.readFileSync(path.join(repoRoot, "migrations", f), "utf8").matchAll(
          /(CREATE|DROP)\s+(?:UNIQUE\s+)?(?:TABLE|INDEX|VIEW|TRIGGER)\s+(?:IF\s+(?:NOT\s+)?EXISTS\s+)?(\w+)(?:\s+ON\s+(\w+))?/gi
        )].map((m) => ({ drop: m[1]!.toUpperCase() === "DROP", name: m[2]!, on: m[3] }))
        return { version: parseInt(f, 10), steps, objects: steps.filter((x) => !x.drop).map((x) => x.name) }
      })
      .sort((a, b) => a.version - b.version)
    expect(migrations.length).toBeGreaterThan(0)
    const versions = migrations.map((m) => m.version)

    /** What a crashed start left: the migrations recorded and the schema objects (read from a copy, not to disturb it). */
    const inspect = (dbFile: string): { applied: number[]; objects: Set<string> } | null => {
      if (!fs.existsSync(dbFile)) return null
      const copy = tempDir("faultline-mig-copy-")
      try {
        for (const suffix of ["", "-wal", "-shm"]) if (fs.existsSync(dbFile + suffix)) fs.copyFileSync(dbFile + suffix, path.join(copy, `db${suffix}`))
        const db = new BetterSqlite3(path.join(copy, "db"))
        try {
          const objects = new Set(db.prepare("SELECT name FROM sqlite_master").pluck().all() as string[])
          const applied = objects.has("schema_migrations") ? (db.prepare("SELECT version FROM schema_migrations ORDER BY version").pluck().all() as number[]) : []
          return { applied, objects }
        } finally {
          db.close()
        }
      } finally {
        fs.rmSync(copy, { recursive: true, force: true })
      }
    }

    // The migrations take a few milliseconds once the database file exists, too short to hit
    // with timers. So: kill at 0–300 ms after spawn (before the database exists, on this
    // machine), and at the moment the WAL first reaches a size on a ladder spanning the
    // migrations' writes, watched in a tight loop: some kills land in the middle of a commit.
    const plans = [
      ...[0, 300].map((ms) => ({ label: `${ms}ms`, ms, walBytes: null as number | null })),
      ...[1, 8_192, 65_536, 104_000, 112_000, 128_000, 160_000, 192_000, 224_000].map((b) => ({ label: `wal>=${b}`, ms: 0, walBytes: b as number | null }))
    ]
    const rounds: Array<{ dir: string; port: number; label: string; state: string }> = []
    for (const plan of plans) {
      const dir = newDir("k9migrate")
      const port = await freePort()
      const dbFile = path.join(dir, "data/faultline.db")
      fs.writeFileSync(
        path.join(dir, "faultline.json"),
        JSON.stringify({ database: { path: dbFile }, tail: [{ path: path.join(dir, "logs/**/*.log"), startAt: "beginning", service: "mig-file" }], http: { host: "127.0.0.1", port } })
      )
      fs.writeFileSync(path.join(dir, "logs/app.log"), failureLine("mig-before") + "\n")
      const c = spawn(process.execPath, [cliPath, "serve", "--config", path.join(dir, "faultline.json")], { cwd: dir, stdio: "ignore" })
      children.push(c)
      const exited = new Promise((resolve) => c.once("exit", resolve))
      if (plan.walBytes === null) {
        await pause(plan.ms)
      } else {
        await waitFor("the database file", () => fs.existsSync(dbFile), 30_000, 1)
        // a tight synchronous loop: a timer would be far too coarse
        const until = Date.now() + 3_000
        for (;;) {
          let size = -1
          try {
            size = fs.statSync(`${dbFile}-wal`).size
          } catch {
            /* not yet */
          }
          if (size >= plan.walBytes || c.exitCode !== null || Date.now() > until) break
        }
      }
      c.kill("SIGKILL")
      await exited
      const s = inspect(dbFile)
      if (s !== null) {
        // the recorded migrations are a prefix 1..k, and the schema is exactly what they made
        expect(s.applied, plan.label).toEqual(versions.slice(0, s.applied.length))
        const made = new Set<string>()
        const indexesOn = new Map<string, string>()
        for (const m of migrations.filter((x) => s.applied.includes(x.version))) {
          for (const x of m.steps) {
            if (!x.drop) {
              made.add(x.name)
              if (x.on !== undefined) indexesOn.set(x.name, x.on)
              continue
            }
            made.delete(x.name) // a dropped table takes its indexes with it
            for (const [index, table] of indexesOn) if (table === x.name) made.delete(index)
          }
        }
        for (const m of migrations) {
          for (const o of m.objects) {
            expect(s.objects.has(o), `${plan.label}: ${o} of migration ${m.version} exists iff the migration is recorded (${s.applied.join(",")})`).toBe(made.has(o))
          }
        }
      }
      rounds.push({ dir, port, label: plan.label, state: s === null ? "no db" : `${s.applied.length}/${versions.length}` })
    }
    console.log(`kill -9 during start-up, migrations recorded when killed: ${rounds.map((r) => `${r.label}:${r.state}`).join(" ")}`)

    // every crashed database: the next start is ready with every migration once, and works
    for (const r of rounds) {
      const d = await daemon(r.dir, tailConfig(r.dir, "mig-file"), undefined, r.port)
      expect(inspect(path.join(r.dir, "data/faultline.db"))!.applied, r.label).toEqual(versions)
      const posted = await postEvents(d, [hookRecord(`mig-hook-${r.label}`, "mig-hook")])
      expect(posted.status, posted.text).toBe(202)
      await expectStoredOnce(d, "mig-file", ["mig-before"])
      await expectStoredOnce(d, "mig-hook", [`mig-hook-${r.label}`])
      await d.kill9()
    }
  }, 150_000)

  it("in the middle of a delivery: after restart the notification is delivered once more, with the same X-Faultline-Delivery id", async () => {
    const hook = await receiver()
    hook.respond(() => "hang")
    const dir = newDir("k9deliver")
    const log = path.join(dir, "logs/app.log")
    const config = tailConfig(dir, "dlv-file", {
      receivers: [{ name: "oncall", type: "webhook", url: `${hook.url}/hook`, timeout: "60s" }],
      defaultReceivers: ["oncall"],
      delivery: { initialBackoff: "200ms", maxBackoff: "1s" }
    })
    let d = await daemon(dir, config)
    fs.appendFileSync(log, `${new Date().toISOString()} ERROR chat.client - request_id=req-7f3a-dlv-401 HTTP 401 {"code":401,"message":"Invalid token","data":null}\n`)
    const [hung] = await waitFor("the alert to reach the hanging receiver", () => (hook.received.length > 0 ? hook.received : undefined), WAIT)
    const deliveryId = hung!.headers["x-faultline-delivery"] as string
    expect(typeof deliveryId).toBe("string")
    expect(hung!.json()).toMatchObject({ kind: "alert", status: "firing", rule: "api-key-invalid" })
    const pending = (await d.json(`/v1/notifications?receiver=oncall`)).notifications as any[]
    expect(pending.map((n) => [n.id, n.state])).toEqual([[deliveryId, "pending"]])

    await d.kill9()
    hook.respond(() => ({ status: 200 }))
    d = await daemon(dir, config)
    const withId = () => hook.received.filter((r) => r.headers["x-faultline-delivery"] === deliveryId)
    await waitFor("the notification to be sent again", () => withId().length >= 2 || undefined, WAIT)
    const delivered = await waitFor(
      "the notification recorded as delivered",
      async () => {
        const n = ((await d.json(`/v1/notifications?receiver=oncall`)).notifications as any[]).find((x) => x.id === deliveryId)
        return n?.state === "delivered" ? n : undefined
      },
      WAIT
    )
    expect(delivered.attempts).toEqual([expect.objectContaining({ attempt: 1, statusCode: 200, outcome: "delivered" })])
    expect(withId()[1]!.body).toBe(hung!.body)

    // a barrier: another alert delivered afterwards; the first is still sent exactly twice in all
    fs.appendFileSync(log, `${new Date().toISOString()} ERROR chat.client - request_id=req-7f3a-dlv-402 HTTP 402 {"code":30001,"message":"Sorry, your account balance is insufficient","data":null}\n`)
    await waitFor("the quota alert", () => hook.received.some((r) => r.json().rule === "quota-exhausted") || undefined, WAIT)
    await waitFor(
      "the quota alert recorded as delivered",
      async () => ((await d.json(`/v1/notifications?receiver=oncall&state=pending`)).notifications as any[]).length === 0 || undefined,
      WAIT
    )
    expect(withId()).toHaveLength(2)
    expect(hook.received.filter((r) => r.json().rule === "api-key-invalid")).toHaveLength(2)
    await expectStoredOnce(d, "dlv-file", ["dlv-401", "dlv-402"])
  }, 120_000)
})

// ---------------------------------------------------------------------------------------------

describe("receivers", () => {
  it("a receiver that hangs forever does not hold back a healthy one; its attempts are cut at 2 s and retried", async () => {
    const stuck = await receiver()
    const healthy = await receiver()
    stuck.respond(() => "hang")
    const dir = newDir("hang")
    const log = path.join(dir, "logs/app.log")
    const d = await daemon(
      dir,
      tailConfig(dir, "hang-file", {
        receivers: [
          { name: "stuck", type: "webhook", url: `${stuck.url}/hook`, timeout: "2s" },
          { name: "healthy", type: "webhook", url: `${healthy.url}/hook`, timeout: "2s" }
        ],
        defaultReceivers: ["stuck", "healthy"],
        delivery: { initialBackoff: "200ms", maxBackoff: "1s" }
      })
    )
    const health = watchHealth(d)
    fs.appendFileSync(log, `${new Date().toISOString()} ERROR chat.client - request_id=req-7f3a-hang-401 HTTP 401 {"code":401,"message":"Invalid token","data":null}\n`)
    await waitFor("the alert at both receivers", () => (stuck.received.length > 0 && healthy.received.length > 0) || undefined, WAIT)
    const firstStuckId = stuck.received[0]!.headers["x-faultline-delivery"]

    // while the stuck receiver hangs, a new failure: the healthy one has it well before the 2 s timeout
    const posted = await postEvents(d, [{ id: "hang-402", service: "hang-hook", status: 402, model: MODEL, body: { code: 30001, message: "Sorry, your account balance is insufficient", data: null } }])
    expect(posted.status, posted.text).toBe(202)
    const postedAt = Date.now()
    await waitFor("the quota alert at the healthy receiver", () => healthy.received.some((r) => r.json().rule === "quota-exhausted") || undefined, WAIT, 5)
    const healthyMs = Date.now() - postedAt
    expect(stuck.received.length).toBeGreaterThan(0)

    // the stuck receiver's attempts are cut by the per-attempt timeout and retried, same delivery id
    const stuckRow = await waitFor(
      "two timed-out attempts at the stuck receiver",
      async () => {
        const n = ((await d.json(`/v1/notifications?receiver=stuck`)).notifications as any[]).find((x) => x.id === firstStuckId)
        return n !== undefined && n.attempts.length >= 2 ? n : undefined
      },
      WAIT,
      100
    )
    expect(stuckRow.state).toBe("pending")
    for (const a of stuckRow.attempts.slice(0, 2)) {
      expect(a).toMatchObject({ outcome: "failed", statusCode: null, error: "timeout after 2000 ms" })
      expect(a.durationMs).toBeGreaterThanOrEqual(1_900)
      expect(a.durationMs).toBeLessThan(6_000)
    }
    expect(stuck.received.filter((r) => r.headers["x-faultline-delivery"] === firstStuckId).length).toBeGreaterThanOrEqual(2)
    const healthyRows = (await d.json(`/v1/notifications?receiver=healthy`)).notifications as any[]
    expect(healthyRows.map((n) => n.state)).toEqual(["delivered", "delivered"])

    // a clear log line and the metric
    const warnings = logged(d, /notification attempt failed/).filter((l) => l.receiver === "stuck")
    expect(warnings.length).toBeGreaterThan(0)
    expect(warnings[0]).toMatchObject({ deliveryId: firstStuckId, error: "timeout after 2000 ms" })
    expect(await metric(d, `faultline_notifications_total{receiver="stuck",outcome="failed"}`)).toBeGreaterThanOrEqual(2)

    // the daemon kept serving
    const again = await postEvents(d, [hookRecord("hang-after", "hang-hook")])
    expect(again.status).toBe(202)
    const h = await health.stop()
    console.log(`hanging receiver: healthy receiver notified ${healthyMs} ms after the POST; /healthz max ${h.max.toFixed(0)} ms`)
    expect(healthyMs).toBeLessThan(1_500)
    expect(h.statuses).toEqual([200])
    expect(h.max).toBeLessThan(1_000)
  }, 120_000)
})
