/**
 * The daemon as a user runs it, driven through real files: append, partial lines, rename
 * rotation, copytruncate, SIGTERM flush, kill -9 and restart — and a model-based test that
 * applies random sequences of those and compares what was stored with what was written.
 */
import { afterEach, describe, expect, it } from "vitest"
import fc from "fast-check"
import * as fs from "node:fs"
import * as path from "node:path"
import { startDaemon, tempDir, waitFor, type Daemon } from "../support/daemon.js"

let seq = 0
/** A failure line whose request id (`req-7f3a-<id>`, shaped like real ones) identifies it. */
const failureLine = (id: string): string => {
  // an hour ago: inside every window and well within the daemon's 30-day retention
  const t = Date.now() - 3_600_000 + seq
  return seq++ % 2 === 0
    ? `${new Date(t).toISOString().replace("T", " ").replace(".", ",").slice(0, 23)} ERROR chat.client - request_id=req-7f3a-${id} HTTP 429 {"code":50603,"message":"Request was rejected due to rate limiting. Details: TPM limit reached.","data":null}`
    : JSON.stringify({ level: 50, time: t, msg: "upstream call failed", requestId: `req-7f3a-${id}`, status: 503, body: { code: 50508, message: "System is too busy now. Please try again later.", data: null }, model: "Qwen/Qwen2.5-7B-Instruct" })
}
const ordinaryLine = (i: number) => `${new Date().toISOString().replace("T", " ").replace(".", ",").slice(0, 23)} INFO http - GET /api/items/${i} 200 3ms`

/** Every stored event's requestId, walking all pages. */
const storedIds = async (d: Daemon): Promise<string[]> => {
  const ids: string[] = []
  let cursor: string | null = null
  do {
    const page: { events: Array<{ requestId: string | null }>; nextCursor: string | null } = await d.json(
      `/v1/events?since=3650d&limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`
    )
    for (const e of page.events) ids.push(e.requestId?.replace(/^req-7f3a-/, "") ?? "<none>")
    cursor = page.nextCursor
  } while (cursor !== null)
  return ids
}

const waitForIds = async (d: Daemon, expected: ReadonlyArray<string>, timeoutMs = 30_000) => {
  const want = [...expected].sort()
  let got: string[] = []
  try {
    await waitFor(`${expected.length} stored events`, async () => {
      got = (await storedIds(d)).sort()
      return got.length >= want.length && want.every((id) => got.includes(id)) ? true : undefined
    }, timeoutMs)
  } catch (e) {
    const missing = want.filter((id) => !got.includes(id))
    const report = await d.json("/v1/report?since=3650d").catch(() => null)
    const problems = d.logs().filter((l) => Number(l.level) >= 40).slice(-5)
    throw new Error(
      `${(e as Error).message}; missing ${missing.length}: ${missing.slice(0, 5).join(", ")}; ingest ${JSON.stringify(report?.ingest)}; warnings ${JSON.stringify(problems)}`
    )
  }
  // nothing twice
  expect(got).toEqual(want)
}

const daemons: Daemon[] = []
afterEach(async () => {
  for (const d of daemons.splice(0)) if (d.proc.exitCode === null && d.proc.signalCode === null) await d.kill9()
})
const start = async (dir: string, startAt: "beginning" | "end" = "beginning") => {
  const d = await startDaemon({ dir, config: { tail: [{ path: path.join(dir, "logs/**/*.log"), startAt, service: "chat-api" }] } })
  daemons.push(d)
  return d
}

describe("tailing files into the database", () => {
  it("stores failures appended in a burst, ignores ordinary lines, and counts what it read", async () => {
    const dir = tempDir()
    fs.mkdirSync(path.join(dir, "logs"))
    const d = await start(dir)
    const ids = Array.from({ length: 300 }, (_, i) => `burst-${i}`)
    const log = path.join(dir, "logs/app.log")
    // 300 failures and 300 ordinary lines, appended as fast as we can
    for (const [i, id] of ids.entries()) fs.appendFileSync(log, failureLine(id) + "\n" + ordinaryLine(i) + "\n")
    await waitForIds(d, ids)
    // the last (ordinary) line is committed once the tailer sees the file idle
    const report = await waitFor("every line counted", async () => {
      const r = await d.json("/v1/report?since=3650d")
      return r.ingest.linesRead === 600 ? r : undefined
    })
    expect(report.ingest.ignored).toBe(300)
    expect(report.ingest.failures).toBe(300)
    const ev = (await d.json("/v1/events?limit=1")).events[0]
    expect(ev.source).toBe(`file:${log}`)
    expect(ev.service).toBe("chat-api")
  })

  it("waits for the newline of a partial last line", async () => {
    const dir = tempDir()
    fs.mkdirSync(path.join(dir, "logs"))
    const d = await start(dir)
    const log = path.join(dir, "logs/app.log")
    const line = failureLine("partial-1")
    fs.appendFileSync(log, line.slice(0, 40))
    // the tailer has seen the file (and its partial line) but stores nothing yet
    await waitFor("the tailer to see the file", async () => (await d.json("/v1/report?since=3650d")).ingest.sources.length > 0 || undefined)
    expect(await storedIds(d)).toEqual([])
    fs.appendFileSync(log, line.slice(40) + "\n")
    await waitForIds(d, ["partial-1"])
  })

  it("drains a file rotated by rename and reads the new file from its beginning", async () => {
    const dir = tempDir()
    fs.mkdirSync(path.join(dir, "logs"))
    const d = await start(dir)
    const log = path.join(dir, "logs/app.log")
    const before = ["rot-a", "rot-b"]
    for (const id of before) fs.appendFileSync(log, failureLine(id) + "\n")
    await waitForIds(d, before)
    // written just before the rotation, read only from the renamed file
    fs.appendFileSync(log, failureLine("rot-c") + "\n")
    fs.renameSync(log, path.join(dir, "logs/app.log.1"))
    fs.writeFileSync(log, failureLine("rot-d") + "\n")
    await waitForIds(d, [...before, "rot-c", "rot-d"])
  })

  it("reads a copytruncated file again from the start", async () => {
    const dir = tempDir()
    fs.mkdirSync(path.join(dir, "logs"))
    const d = await start(dir)
    const log = path.join(dir, "logs/app.log")
    fs.appendFileSync(log, failureLine("trunc-a") + "\n" + failureLine("trunc-b") + "\n")
    await waitForIds(d, ["trunc-a", "trunc-b"])
    fs.copyFileSync(log, path.join(dir, "logs/app.log.1"))
    fs.truncateSync(log, 0)
    fs.appendFileSync(log, failureLine("trunc-c") + "\n")
    await waitForIds(d, ["trunc-a", "trunc-b", "trunc-c"])
  })

  it("startAt end skips what is already there at the first start, but not what is appended", async () => {
    const dir = tempDir()
    fs.mkdirSync(path.join(dir, "logs"))
    const log = path.join(dir, "logs/app.log")
    fs.writeFileSync(log, failureLine("old-1") + "\n")
    const d = await start(dir, "end")
    fs.appendFileSync(log, failureLine("new-1") + "\n")
    await waitForIds(d, ["new-1"])
    // a file that appears later is read from its beginning
    fs.writeFileSync(path.join(dir, "logs/later.log"), failureLine("later-1") + "\n")
    await waitForIds(d, ["new-1", "later-1"])
  })

  it("SIGTERM reads what is left, commits and exits 0 within 5 s", async () => {
    const dir = tempDir()
    fs.mkdirSync(path.join(dir, "logs"))
    const d = await start(dir)
    const log = path.join(dir, "logs/app.log")
    fs.appendFileSync(log, failureLine("term-1") + "\n")
    await waitForIds(d, ["term-1"])
    fs.appendFileSync(log, failureLine("term-2") + "\n")
    const { code, ms } = await d.stop("SIGTERM")
    expect(code).toBe(0)
    expect(ms).toBeLessThan(5_000)
    const again = await start(dir)
    await waitForIds(again, ["term-1", "term-2"])
  })

  it("after kill -9 a restart resumes exactly: nothing lost, nothing twice", async () => {
    const dir = tempDir()
    fs.mkdirSync(path.join(dir, "logs"))
    const log = path.join(dir, "logs/app.log")
    let d = await start(dir)
    const written: string[] = []
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 200; i++) {
        const id = `k9-${round}-${i}`
        written.push(id)
        fs.appendFileSync(log, failureLine(id) + "\n" + ordinaryLine(i) + "\n")
      }
      // kill in the middle of reading: no waiting for the batch to be stored
      await d.kill9()
      // more lines arrive while the daemon is down, and a rotation
      written.push(`down-${round}`)
      fs.appendFileSync(log, failureLine(`down-${round}`) + "\n")
      if (round === 1) {
        fs.renameSync(log, path.join(dir, "logs/app.log.1"))
        written.push("after-rotate")
        fs.writeFileSync(log, failureLine("after-rotate") + "\n")
      }
      d = await start(dir)
    }
    await waitForIds(d, written)
  })
})

describe("model-based: random appends, rotations, truncations and crashes", () => {
  type Op =
    | { op: "append"; n: number; partial: boolean }
    | { op: "rotate" }
    | { op: "truncate" }
    | { op: "kill9" }
    | { op: "restart" }
  const opArb: fc.Arbitrary<Op> = fc.oneof(
    { weight: 5, arbitrary: fc.record({ op: fc.constant("append" as const), n: fc.integer({ min: 1, max: 40 }), partial: fc.boolean() }) },
    { weight: 1, arbitrary: fc.constant({ op: "rotate" as const }) },
    { weight: 1, arbitrary: fc.constant({ op: "truncate" as const }) },
    { weight: 1, arbitrary: fc.constant({ op: "kill9" as const }) },
    { weight: 1, arbitrary: fc.constant({ op: "restart" as const }) }
  )

  it("stores every failure written exactly once", async () => {
    let run = 0
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 3, maxLength: 8 }), async (ops) => {
        run++
        const dir = tempDir()
        fs.mkdirSync(path.join(dir, "logs"))
        const log = path.join(dir, "logs/app.log")
        fs.writeFileSync(log, "")
        let d = await start(dir)
        const expected: string[] = []
        let pending = "" // a partial line written but not finished
        let n = 0
        let rotations = 0
        let filesAtPath = 1 // distinct files (inodes) that have stood at logs/app.log
        for (const o of ops) {
          if (o.op === "append") {
            let text = pending
            pending = ""
            for (let i = 0; i < o.n; i++) {
              const id = `m${run}-${n++}`
              expected.push(id)
              text += failureLine(id) + "\n" + (i % 3 === 0 ? ordinaryLine(i) + "\n" : "")
            }
            if (o.partial) {
              const id = `m${run}-${n++}`
              expected.push(id)
              const line = failureLine(id)
              text += line.slice(0, 30)
              pending = line.slice(30) + "\n"
            }
            fs.appendFileSync(log, text)
          } else if (o.op === "rotate") {
            if (pending) fs.appendFileSync(log, pending), (pending = "")
            // logrotate renames a file the tailer has been following for a while: wait until it
            // has opened the current one (its checkpoint exists), not until it read it all. A
            // file renamed away milliseconds after it was created, before anything saw it, is
            // out of reach of any tailer (no glob names it any more). A checkpoint keeps the
            // path its file was followed at, except that a file found rotated after a crash is
            // committed under its new name (app.log.1): every file that stood at app.log counts.
            await waitFor("the tailer to have opened the current file", async () => {
              const r = await d.json("/v1/report?since=3650d")
              const stoodAtLog = (x: { source: string }) => x.source === `file:${log}` || x.source.startsWith(`file:${log}.`)
              return r.ingest.sources.filter(stoodAtLog).length >= filesAtPath || undefined
            })
            fs.renameSync(log, path.join(dir, `logs/app.log.${++rotations}`))
            fs.writeFileSync(log, "")
            filesAtPath++
          } else if (o.op === "truncate") {
            // copytruncate: what was written is kept by the copy; wait for it to be read first,
            // as logrotate's copy would (the contract: truncation is read again from the start)
            if (pending) fs.appendFileSync(log, pending), (pending = "")
            await waitForIds(d, expected)
            fs.copyFileSync(log, path.join(dir, `logs/app.log.${++rotations}`))
            fs.truncateSync(log, 0)
          } else if (o.op === "kill9") {
            await d.kill9()
            d = await start(dir)
          } else {
            await d.stop("SIGTERM")
            d = await start(dir)
          }
        }
        if (pending) fs.appendFileSync(log, pending)
        await waitForIds(d, expected)
        await d.stop("SIGTERM")
      }),
      { numRuns: process.env.CI ? 6 : 4, endOnFailure: true }
    )
  }, 600_000)
})
