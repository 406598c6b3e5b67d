/**
 * Finding files under a glob's base folder in hostile trees (issue 17): symlink loops, folders
 * that cannot be read, trees too deep or too wide. `discover` never fails and never loops.
 */
import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { discover, MAX_DEPTH, type Discovery } from "../../src/sources/tail/discover.js"
import { tempDir, waitFor } from "./harness.js"
import { isRoot, JsonLines, sharedTempDir, spawnUnprivileged } from "./nonroot.js"

const run = (base: string, limits?: Parameters<typeof discover>[1]): Promise<Discovery> => Effect.runPromise(discover(base, limits))

const rel = (base: string, ps: ReadonlyArray<string>): Array<string> => ps.map((p) => path.relative(base, p)).sort()

describe("discover", () => {
  it("visits each folder once however many symlinks lead to it: loops end, every file is found once", async () => {
    const dir = tempDir()
    const logs = path.join(dir, "logs")
    for (const d of ["a", "b", "a/deep"]) fs.mkdirSync(path.join(logs, d), { recursive: true })
    fs.mkdirSync(path.join(dir, "external"))
    fs.writeFileSync(path.join(logs, "top.log"), "")
    fs.writeFileSync(path.join(logs, "a/deep/x.log"), "")
    fs.writeFileSync(path.join(dir, "external/e.log"), "")
    fs.writeFileSync(path.join(dir, "real.log"), "")
    // the loops of the issue: two folders each holding a symlink to their parent
    fs.symlinkSync("..", path.join(logs, "a/up"))
    fs.symlinkSync("..", path.join(logs, "b/up"))
    // and more paths to the same folders: to itself, to a sibling, above the base
    fs.symlinkSync(".", path.join(logs, "b/self"))
    fs.symlinkSync("../a", path.join(logs, "b/sibling"))
    fs.symlinkSync("../../..", path.join(logs, "a/deep/root"))
    // a folder elsewhere is followed (once); a file behind a symlink is a file
    fs.symlinkSync("../external", path.join(logs, "ext"))
    fs.symlinkSync("../real.log", path.join(logs, "link.log"))
    const t0 = Date.now()
    const found = await run(logs)
    expect(Date.now() - t0).toBeLessThan(10_000)
    // breadth first: each folder under its shortest path; `root` leads above logs/ to dir/,
    // whose external/ was already visited as logs/ext and whose real.log is a new path
    expect(rel(logs, found.files)).toEqual(["a/deep/root/real.log", "a/deep/x.log", "ext/e.log", "link.log", "top.log"])
    expect(found.problems).toEqual([])
    expect(found.entriesLimited).toBe(false)
    expect(found.depthLimited).toBe(false)
    // the same answer on the next sweep
    expect(await run(logs)).toEqual(found)
  })

  it("skips what it cannot read (ELOOP, a vanished folder) and walks on; says what it skipped", async () => {
    const dir = tempDir()
    fs.mkdirSync(path.join(dir, "z"))
    fs.writeFileSync(path.join(dir, "a.log"), "")
    fs.writeFileSync(path.join(dir, "z/b.log"), "")
    fs.symlinkSync("loop1", path.join(dir, "loop2"))
    fs.symlinkSync("loop2", path.join(dir, "loop1"))
    fs.symlinkSync("self.log", path.join(dir, "self.log"))
    fs.symlinkSync("nowhere", path.join(dir, "dangling.log")) // silent: may appear later
    execFileSync("mkfifo", [path.join(dir, "fifo.log")]) // neither read nor opened
    const found = await run(dir)
    expect(rel(dir, found.files)).toEqual(["a.log", "z/b.log"])
    expect(found.problems.map((p) => [p.op, path.relative(dir, p.path), p.code]).sort()).toEqual([
      ["stat", "loop1", "ELOOP"],
      ["stat", "loop2", "ELOOP"],
      ["stat", "self.log", "ELOOP"]
    ])
    // a base that is not there, or not a folder: nothing, no problem
    expect(await run(path.join(dir, "missing"))).toMatchObject({ files: [], problems: [] })
    expect(await run(path.join(dir, "a.log"))).toMatchObject({ files: [], problems: [] })
  })

  it(`stops at ${MAX_DEPTH} folders deep (and says so), or at the glob's own depth (silently)`, async () => {
    const dir = tempDir()
    let p = dir
    for (let i = 0; i <= MAX_DEPTH + 3; i++) {
      fs.writeFileSync(path.join(p, `f${i}.log`), "")
      p = path.join(p, `d${i}`)
      fs.mkdirSync(p)
    }
    const all = await run(dir)
    expect(all.files).toHaveLength(MAX_DEPTH + 1) // f0 (in dir) .. f32 (32 folders deep)
    expect(all.depthLimited).toBe(true)
    const two = await run(dir, { maxDepth: 2 })
    expect(rel(dir, two.files)).toEqual(["d0/d1/f2.log", "d0/f1.log", "f0.log"])
    expect(two.depthLimited).toBe(false)
  })

  it("stops after maxEntries entries per walk, and says so", async () => {
    const dir = tempDir()
    for (let i = 0; i < 50; i++) fs.writeFileSync(path.join(dir, `f${i}.log`), "")
    const found = await run(dir, { maxEntries: 20 })
    expect(found.files).toHaveLength(20)
    expect(found.entriesLimited).toBe(true)
    expect((await run(dir, { maxEntries: 50 })).entriesLimited).toBe(false)
  })

  // CI runs as root, which `chmod 000` does not stop: the walk runs as `nobody` there
  it(`skips a folder it may not read (EACCES, as ${isRoot ? "nobody" : "this user"}) and finds it once it is readable`, async () => {
    const dir = sharedTempDir()
    fs.mkdirSync(path.join(dir, "locked"))
    fs.mkdirSync(path.join(dir, "later"))
    fs.writeFileSync(path.join(dir, "locked/in.log"), "")
    fs.writeFileSync(path.join(dir, "ok.log"), "")
    fs.writeFileSync(path.join(dir, "zz.log"), "")
    fs.chmodSync(path.join(dir, "locked"), 0o000)
    // the child walks on every line it reads from stdin
    const child = spawnUnprivileged(["discover", dir])
    const out = new JsonLines<Discovery>(child)
    try {
      const walk = async (): Promise<Discovery> => {
        const n = out.items.length
        child.stdin!.write("walk\n")
        await waitFor(`a walk by the unprivileged child (stderr: ${out.stderr})`, () => out.items.length > n, 30_000)
        return out.items[n]!
      }
      const first = await walk()
      expect(rel(dir, first.files)).toEqual(["ok.log", "zz.log"])
      expect(first.problems).toEqual([{ op: "readdir", path: path.join(dir, "locked"), code: "EACCES" }])
      fs.chmodSync(path.join(dir, "locked"), 0o755)
      const second = await walk()
      expect(rel(dir, second.files)).toEqual(["locked/in.log", "ok.log", "zz.log"])
      expect(second.problems).toEqual([])
    } finally {
      fs.chmodSync(path.join(dir, "locked"), 0o755)
      child.stdin!.end()
      child.kill()
    }
  })
})
