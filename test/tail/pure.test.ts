import { describe, expect, it } from "vitest"
import { compileGlob } from "../../src/sources/tail/glob.js"
import { type Line, LineSplitter } from "../../src/sources/tail/lineSplitter.js"

describe("compileGlob", () => {
  it.each([
    ["./logs/**/*.log", "/srv/app", "/srv/app/logs", undefined, ["/srv/app/logs/a.log", "/srv/app/logs/x/y/b.log"], ["/srv/app/logs/a.log.1", "/srv/app/other/a.log", "/srv/app/logs/a.txt"]],
    ["logs/*.log", "/srv/app", "/srv/app/logs", 0, ["/srv/app/logs/a.log", "/srv/app/logs/.log"], ["/srv/app/logs/x/a.log", "/srv/app/logs/a.log.1"]],
    ["/var/log/app-?.{log,txt}", "/x", "/var/log", 0, ["/var/log/app-1.log", "/var/log/app-b.txt"], ["/var/log/app-12.log", "/var/log/app-1.json"]],
    ["/var/log/*/current", "/x", "/var/log", 1, ["/var/log/svc/current"], ["/var/log/current", "/var/log/a/b/current"]],
    ["/var/log/app[0-9].log", "/x", "/var/log", 0, ["/var/log/app3.log"], ["/var/log/appx.log"]],
    ["/var/log/app.log", "/x", "/var/log", 0, ["/var/log/app.log"], ["/var/log/app.log.1", "/var/log/appxlog"]]
  ])("%s (cwd %s)", (pattern, cwd, base, depth, yes, no) => {
    const g = compileGlob(pattern, cwd)
    expect(g.base).toBe(base)
    expect(g.depth).toBe(depth)
    for (const p of yes) expect(g.matches(p), p).toBe(true)
    for (const p of no) expect(g.matches(p), p).toBe(false)
  })
})

const splitAll = (chunks: ReadonlyArray<Buffer>, opts?: { chunkSize?: number; maxLineBytes?: number }): { lines: Array<Line>; rest: Line | null } => {
  const s = new LineSplitter(0, 1, opts?.chunkSize ?? 8, opts?.maxLineBytes ?? 1024)
  const lines: Array<Line> = []
  for (const chunk of chunks) {
    let off = 0
    while (off < chunk.length) {
      const { buffer, at, length } = s.prepare()
      const n = Math.min(length, chunk.length - off)
      chunk.copy(buffer, at, off, off + n)
      s.commit(n)
      off += n
      for (let l = s.next(); l !== null; l = s.next()) lines.push(l)
    }
  }
  return { lines, rest: s.rest() }
}

describe("LineSplitter", () => {
  it("splits on \\n, strips \\r, tracks offsets and numbers across chunk boundaries", () => {
    const text = "alpha\r\nbeta\n\ngamma-long-line-crossing-chunks\ndelta"
    const { lines, rest } = splitAll([Buffer.from(text.slice(0, 5)), Buffer.from(text.slice(5, 13)), Buffer.from(text.slice(13))])
    expect(lines.map((l) => l.text)).toEqual(["alpha", "beta", "", "gamma-long-line-crossing-chunks"])
    expect(lines.map((l) => l.lineNo)).toEqual([1, 2, 3, 4])
    expect(lines.map((l) => [l.start, l.end])).toEqual([
      [0, 7],
      [7, 12],
      [12, 13],
      [13, 45]
    ])
    expect(rest).toMatchObject({ text: "delta", lineNo: 5, start: 45, end: 50 })
  })

  it("decodes UTF-8 per line and survives invalid bytes", () => {
    const buf = Buffer.concat([Buffer.from("限流 TPM\n"), Buffer.from([0xff, 0xfe, 0x41, 0x0a]), Buffer.from("é\n")])
    const { lines } = splitAll([buf], { chunkSize: 3 })
    expect(lines.map((l) => l.text)).toEqual(["限流 TPM", "\ufffd\ufffdA", "é"])
    expect(lines[2]!.end).toBe(buf.length)
  })

  it("cuts a line longer than maxLineBytes, and counts it as one line", () => {
    const { lines, rest } = splitAll([Buffer.from(`${"x".repeat(25)}\nok\n`)], { maxLineBytes: 10 })
    expect(lines.map((l) => [l.text, l.lineNo, l.start, l.end])).toEqual([
      ["x".repeat(10), 1, 0, 26],
      ["ok", 2, 26, 29]
    ])
    expect(rest).toBeNull()
  })

  it("an over-long line is one line whatever the reads: same text, number and extent, memory bounded", () => {
    const data = Buffer.from(`a\n${"€".repeat(40)}yz\r\nb\n${"q".repeat(1000)}\n${"w".repeat(10)}\nc\n`)
    const want = (chunkSize: number) => {
      const { lines, rest } = splitAll([data], { chunkSize, maxLineBytes: 10 })
      expect(rest).toBeNull()
      return lines.map((l) => [l.text, l.lineNo, l.start, l.end])
    }
    const one = want(4096)
    expect(one.map((l) => l[1])).toEqual([1, 2, 3, 4, 5, 6])
    expect(one.map((l) => l[0])).toEqual(["a", `€€€${"\ufffd"}`, "b", "q".repeat(10), "w".repeat(10), "c"])
    expect(one[one.length - 1]![3]).toBe(data.length)
    for (const chunk of [1, 3, 7, 16]) expect(want(chunk), `chunk ${chunk}`).toEqual(one)
  })

  it("while an over-long line has no newline yet, the position stays at its start and no line is counted", () => {
    const s = new LineSplitter(0, 1, 64, 100)
    const feed = (text: string): Array<Line> => {
      const out: Array<Line> = []
      let off = 0
      const b = Buffer.from(text)
      while (off < b.length) {
        const { buffer, at, length } = s.prepare()
        const n = Math.min(length, b.length - off)
        b.copy(buffer, at, off, off + n)
        s.commit(n)
        off += n
        for (let l = s.next(); l !== null; l = s.next()) out.push(l)
      }
      return out
    }
    expect(feed("ok\n").map((l) => l.lineNo)).toEqual([1])
    expect(feed("z".repeat(5000))).toEqual([])
    expect(s.skipping).toBe(true)
    expect([s.offset, s.line, s.readOffset]).toEqual([3, 2, 5003])
    // bounded: the skipped bytes are not kept
    expect(s.buffered).toBeLessThan(200)
    const [long, next] = feed("z\nnext\n")
    expect(long).toMatchObject({ text: "z".repeat(100), lineNo: 2, start: 3, end: 5005 })
    expect(next).toMatchObject({ text: "next", lineNo: 3, start: 5005, end: 5010 })
    expect([s.offset, s.line, s.skipping]).toEqual([5010, 4, false])
    // the writer is gone in the middle of one: it is still one line
    feed("y".repeat(300))
    expect(s.rest()).toMatchObject({ text: "y".repeat(100), lineNo: 4, start: 5010, end: 5310 })
    expect([s.offset, s.line]).toEqual([5310, 5])
    // reset forgets a line being skipped
    feed("v".repeat(300))
    s.reset(5310, 5)
    expect(s.skipping).toBe(false)
    expect(feed("w\n")).toMatchObject([{ text: "w", lineNo: 5, start: 5310 }])
  })

  it("resumes at an offset with a line number", () => {
    const s = new LineSplitter(100, 7, 16)
    const { buffer, at } = s.prepare()
    const n = buffer.write("a\nb\n", at)
    s.commit(n)
    expect(s.next()).toMatchObject({ text: "a", lineNo: 7, start: 100, end: 102 })
    expect(s.next()).toMatchObject({ text: "b", lineNo: 8, start: 102, end: 104 })
    expect(s.offset).toBe(104)
    expect(s.line).toBe(9)
    expect(s.readOffset).toBe(104)
  })
})

describe("LineSplitter, a read that returns nothing", () => {
  it("does not hand out stale bytes after prepare() without commit()", () => {
    const s = new LineSplitter(0, 1, 16)
    let r = s.prepare()
    s.commit(r.buffer.write("one\ntwo\nthr", r.at))
    expect(s.next()?.text).toBe("one")
    expect(s.next()?.text).toBe("two")
    expect(s.next()).toBeNull()
    s.prepare() // compacts "thr" to the front; the read then returns 0 bytes
    expect(s.next()).toBeNull()
    r = s.prepare()
    s.commit(r.buffer.write("ee\n", r.at))
    expect(s.next()).toMatchObject({ text: "three", lineNo: 3, start: 8, end: 14 })
  })
})

describe("LineSplitter buffer sizing", () => {
  it("grows for a backlog, shrinks when caught up, and loses no byte on the way", () => {
    const s = new LineSplitter(0, 1)
    const expected: Array<string> = []
    let data = ""
    let seed = 7
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31
      return seed % n
    }
    for (let i = 0; i < 3000; i++) {
      const line = `${i}:${"abcdefghij".repeat(rand(40))}${i === 1500 ? "z".repeat(200_000) : ""}`
      expected.push(line)
      data += `${line}\n`
    }
    const bytes = Buffer.from(data)
    const got: Array<string> = []
    let off = 0
    let round = 0
    while (off < bytes.length) {
      const { buffer, at, length } = s.prepare()
      // a backlog (full reads), then small appends, then a backlog again
      const n = Math.min(length, bytes.length - off, round++ % 200 < 100 ? length : 1 + rand(300))
      bytes.copy(buffer, at, off, off + n)
      s.commit(n)
      off += n
      for (let l = s.next(); l !== null; l = s.next()) got.push(l.text)
    }
    expect(got.length).toBe(expected.length)
    expect(got).toEqual(expected)
    expect(s.offset).toBe(bytes.length)
  })
})
