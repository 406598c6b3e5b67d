/**
 * The tailer where file permissions bite (issue 17): a folder or a file it may not read does not
 * stop the start-up scan, is said once, and is read once it becomes readable — a file without
 * waiting to be written to. Root ignores `chmod 000` and CI runs as root, so the tailer runs in a
 * child process as `nobody` there (nonroot.ts), from the built sources with their scan worker.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { failLine, rid, waitFor } from "./harness.js"
import { isRoot, JsonLines, sharedTempDir, spawnUnprivileged } from "./nonroot.js"

type Out =
  | { readonly t: "ready" }
  | { readonly t: "drained" }
  | { readonly t: "log"; readonly level: string; readonly message: string }
  | { readonly t: "batch"; readonly events: ReadonlyArray<{ readonly sample: string; readonly line: number; readonly source: string }>; readonly linesRead: number }

const children: Array<() => void> = []
afterEach(() => {
  for (const stop of children.splice(0)) stop()
})

describe(`the tailer, as ${isRoot ? "nobody" : "this user"}`, () => {
  it("an unreadable folder does not stop the start-up scan; it and an unreadable file are read once readable, said once", async () => {
    const dir = sharedTempDir()
    const logs = path.join(dir, "logs")
    const locked = path.join(logs, "locked")
    const secret = path.join(logs, "secret.log")
    fs.mkdirSync(path.join(logs, "sub"), { recursive: true })
    fs.mkdirSync(locked)
    // files before and after the locked folder in any listing order, and one level down
    const [a, b, c, d, e] = [rid(), rid(), rid(), rid(), rid()]
    fs.writeFileSync(path.join(logs, "a-ok.log"), `${failLine(a)}\n`)
    fs.writeFileSync(path.join(logs, "z-ok.log"), `${failLine(b)}\n`)
    fs.writeFileSync(path.join(logs, "sub/ok.log"), `${failLine(c)}\n`)
    fs.writeFileSync(path.join(locked, "in.log"), `x\n${failLine(d)}\n`)
    fs.writeFileSync(secret, `${failLine(e)}\n`)
    fs.chmodSync(locked, 0o000)
    fs.chmodSync(secret, 0o000)
    const secretMtime = fs.statSync(secret).mtimeMs
    const unlock = (): void => {
      fs.chmodSync(locked, 0o755)
      fs.chmodSync(secret, 0o644)
    }

    const child = spawnUnprivileged(["tailer", JSON.stringify({ cwd: dir, specs: [{ path: "logs/**/*.log", service: null, startAt: "beginning" }] })])
    const out = new JsonLines<Out>(child)
    children.push(() => {
      unlock()
      child.kill()
    })
    const stored = (): Array<{ sample: string; line: number; source: string }> => out.items.flatMap((o) => (o.t === "batch" ? o.events : []))
    const storedRid = (id: string) => stored().filter((ev) => ev.sample.includes(id))
    const has = (...ids: Array<string>) => () => ids.every((id) => storedRid(id).length > 0)
    const warnings = (): Array<string> => out.items.flatMap((o) => (o.t === "log" && o.level === "WARN" ? [o.message] : []))
    const drained = async (): Promise<void> => {
      const n = out.items.filter((o) => o.t === "drained").length
      child.stdin!.write("drain\n")
      await waitFor(`a drain (stderr: ${out.stderr})`, () => out.items.filter((o) => o.t === "drained").length > n, 30_000)
    }

    await waitFor(`the tailer to start (stderr: ${out.stderr})`, () => out.items.some((o) => o.t === "ready"), 30_000)
    // what it can read, it reads at start-up, without a write
    await waitFor("the readable files' failures", has(a, b, c), 30_000).catch((err: Error) => {
      throw new Error(`${err.message}; the child said ${JSON.stringify(out.items).slice(-3000)} ${out.stderr}`)
    })
    // sweeps go on (a drain is one): the locked folder and the file it may not open are said once
    for (let i = 0; i < 3; i++) await drained()
    expect(storedRid(d)).toEqual([])
    expect(storedRid(e)).toEqual([])
    expect(warnings().filter((w) => w.includes(locked) && w.includes("EACCES"))).toHaveLength(1)
    expect(warnings().filter((w) => w.includes(secret) && w.includes("EACCES"))).toHaveLength(1)

    // made readable: the next periodic sweep finds them, the file is read though nobody wrote to it
    unlock()
    await waitFor("the failures of the folder and the file made readable", has(d, e), 30_000)
    expect(fs.statSync(secret).mtimeMs).toBe(secretMtime)
    await drained()
    for (const id of [a, b, c, d, e]) expect(storedRid(id), id).toHaveLength(1)
    expect(storedRid(d)[0]).toMatchObject({ line: 2, source: `file:${path.join(locked, "in.log")}` })
    expect(storedRid(e)[0]).toMatchObject({ line: 1, source: `file:${secret}` })
    expect(warnings().filter((w) => w.includes("EACCES"))).toHaveLength(2)
  })
})
