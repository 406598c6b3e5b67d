/**
 * The built daemon tailing a hostile tree (issue 17): folders holding symlinks back up the tree
 * under the `**` glob, a symlink that loops onto itself, a folder symlink out of the tree, and a
 * 3 MiB line. It becomes ready, /healthz stays quick, memory and its own log stay bounded,
 * every file is read once and line numbers are the ones `faultline classify` gives.
 * (Unreadable folders and files: test/tail/unreadable.test.ts runs the tailer as `nobody`.)
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { type Daemon, runCli, startDaemon, tempDir, waitFor } from "../support/daemon.js"

const daemons: Array<Daemon> = []
afterEach(async () => {
  for (const d of daemons.splice(0)) if (d.proc.exitCode === null && d.proc.signalCode === null) await d.kill9()
})

/** One failed call on one line, found again by its request id. */
const failure = (id: string): string =>
  JSON.stringify({
    level: 50,
    time: Date.now() - 3_600_000,
    msg: "upstream call failed",
    requestId: `req-hfs-${id}`,
    status: 503,
    body: { code: 50508, message: "System is too busy now. Please try again later.", data: null },
    model: "Qwen/Qwen2.5-7B-Instruct"
  })

interface Stored {
  readonly requestId: string | null
  readonly line: number | null
  readonly source: string
}

const storedEvents = async (d: Daemon): Promise<Array<Stored>> => {
  const out: Array<Stored> = []
  let cursor: string | null = null
  do {
    const page: { events: Array<Stored>; nextCursor: string | null } = await d.json(
      `/v1/events?since=3650d&limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`
    )
    out.push(...page.events)
    cursor = page.nextCursor
  } while (cursor !== null)
  return out
}

const byId = (events: ReadonlyArray<Stored>, id: string): Array<Stored> => events.filter((e) => e.requestId === `req-hfs-${id}`)

const waitStored = (d: Daemon, ids: ReadonlyArray<string>, what: string): Promise<Array<Stored>> =>
  waitFor(
    what,
    async () => {
      const events = await storedEvents(d)
      return ids.every((id) => byId(events, id).length > 0) ? events : null
    },
    30_000,
    100
  )

const rssMb = (d: Daemon): number => {
  const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(fs.readFileSync(`/proc/${d.proc.pid}/status`, "utf8"))
  if (m === null) throw new Error("no VmRSS")
  return Number(m[1]) / 1024
}

describe("the daemon tailing a hostile tree", () => {
  it("symlink loops under the ** glob and a 3 MiB line: ready, /healthz quick, every file read once, memory and log bounded", async () => {
    const dir = tempDir()
    const logs = path.join(dir, "logs")
    fs.mkdirSync(path.join(logs, "a"), { recursive: true })
    fs.mkdirSync(path.join(logs, "b"))
    fs.mkdirSync(path.join(dir, "external"))
    // the issue's tree: two folders each with a symlink to ..
    fs.symlinkSync("..", path.join(logs, "a/up"))
    fs.symlinkSync("..", path.join(logs, "b/up"))
    fs.symlinkSync("loop", path.join(logs, "loop")) // ELOOP
    fs.symlinkSync("../external", path.join(logs, "ext")) // found by the sweeps only (chokidar follows no symlink)
    const [ok, inA, long] = ["ok", "in-a", "long"]
    fs.writeFileSync(path.join(logs, "ok.log"), `${failure(ok)}\n`)
    fs.writeFileSync(path.join(logs, "a/in.log"), `${failure(inA)}\n`)
    const longFile = path.join(logs, "long.log")
    fs.writeFileSync(longFile, `${"x".repeat(3 * 1024 * 1024)}\n${failure(long)}\n`)

    const t0 = Date.now()
    const d = await startDaemon({ dir }) // waits for /readyz (never came before the fix)
    daemons.push(d)
    const readyMs = Date.now() - t0
    let events = await waitStored(d, [ok, inA, long], "the failures of the files present at start-up")
    // the 3 MiB line is line 1: the failure after it is line 2, as `faultline classify` says
    expect(byId(events, long)[0]).toMatchObject({ line: 2, source: `file:${longFile}` })
    const classified = await runCli(["classify", "--format", "jsonl", longFile])
    expect(classified.code).toBe(0)
    expect(JSON.parse(classified.stdout.trim().split("\n")[0]!)).toMatchObject({ requestId: `req-hfs-${long}`, line: 2 })

    // several sweeps go by: each finds a file only a sweep can find
    const found: Array<string> = []
    for (let i = 0; i < 3; i++) {
      const id = `swept-${i}`
      found.push(id)
      fs.writeFileSync(path.join(dir, `external/new${i}.log`), `${failure(id)}\n`)
      events = await waitStored(d, [...found], `file ${i} behind the folder symlink`)
    }
    fs.appendFileSync(path.join(logs, "b/up/a/up/ok.log"), `${failure("appended")}\n`)
    events = await waitStored(d, ["appended"], "a line appended through the loops")

    // each failure once, however many paths lead to its file
    for (const id of [ok, inA, long, ...found, "appended"]) expect(byId(events, id), id).toHaveLength(1)
    expect(byId(events, "swept-0")[0]!.source).toBe(`file:${path.join(logs, "ext/new0.log")}`)
    expect(byId(events, "appended")[0]).toMatchObject({ line: 2, source: `file:${path.join(logs, "ok.log")}` })

    for (let i = 0; i < 3; i++) {
      const h0 = Date.now()
      const r = await d.fetch("/healthz")
      expect(r.status).toBe(200)
      expect(Date.now() - h0, "/healthz").toBeLessThan(3000)
    }
    const rss = rssMb(d)
    expect(rss).toBeLessThan(300)
    // its own log stays small: the ELOOP said once, not once per path or per sweep
    const warnings = d.logs().filter((l) => Number(l.level) >= 40)
    const loopWarnings = warnings.filter((l) => JSON.stringify(l).includes(path.join(logs, "loop")))
    expect(loopWarnings, JSON.stringify(loopWarnings)).toHaveLength(1)
    expect(warnings.length, JSON.stringify(warnings.slice(0, 5))).toBeLessThanOrEqual(3)
    expect(d.stdout().length).toBeLessThan(1024 * 1024)
    console.log(`hostile tree: ready in ${readyMs} ms, RSS ${rss.toFixed(0)} MB, ${warnings.length} warnings, log ${d.stdout().length} bytes`)
  })
})
