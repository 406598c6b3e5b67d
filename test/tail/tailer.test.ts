/**
 * The tailer against real files in a temporary folder. Assertions wait for conditions (poll
 * every 20 ms, up to 15 s); `drain()` is used where a test must know that everything
 * written so far has been read.
 */
import { Effect, Exit, Scope } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, beforeAll, describe, expect, it } from "vitest"
import type { IngestBatch } from "../../src/sources/Batch.js"
import { replayFile, runTailer } from "../../src/sources/tail/Tailer.js"
import { setClassifyRules } from "../../src/classify/rules.js"
import { compileUserPattern } from "../../src/config/userPattern.js"
import {
  append,
  appendLines,
  currentScanWorkerFile,
  curlDump,
  failLine,
  infoLine,
  MemoryStore,
  rid,
  ridOf,
  type LogEntry,
  type Running,
  SCAN_MODES,
  startTailer,
  type StartOptions,
  tempDir,
  useScanMode,
  waitFor
} from "./harness.js"

const running: Array<Running> = []
afterEach(async () => {
  for (const r of running.splice(0)) await r.stop()
})

const start = async (store: MemoryStore, opts: StartOptions): Promise<Running> => {
  const r = await startTailer(store, opts)
  running.push(r)
  return r
}
const stop = async (r: Running): Promise<void> => {
  running.splice(running.indexOf(r), 1)
  await r.stop()
}

const sameRids = (store: MemoryStore, expected: ReadonlyArray<string>) => () =>
  JSON.stringify(store.rids()) === JSON.stringify([...expected].sort())

const expectExactly = (store: MemoryStore, expected: ReadonlyArray<string>): void => {
  expect(store.rids()).toEqual([...expected].sort())
  expect(store.duplicates).toBe(0)
}

const MiB = 1024 * 1024

const keyOf = (file: string): string => {
  const st = fs.statSync(file, { bigint: true })
  return `${st.dev}:${st.ino}`
}

describe.each(SCAN_MODES)("tailer (%s)", (_mode, workerFile) => {
  beforeAll(() => useScanMode(workerFile))
  it("a failure storm from the start of a file: every failure once, with its own line, the classify.rules in force on whichever thread parses", async () => {
    // 12 k failures: batches end at the scanner's candidate bound, and the scan worker parses
    // the batch it holds ready while this thread commits (the rest is parsed here)
    const message = compileUserPattern("tpm limit reached")
    if (typeof message === "string") throw new Error(message)
    setClassifyRules([{ name: "busy-is-overload", match: { status: 429, code: 50603, message }, category: "overload" }])
    try {
      const dir = tempDir()
      const file = path.join(dir, "app.log")
      const expected: Array<string> = []
      const lines: Array<string> = []
      const lineOf = new Map<string, number>()
      for (let i = 0; i < 16_000; i++) {
        const id = rid()
        if (i % 4 === 3) lines.push(infoLine(id))
        else {
          expected.push(id)
          lines.push(failLine(id))
          lineOf.set(id, i + 1)
        }
      }
      appendLines(file, lines)
      const store = new MemoryStore()
      await start(store, { cwd: dir, specs: [{ path: "*.log", startAt: "beginning" }], tuning: { maxBatchLines: 50_000 } })
      await waitFor("every failure of the storm", () => store.events.size >= expected.length, 60_000)
      await waitFor("every line counted", () => store.linesRead === lines.length, 60_000)
      expectExactly(store, expected)
      expect(store.ignored).toBe(lines.length - expected.length)
      for (const e of store.events.values()) {
        expect(e.line).toBe(lineOf.get(ridOf(e)))
        expect(e).toMatchObject({ source: `file:${file}`, category: "overload", status: 429 })
      }
      expect(store.batches).toBeGreaterThan(2)
    } finally {
      setClassifyRules([])
    }
  })

  it("reads every line of a burst: the tail of a burst is not left unread", async () => {
    const dir = tempDir()
    const file = path.join(dir, "app.log")
    fs.writeFileSync(file, "")
    const store = new MemoryStore()
    await start(store, { cwd: dir, specs: [{ path: "*.log", startAt: "beginning" }] })
    const expected: Array<string> = []
    for (let i = 0; i < 200; i++) {
      const id = rid()
      expected.push(id)
      append(file, `${failLine(id)}\n`)
    }
    await waitFor("all 200 burst lines", sameRids(store, expected))
    expectExactly(store, expected)
    const events = [...store.events.values()].sort((a, b) => a.line! - b.line!)
    expect(events.map((e) => e.line)).toEqual(expected.map((_, i) => i + 1))
    expect(events[0]!.source).toBe(`file:${file}`)
    expect(events[0]).toMatchObject({ status: 429, category: "rate_limit", rateLimitKind: "TPM" })
    await waitFor("lines counted", () => store.linesRead === 200)
  })

  it("waits for the newline of a partial line", async () => {
    const dir = tempDir()
    const file = path.join(dir, "app.log")
    const store = new MemoryStore()
    const t = await start(store, { cwd: dir, specs: [{ path: "*.log", startAt: "beginning" }] })
    const a = rid()
    const b = rid()
    const line = failLine(b)
    appendLines(file, [failLine(a)])
    append(file, line.slice(0, 40))
    await t.drain()
    expect(store.rids()).toEqual([a])
    append(file, line.slice(40, 90))
    await t.drain()
    expect(store.rids()).toEqual([a])
    append(file, `${line.slice(90)}\n`)
    await waitFor("the completed line", sameRids(store, [a, b]))
    const [event] = store.byRid(b)
    expect(event!.line).toBe(2)
    expect(event!.message).toContain(b)
    expect(store.checkpoints.get(keyOf(file))!.offset).toBe(fs.statSync(file).size)
  })

  it("assembles multi-line records and reports their first line", async () => {
    const dir = tempDir()
    const file = path.join(dir, "app.log")
    const store = new MemoryStore()
    await start(store, { cwd: dir, specs: [{ path: "*.log", startAt: "beginning" }] })
    const [a, b, c] = [rid(), rid(), rid()]
    appendLines(file, [infoLine(rid()), ...curlDump(a), failLine(b)])
    // the last record is complete only when the next one starts, or after the idle flush
    appendLines(file, curlDump(c))
    await waitFor("three failures", sameRids(store, [a, b, c]))
    expect(store.byRid(a)[0]).toMatchObject({ line: 2, status: 503, category: "overload" })
    expect(store.byRid(b)[0]!.line).toBe(7)
    expect(store.byRid(c)[0]).toMatchObject({ line: 8, status: 503 })
    expect(store.ignored).toBe(1)
  })

  it("reads a file that appears after start-up from its beginning", async () => {
    const dir = tempDir()
    const store = new MemoryStore()
    await start(store, { cwd: dir, specs: [{ path: "./logs/**/*.log", startAt: "end" }] })
    expect(fs.statSync(path.join(dir, "logs")).isDirectory()).toBe(true) // the base folder is created
    fs.mkdirSync(path.join(dir, "logs", "svc"))
    const ids = [rid(), rid(), rid()]
    fs.writeFileSync(path.join(dir, "logs", "svc", "new.log"), ids.map((id) => `${failLine(id)}\n`).join(""))
    fs.writeFileSync(path.join(dir, "logs", "svc", "new.txt"), `${failLine(rid())}\n`) // not matched
    await waitFor("the new file's lines", sameRids(store, ids))
    expectExactly(store, ids)
  })

  it("applies startAt to files present on the first start only", async () => {
    const dir = tempDir()
    const endFile = path.join(dir, "end.log")
    const begFile = path.join(dir, "beginning.log")
    const old = [rid(), rid()]
    const oldB = [rid()]
    fs.writeFileSync(endFile, `${failLine(old[0]!)}\n${failLine(old[1]!)}\n${infoLine(rid()).slice(0, 20)}`)
    fs.writeFileSync(begFile, `${failLine(oldB[0]!)}\n`)
    const store = new MemoryStore()
    let t = await start(store, {
      cwd: dir,
      specs: [
        { path: "end.log", startAt: "end" },
        { path: "beginning.log", startAt: "beginning" }
      ]
    })
    await t.drain()
    expectExactly(store, oldB)
    const fresh = rid()
    append(endFile, ` (partial line completed)\n${failLine(fresh)}\n`)
    await waitFor("the appended line", sameRids(store, [...oldB, fresh]))
    expect(store.byRid(fresh)[0]!.line).toBe(4)
    // a restart is not a first start: files without a checkpoint are read from the beginning
    await stop(t)
    const later = path.join(dir, "later.log")
    const laterIds = [rid()]
    fs.writeFileSync(later, `${failLine(laterIds[0]!)}\n`)
    t = await start(store, { cwd: dir, specs: [{ path: "*.log", startAt: "end" }] })
    await waitFor("the file written while stopped", sameRids(store, [...oldB, fresh, ...laterIds]))
    await t.drain()
    expectExactly(store, [...oldB, fresh, ...laterIds])
  })

  it("rotation by rename: drains the old file, reads the new one from its beginning, nothing twice", async () => {
    const dir = tempDir()
    const file = path.join(dir, "app.log")
    const store = new MemoryStore()
    const t = await start(store, { cwd: dir, specs: [{ path: "*.log", startAt: "beginning" }] })
    const before = [rid(), rid()]
    appendLines(file, before.map(failLine))
    await waitFor("lines before rotation", sameRids(store, before))
    const oldKey = keyOf(file)
    // written just before the rotation, and by a writer still holding the old file after it
    const late = [rid(), rid()]
    appendLines(file, [failLine(late[0]!)])
    fs.renameSync(file, path.join(dir, "app.log.1"))
    appendLines(path.join(dir, "app.log.1"), [failLine(late[1]!)])
    const after = [rid(), rid(), rid()]
    appendLines(file, after.map(failLine))
    const all = [...before, ...late, ...after]
    await waitFor("every line once", sameRids(store, all))
    await waitFor("the old file let go", () => t.handle.stats().length === 1)
    expect(keyOf(file)).not.toBe(oldKey)
    await t.drain()
    expectExactly(store, all)
    expect(store.byRid(after[0]!)[0]!.line).toBe(1)
    expect(t.handle.stats().map((s) => s.path)).toEqual([file])
  })

  it("a rotated file that keeps a tailed name is the same file, not read twice", async () => {
    const dir = tempDir()
    const store = new MemoryStore()
    const t = await start(store, { cwd: dir, specs: [{ path: "*.log", startAt: "beginning" }] })
    const file = path.join(dir, "app.log")
    const a = [rid(), rid()]
    appendLines(file, a.map(failLine))
    await waitFor("first lines", sameRids(store, a))
    fs.renameSync(file, path.join(dir, "app-1.log"))
    const b = [rid()]
    appendLines(path.join(dir, "app-1.log"), b.map(failLine))
    const c = [rid()]
    appendLines(file, c.map(failLine))
    await waitFor("all lines", sameRids(store, [...a, ...b, ...c]))
    await t.drain()
    expectExactly(store, [...a, ...b, ...c])
    expect(store.byRid(b[0]!)[0]!.source).toBe(`file:${path.join(dir, "app-1.log")}`)
  })

  it("rotation while stopped: lines written just before it are read from the rotated file", async () => {
    const dir = tempDir()
    const file = path.join(dir, "app.log")
    const store = new MemoryStore()
    let t = await start(store, { cwd: dir, specs: [{ path: "*.log", startAt: "end" }] })
    const a = [rid()]
    appendLines(file, a.map(failLine))
    await waitFor("first lines", sameRids(store, a))
    await stop(t)
    const b = [rid(), rid()]
    appendLines(file, [failLine(b[0]!), ...curlDump(b[1]!)])
    fs.renameSync(file, path.join(dir, "app.log.1"))
    const c = [rid()]
    appendLines(file, c.map(failLine))
    t = await start(store, { cwd: dir, specs: [{ path: "*.log", startAt: "end" }] })
    await waitFor("lines of both files", sameRids(store, [...a, ...b, ...c]))
    await t.drain()
    expectExactly(store, [...a, ...b, ...c])
    expect(store.byRid(b[1]!)[0]!.line).toBe(3)
  })

  it("rotation while stopped, then another restart before the rotated file was finished: still read", async () => {
    const dir = tempDir()
    const file = path.join(dir, "app.log")
    const store = new MemoryStore()
    let t = await start(store, { cwd: dir, specs: [{ path: "*.log", startAt: "beginning" }] })
    const a = [rid()]
    appendLines(file, a.map(failLine))
    await waitFor("first lines", sameRids(store, a))
    await stop(t)
    // rotated while stopped; the next run recovers app.log.1 and commits it under that name...
    const b = [rid(), rid()]
    appendLines(file, b.map(failLine))
    fs.renameSync(file, path.join(dir, "app.log.1"))
    t = await start(store, { cwd: dir, specs: [{ path: "*.log", startAt: "beginning" }] })
    await waitFor("the rotated file's lines", sameRids(store, [...a, ...b]))
    await stop(t)
    // ...so a line written to it afterwards must be found again by the run after that
    const c = [rid()]
    appendLines(path.join(dir, "app.log.1"), c.map(failLine))
    t = await start(store, { cwd: dir, specs: [{ path: "*.log", startAt: "beginning" }] })
    await waitFor("the line added to the rotated file", sameRids(store, [...a, ...b, ...c]))
    await t.drain()
    expectExactly(store, [...a, ...b, ...c])
  })

  it("copytruncate: reads the file again from the start", async () => {
    const dir = tempDir()
    const file = path.join(dir, "app.log")
    const store = new MemoryStore()
    const t = await start(store, { cwd: dir, specs: [{ path: "*.log", startAt: "beginning" }] })
    const a = [rid(), rid(), rid()]
    appendLines(file, a.map(failLine))
    await waitFor("lines before truncation", sameRids(store, a))
    fs.copyFileSync(file, path.join(dir, "app.log.1"))
    fs.truncateSync(file, 0)
    const b = [rid()]
    appendLines(file, b.map(failLine))
    await waitFor("lines after truncation", sameRids(store, [...a, ...b]))
    expect(store.byRid(b[0]!)[0]!.line).toBe(1)
    // truncated and rewritten past the old offset before the tailer looked: the head tells
    await t.drain()
    const c = [rid(), rid(), rid(), rid(), rid()]
    const d = [rid()]
    fs.truncateSync(file, 0)
    appendLines(file, [...c, ...d].map(failLine))
    await waitFor("lines after the second truncation", sameRids(store, [...a, ...b, ...c, ...d]))
    await t.drain()
    expectExactly(store, [...a, ...b, ...c, ...d])
  })

  it("a deleted file: what is readable is read, then it is let go", async () => {
    const dir = tempDir()
    const file = path.join(dir, "app.log")
    const store = new MemoryStore()
    const t = await start(store, { cwd: dir, specs: [{ path: "*.log", startAt: "beginning" }] })
    const a = [rid()]
    appendLines(file, a.map(failLine))
    await waitFor("tracked", () => t.handle.stats().length === 1)
    const b = rid()
    // a last line without its newline: the writer is gone, it is a line all the same
    append(file, failLine(b))
    fs.unlinkSync(file)
    await waitFor("every line of the deleted file", sameRids(store, [...a, b]))
    await waitFor("the deleted file let go", () => t.handle.stats().length === 0)
    expectExactly(store, [...a, b])
  })

  it("a restart resumes exactly where the last commit stopped", async () => {
    const dir = tempDir()
    const file = path.join(dir, "app.log")
    const store = new MemoryStore()
    store.delayMs = 5
    const opts: StartOptions = { cwd: dir, specs: [{ path: "*.log", startAt: "beginning" }], tuning: { maxBatchLines: 50 } }
    let t = await start(store, opts)
    const expected: Array<string> = []
    const lines: Array<string> = []
    for (let i = 0; i < 3000; i++) {
      const id = rid()
      if (i % 3 === 0) {
        expected.push(id)
        if (i % 10 === 0) lines.push(...curlDump(id))
        else lines.push(failLine(id))
      } else lines.push(infoLine(id))
    }
    appendLines(file, lines)
    // stopped (not drained) in the middle of reading: some batches committed, some not
    await waitFor("some batches committed", () => store.events.size > 10)
    await stop(t)
    expect(store.events.size).toBeLessThan(expected.length)
    store.delayMs = 0
    t = await start(store, opts)
    await waitFor("everything after the restart", sameRids(store, expected))
    await t.drain()
    expectExactly(store, expected)
    const totalLines = lines.length
    expect(store.checkpoints.get(keyOf(file))).toMatchObject({ offset: fs.statSync(file).size, line: totalLines + 1 })
    expect(store.linesRead).toBe(totalLines)
    // numbers stay right across the restart
    const sample = expected[expected.length - 1]!
    expect(store.byRid(sample)[0]!.line).toBe(lines.findIndex((l) => l.includes(sample) && (l.startsWith("HTTP/") || l.includes("ERROR"))) + 1)
  })

  it("survives CRLF, invalid UTF-8, directories and unreadable entries matching the glob", async () => {
    const dir = tempDir()
    fs.mkdirSync(path.join(dir, "dir.log"))
    const file = path.join(dir, "app.log")
    const store = new MemoryStore()
    const t = await start(store, { cwd: dir, specs: [{ path: "*.log", startAt: "beginning" }] })
    const a = rid()
    const b = rid()
    fs.appendFileSync(file, Buffer.concat([Buffer.from(`${failLine(a)}\r\n`), Buffer.from([0xc3, 0x28, 0xff, 0x0a]), Buffer.from(`${failLine(b)}\r\n`)]))
    await waitFor("both failures", sameRids(store, [a, b]))
    await t.drain()
    expect(store.byRid(a)[0]!.sample.endsWith("\r")).toBe(false)
    expect(store.byRid(b)[0]!.line).toBe(3)
  })

  it("a failed commit is retried from the last commit: nothing lost, nothing twice", async () => {
    const dir = tempDir()
    const file = path.join(dir, "app.log")
    const store = new MemoryStore()
    let failures = 0
    const flaky = (batch: IngestBatch) =>
      batch.events.length > 0 && failures < 2
        ? Effect.sync(() => failures++).pipe(Effect.zipRight(Effect.dieMessage("database is locked")))
        : store.sink(batch)
    const scope = Effect.runSync(Scope.make())
    await Effect.runPromise(
      runTailer({
        scanWorkerFile: currentScanWorkerFile(),
        specs: [{ path: "*.log", service: null, startAt: "beginning" }],
        cwd: dir,
        sink: flaky,
        loadCheckpoint: (k) => store.checkpoints.get(k) ?? null,
        allCheckpoints: () => [...store.checkpoints.values()],
        firstStart: true,
        idleFlushMs: 50
      }).pipe(Scope.extend(scope))
    )
    try {
      const ids = [rid(), rid(), rid()]
      appendLines(file, [failLine(ids[0]!), infoLine(rid()), failLine(ids[1]!)])
      appendLines(file, [failLine(ids[2]!)])
      await waitFor("every failure after the failed commits", sameRids(store, ids))
      expect(failures).toBe(2)
      expectExactly(store, ids)
      await waitFor("every line counted once", () => store.linesRead === 4)
    } finally {
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
  })

  it("a line longer than 1 MiB counts as one line: the failures after it keep their numbers", async () => {
    const dir = tempDir()
    const file = path.join(dir, "app.log")
    const store = new MemoryStore()
    const t = await start(store, { cwd: dir, specs: [{ path: "*.log", startAt: "beginning" }] })
    const [a, b, c] = [rid(), rid(), rid()]
    // issue 17: after a 3 MiB line the next failure was reported as line 4
    append(file, `${"x".repeat(3 * MiB)}\n${failLine(a)}\n`)
    await waitFor("the failure after the 3 MiB line", sameRids(store, [a]))
    expect(store.byRid(a)[0]!.line).toBe(2)
    // a failure that is itself 2.5 MiB long: stored once, cut; the next line is line 4
    append(file, `${failLine(b)} ${"€".repeat(Math.floor(MiB * 0.85))}\n${failLine(c)}\n`)
    await waitFor("the long failure and the one after it", sameRids(store, [a, b, c]))
    await t.drain()
    expectExactly(store, [a, b, c])
    expect(store.byRid(b)[0]!.line).toBe(3)
    expect(store.byRid(c)[0]!.line).toBe(4)
    expect(store.linesRead).toBe(4)
    expect(store.checkpoints.get(keyOf(file))).toMatchObject({ offset: fs.statSync(file).size, line: 5 })
  })

  it("an over-long line still without its newline: not counted, and a restart (kill -9) resumes before it", async () => {
    const dir = tempDir()
    const file = path.join(dir, "app.log")
    const store = new MemoryStore()
    let t = await start(store, { cwd: dir, specs: [{ path: "*.log", startAt: "beginning" }] })
    const [a, b, c] = [rid(), rid(), rid()]
    const first = `${failLine(a)}\n`
    append(file, `${first}${failLine(b)} ${"y".repeat(2 * MiB)}`)
    await waitFor("the failure before the long line", sameRids(store, [a]))
    await t.drain()
    // the long line is consumed without being buffered, but the position stays at its start
    expect(store.checkpoints.get(keyOf(file))).toMatchObject({ offset: Buffer.byteLength(first), line: 2 })
    expect(store.linesRead).toBe(1)
    await stop(t)
    append(file, `${"y".repeat(MiB)}\n${failLine(c)}\n`)
    t = await start(store, { cwd: dir, specs: [{ path: "*.log", startAt: "beginning" }] })
    await waitFor("the long failure and the one after it", sameRids(store, [a, b, c]))
    await t.drain()
    expectExactly(store, [a, b, c])
    expect([store.byRid(b)[0]!.line, store.byRid(c)[0]!.line]).toEqual([2, 3])
    expect(store.linesRead).toBe(3)
  })

  it("symlink loops under a ** glob: each folder read once, no file twice, files behind symlinks tailed, each problem said once", async () => {
    const dir = tempDir()
    const logs = path.join(dir, "logs")
    for (const d of ["a", "b", "a/deep"]) fs.mkdirSync(path.join(logs, d), { recursive: true })
    fs.mkdirSync(path.join(dir, "external"))
    const ids = { top: rid(), deep: rid(), ext: rid(), real: rid() }
    fs.writeFileSync(path.join(logs, "top.log"), `${failLine(ids.top)}\n`)
    fs.writeFileSync(path.join(logs, "a/deep/x.log"), `${failLine(ids.deep)}\n`)
    fs.writeFileSync(path.join(dir, "external/e.log"), `${failLine(ids.ext)}\n`)
    fs.writeFileSync(path.join(dir, "real.log"), `${failLine(ids.real)}\n`)
    // the loops (two folders each with a symlink to ..), and more paths to the same folders
    fs.symlinkSync("..", path.join(logs, "a/up"))
    fs.symlinkSync("..", path.join(logs, "b/up"))
    fs.symlinkSync(".", path.join(logs, "b/self"))
    fs.symlinkSync("../../..", path.join(logs, "a/deep/root")) // above the base: dir/, holding real.log
    fs.symlinkSync("../external", path.join(logs, "ext")) // a folder elsewhere
    fs.symlinkSync("../real.log", path.join(logs, "link.log")) // a file elsewhere
    fs.symlinkSync("loop", path.join(logs, "loop")) // ELOOP
    fs.symlinkSync("eloop.log", path.join(logs, "eloop.log")) // ELOOP, matches the glob
    const store = new MemoryStore()
    const logsSeen: Array<LogEntry> = []
    const t = await start(store, {
      cwd: dir,
      specs: [{ path: "logs/**/*.log", startAt: "beginning" }],
      tuning: { rescanIntervalMs: 100 },
      logs: logsSeen
    })
    await waitFor("the failures of every file", sameRids(store, Object.values(ids)))
    // tracked by identity: real.log (as logs/link.log and logs/a/deep/root/real.log) once
    expect(t.handle.stats()).toHaveLength(4)
    // appends through every way in are read, once
    const more = [rid(), rid(), rid()]
    appendLines(path.join(dir, "real.log"), [failLine(more[0]!)])
    appendLines(path.join(logs, "b/up/a/up/top.log"), [failLine(more[1]!)])
    appendLines(path.join(dir, "external/e.log"), [failLine(more[2]!)])
    await waitFor("the appended failures", sameRids(store, [...Object.values(ids), ...more]))
    // new files only a sweep can find (chokidar follows no symlink): several sweeps go by
    const found: Array<string> = []
    for (let i = 0; i < 3; i++) {
      const id = rid()
      found.push(id)
      fs.writeFileSync(path.join(dir, `external/new${i}.log`), `${failLine(id)}\n`)
      await waitFor(`new file ${i} behind the folder symlink`, sameRids(store, [...Object.values(ids), ...more, ...found]))
    }
    await t.drain()
    expectExactly(store, [...Object.values(ids), ...more, ...found])
    expect(store.byRid(found[0]!)[0]!.source).toBe(`file:${path.join(logs, "ext/new0.log")}`)
    expect(t.handle.stats()).toHaveLength(7)
    const warnings = logsSeen.filter((l) => l.level === "WARN").map((l) => l.message)
    expect(warnings.filter((w) => w.includes(`${path.join(logs, "loop")}:`))).toHaveLength(1)
    expect(warnings.filter((w) => w.includes(path.join(logs, "eloop.log")))).toHaveLength(1)
    expect(warnings).toHaveLength(2)
  })

  it("a base folder that is a symlink is still watched: a new file in it is found without waiting for a sweep", async () => {
    const dir = tempDir()
    fs.mkdirSync(path.join(dir, "data/app"), { recursive: true })
    fs.symlinkSync("data/app", path.join(dir, "logs"))
    const store = new MemoryStore()
    // no sweep within the test: only the watcher can find the new file
    await start(store, { cwd: dir, specs: [{ path: "logs/**/*.log", startAt: "beginning" }], tuning: { rescanIntervalMs: 600_000 } })
    const a = rid()
    fs.mkdirSync(path.join(dir, "data/app/svc"))
    appendLines(path.join(dir, "data/app/svc/new.log"), [failLine(a)])
    await waitFor("the new file's failure", sameRids(store, [a]))
    expect(store.byRid(a)[0]!.source).toBe(`file:${path.join(dir, "logs/svc/new.log")}`)
  })

  it("a slow sink slows reading down (batches of maxBatchLines) without starving other files", async () => {
    const dir = tempDir()
    const big = path.join(dir, "big.log")
    const small = path.join(dir, "small.log")
    const lines: Array<string> = []
    for (let i = 0; i < 40_000; i++) lines.push(infoLine(`x${i}`))
    fs.writeFileSync(big, lines.map((l) => `${l}\n`).join(""))
    const store = new MemoryStore()
    const sizes: Array<number> = []
    const sink = (batch: IngestBatch) => {
      sizes.push(batch.linesRead)
      return Effect.zipRight(Effect.sleep("20 millis"), store.sink(batch))
    }
    const scope = Effect.runSync(Scope.make())
    await Effect.runPromise(
      runTailer({
        scanWorkerFile: currentScanWorkerFile(),
        specs: [{ path: "*.log", service: "svc", startAt: "beginning" }],
        cwd: dir,
        sink,
        loadCheckpoint: () => null,
        allCheckpoints: () => [],
        firstStart: true,
        maxBatchLines: 200
      }).pipe(Scope.extend(scope))
    )
    try {
      const id = rid()
      appendLines(small, [failLine(id)])
      await waitFor("the small file's line while the big one is read", () => store.rids().includes(id))
      expect(store.linesRead).toBeLessThan(40_000)
      await waitFor("the big file read", () => store.linesRead >= 40_001, 30_000)
      expect(Math.max(...sizes)).toBeLessThanOrEqual(200)
      expect(store.byRid(id)[0]!.service).toBe("svc")
    } finally {
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
  })
})

describe("replayFile", () => {
  it("reads a whole file once, last partial line included, with progress", async () => {
    const dir = tempDir()
    const file = path.join(dir, "old.log")
    const ids = [rid(), rid(), rid()]
    fs.writeFileSync(file, `${infoLine(rid())}\n${curlDump(ids[0]!).join("\n")}\n${failLine(ids[1]!)}\n${failLine(ids[2]!)}`)
    const store = new MemoryStore()
    const progress: Array<[number, number]> = []
    const summary = await Effect.runPromise(
      replayFile(file, store.sink, { maxBatchLines: 3, onProgress: (done, total) => progress.push([done, total]) })
    )
    const size = fs.statSync(file).size
    expect(summary).toEqual({ lines: 8, failures: 3, ignored: 1, bytes: size })
    expectExactly(store, ids)
    expect(store.checkpoints.size).toBe(0)
    expect(progress.at(-1)).toEqual([size, size])
    expect(progress.length).toBeGreaterThan(1)
    // replaying what the tailer read stores nothing twice: a timestamped record gets the same id
    // (dev:ino + offset + bytes, at its own time)
    const tailed = new MemoryStore()
    const t = await start(tailed, { cwd: dir, specs: [{ path: "*.log", startAt: "beginning" }] })
    await t.drain()
    expect(tailed.rids()).toEqual(ids.slice(0, 2).sort())
    expect(tailed.byRid(ids[1]!)[0]!.id).toBe(store.byRid(ids[1]!)[0]!.id)
  })

  it("fails on a missing file", async () => {
    const exit = await Effect.runPromiseExit(replayFile("/nonexistent/x.log", () => Effect.void))
    expect(exit._tag).toBe("Failure")
  })
})
