/**
 * `faultline classify`, `replay`, `report` and `diagnose` as a user runs them (CONTRACT section 2):
 * the built CLI, files in a temp folder, stdin, a config file pointing at a temp database.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Daemon, repoRoot, runCli, startDaemon, tempDir } from "../support/daemon.js"

// ---------------------------------------------------------------------------------------------
// local helpers

const jsonLines = (stdout: string): any[] =>
  stdout
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l))

const stripAnsi = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, "")

const oneLine = (stderr: string) => expect(stderr.trimEnd().split("\n"), stderr).toHaveLength(1)

const API_KEY_IN_LOG = "sk-proj-4Rt7Yu9Io0Pa2Sd4Fg6Hj8Kl"
const CURL_KEY = "sk-9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d"

/** The logs below are written as of 2026-11-21 and moved to yesterday when the suite runs, so
 * windows (`since=7d`) and the daemon's 30-day retention hold whatever the date. */
const DAY = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10)

/**
 * A realistic application log: ordinary lines, a `curl -i` dump of a 400, a Python traceback
 * ending in a 429, a pino JSON line of a 503 and a Python SDK 401 carrying an API key.
 * Failed calls start on lines 3, 10, 18 and 19.
 */
const APP_LOG = [
  /*  1 */ "2026-11-21T10:00:00.000Z INFO app - starting worker pool size=4",
  /*  2 */ `$ curl -i https://api.siliconflow.cn/v1/chat/completions -H 'authorization: Bearer ${CURL_KEY}' -H 'content-type: application/json' -d '{"model":"Qwen/QwQ-32B","messages":[{"role":"user","content":"hello"}],"stream":false}'`,
  /*  3 */ "HTTP/1.1 400 Bad Request",
  /*  4 */ "Date: Sat, 21 Nov 2026 10:50:00 GMT",
  /*  5 */ "Content-Type: application/json; charset=utf-8",
  /*  6 */ "Content-Length: 87",
  /*  7 */ "",
  /*  8 */ '{"code":20012,"message":"Model does not exist. Please check it carefully.","data":null}',
  /*  9 */ '2026-11-21 10:35:00,100 - INFO - httpx - HTTP Request: POST https://api.siliconflow.cn/v1/chat/completions "HTTP/1.1 200 OK"',
  /* 10 */ "2026-11-21 10:35:01,201 - ERROR - app.agent - LLM call failed",
  /* 11 */ "Traceback (most recent call last):",
  /* 12 */ '  File "/srv/app/agent.py", line 142, in run',
  /* 13 */ "    response = client.chat.completions.create(model=model, messages=messages)",
  /* 14 */ '  File "/usr/local/lib/python3.11/site-packages/openai/_base_client.py", line 1059, in _request',
  /* 15 */ "    raise self._make_status_error_from_response(err.response) from None",
  /* 16 */ "openai.RateLimitError: Error code: 429 - {'error': {'message': 'Rate limit reached for gpt-4o in organization org-3xAmPlE on tokens per min (TPM): Limit 30000, Used 29850, Requested 1200. Please try again in 2.1s.', 'type': 'tokens', 'param': None, 'code': 'rate_limit_exceeded'}}",
  /* 17 */ "2026-11-21 10:35:02,000 INFO app - request done in 120ms",
  /* 18 */ '{"level":50,"time":1795256402000,"name":"tts-worker","status":503,"body":{"code":50508,"message":"System is too busy now. Please try again later.","data":null},"msg":"speech synthesis failed"}',
  /* 19 */ `2026-11-21 10:35:02,300 - ERROR - app.agent - Error code: 401 - {'error': {'message': 'Incorrect API key provided: ${API_KEY_IN_LOG}. You can find your API key at https://platform.openai.com/account/api-keys.', 'type': 'invalid_request_error', 'param': None, 'code': 'invalid_api_key'}}`,
  /* 20 */ "2026-11-21 10:35:03,000 INFO app - cache hit ratio 0.93"
].join("\n").replaceAll("2026-11-21", DAY).replaceAll("1795256402000", String(Date.parse(`${DAY}T10:20:02.000Z`))) + "\n"

const APP_LOG_EVENTS = [
  { line: 3, category: "model_not_found", rateLimitKind: null, status: 400, code: 20012, message: "Model does not exist. Please check it carefully." },
  { line: 10, category: "rate_limit", rateLimitKind: "TPM", status: 429, code: "rate_limit_exceeded", model: "gpt-4o", occurredAt: `${DAY}T10:35:01.201Z` },
  { line: 18, category: "overload", rateLimitKind: null, status: 503, code: 50508, occurredAt: `${DAY}T10:20:02.000Z` },
  { line: 19, category: "auth_key", rateLimitKind: null, status: 401, code: "invalid_api_key", occurredAt: `${DAY}T10:35:02.300Z` }
]

const OTHER_LOG = [
  "2026-11-21T11:00:00.000Z INFO billing - nightly export started",
  "2026-11-21T11:00:05.000Z ERROR billing - HTTP 402 {\"code\":30001,\"message\":\"Sorry, your account balance is insufficient\",\"data\":null}",
  "2026-11-21T11:00:06.000Z INFO billing - nightly export finished"
].join("\n").replaceAll("2026-11-21", DAY) + "\n"

interface Sample {
  readonly id: string
  readonly raw: string
  readonly category: ReadonlyArray<string>
  readonly rateLimitKind: ReadonlyArray<string | null>
}
const corpusFile = path.join(repoRoot, "fixtures/corpus/public.jsonl")
const corpus: ReadonlyArray<Sample> = fs
  .readFileSync(corpusFile, "utf8")
  .split("\n")
  .filter((l) => l.trim() !== "")
  .map((l) => JSON.parse(l) as Sample)

const version = (JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { version: string }).version

// ---------------------------------------------------------------------------------------------

describe("faultline classify (log text)", () => {
  let dir: string
  let appLog: string
  let otherLog: string
  beforeAll(() => {
    dir = tempDir("faultline-classify-")
    appLog = path.join(dir, "app.log")
    otherLog = path.join(dir, "billing.log")
    fs.writeFileSync(appLog, APP_LOG)
    fs.writeFileSync(otherLog, OTHER_LOG)
  })

  it("prints one event per failed call in a file, with file and the 1-based line of its first line", async () => {
    const r = await runCli(["classify", "--format", "jsonl", appLog], { cwd: dir })
    expect(r.stderr).toBe("")
    expect(r.code).toBe(0)
    const events = jsonLines(r.stdout)
    expect(events).toHaveLength(APP_LOG_EVENTS.length)
    events.forEach((e, i) => {
      expect(e).toMatchObject({ ...APP_LOG_EVENTS[i], file: appLog, source: `file:${appLog}` })
      expect(e.id).toMatch(/^evt_/)
      expect(typeof e.action).toBe("string")
    })
    expect(events.map((e) => e.service)).toEqual([null, null, "tts-worker", null])
    // secrets in the records never reach the output
    expect(r.stdout).not.toContain(API_KEY_IN_LOG)
    expect(r.stdout).not.toContain(CURL_KEY)
    expect(events[3].message).toContain("<redacted>")
  })

  it("reads stdin when no FILE is given: file is \"-\", source stdin, same lines", async () => {
    const r = await runCli(["classify", "--format", "jsonl"], { cwd: dir, input: APP_LOG })
    expect(r.code).toBe(0)
    const events = jsonLines(r.stdout)
    expect(events.map((e) => [e.file, e.source, e.line, e.category])).toEqual(APP_LOG_EVENTS.map((x) => ["-", "stdin", x.line, x.category]))
  })

  it("reads several files, numbering lines per file", async () => {
    const r = await runCli(["classify", "--format", "jsonl", appLog, otherLog], { cwd: dir })
    expect(r.code).toBe(0)
    const events = jsonLines(r.stdout)
    expect(events.map((e) => [path.basename(e.file), e.line, e.category])).toEqual([
      ...APP_LOG_EVENTS.map((x) => ["app.log", x.line, x.category]),
      ["billing.log", 2, "quota"]
    ])
    expect(events[4]).toMatchObject({ status: 402, code: 30001, occurredAt: `${DAY}T11:00:05.000Z` })
  })

  it("prints nothing for a file of ordinary lines", async () => {
    const r = await runCli(["classify", "--format", "jsonl", path.join(repoRoot, "fixtures/webhook/ordinary-lines.txt")], { cwd: dir })
    expect(r.code).toBe(0)
    expect(r.stdout).toBe("")
    expect(r.stderr).toBe("")
  })

  it("--format table prints a readable table with line, category, kind, status, model and action", async () => {
    const r = await runCli(["classify", "--format", "table", appLog], { cwd: dir })
    expect(r.code).toBe(0)
    const lines = stripAnsi(r.stdout).split("\n")
    const header = lines[0]!
    for (const col of ["LINE", "CATEGORY", "KIND", "STATUS", "MODEL", "ACTION"]) expect(header).toContain(col)
    expect(header.indexOf("CATEGORY")).toBeLessThan(header.indexOf("KIND"))
    expect(header.indexOf("STATUS")).toBeLessThan(header.indexOf("MODEL"))
    const row = (line: number) => lines.find((l) => new RegExp(`^${line}\\s`).test(l))
    expect(row(3)).toMatch(/^3\s+model_not_found\s+-\s+400\s+-\s+\S/)
    expect(row(10)).toMatch(/^10\s+rate_limit\s+TPM\s+429\s+gpt-4o\s+Slow down/)
    expect(row(18)).toMatch(/^18\s+overload\s+-\s+503\s/)
    expect(row(19)).toMatch(/^19\s+auth_key\s+-\s+401\s/)
    expect(r.stdout).toMatch(/4 failed calls/)
    expect(r.stdout).not.toContain(API_KEY_IN_LOG)
  })
})

// ---------------------------------------------------------------------------------------------

describe("faultline classify --records jsonl", () => {
  it("answers exactly one line per corpus record, in order, each within the sample's accepted category", async () => {
    const r = await runCli(["classify", "--records", "jsonl", "--format", "jsonl", corpusFile])
    expect(r.code).toBe(0)
    expect(r.stderr).toBe("")
    const out = jsonLines(r.stdout)
    expect(out).toHaveLength(corpus.length)
    expect(out.map((o) => o.input)).toEqual(corpus.map((s) => s.id))
    out.forEach((o, i) => {
      const s = corpus[i]!
      if (o.ignored === true) {
        expect(o, s.id).toEqual({ input: s.id, ignored: true, reason: expect.stringMatching(/\S/) })
        return
      }
      expect(s.category, `${s.id}: ${s.raw.slice(0, 120)}`).toContain(o.category)
      expect(s.rateLimitKind, `${s.id} rateLimitKind`).toContain(o.rateLimitKind)
      expect(o.id, s.id).toMatch(/^evt_/)
    })
  })

  it("answers {input, ignored: true, reason} for a record that is not a failed call, from stdin", async () => {
    const input = [
      { id: "ok-1", raw: "2026-11-21T10:00:00.000Z INFO chat-api - completion ok in 812ms (model=Qwen/Qwen2.5-7B-Instruct)" },
      { id: "f-1", raw: "429 Request was rejected due to rate limiting. Details: TPM limit reached." },
      { id: "f-2", raw: "HTTP/1.1 503 Service Unavailable\ncontent-type: application/json\n\n{\"code\":50508,\"message\":\"System is too busy now. Please try again later.\",\"data\":null}" },
      { id: "ok-2", raw: "GET /healthz 200" }
    ].map((r) => JSON.stringify(r)).join("\n") + "\n"
    const r = await runCli(["classify", "--records", "jsonl", "--format", "jsonl"], { input })
    expect(r.code).toBe(0)
    const out = jsonLines(r.stdout)
    expect(out.map((o) => o.input)).toEqual(["ok-1", "f-1", "f-2", "ok-2"])
    expect(out[0]).toEqual({ input: "ok-1", ignored: true, reason: expect.stringMatching(/\S/) })
    expect(out[1]).toMatchObject({ input: "f-1", category: "rate_limit", rateLimitKind: "TPM", status: 429 })
    expect(out[2]).toMatchObject({ input: "f-2", category: "overload", status: 503, code: 50508 })
    expect(out[3]).toEqual({ input: "ok-2", ignored: true, reason: expect.stringMatching(/\S/) })
  })

  it("answers a malformed input line with a reason and still classifies the others", async () => {
    const input = ['{"id":"a","raw":"HTTP 401 {\\"code\\":40100,\\"message\\":\\"Api key is invalid\\",\\"data\\":null}"}', "not json", '{"id":"c"}', '{"id":"d","raw":"429 Too Many Requests"}'].join("\n") + "\n"
    const r = await runCli(["classify", "--records", "jsonl", "--format", "jsonl"], { input })
    expect(r.code, r.stderr).toBe(0)
    const out = jsonLines(r.stdout)
    expect(out.map((o) => o.input)).toEqual(["a", "2", "c", "d"])
    expect(out[0]).toMatchObject({ category: "auth_key", status: 401 })
    expect(out[1]).toMatchObject({ ignored: true, reason: expect.stringMatching(/^not valid JSON/) })
    expect(out[2]).toMatchObject({ ignored: true, reason: expect.stringMatching(/raw/) })
    expect(out[3]).toMatchObject({ category: "rate_limit", status: 429 })
  })
})

// ---------------------------------------------------------------------------------------------

describe("faultline usage errors, --help and --version", () => {
  it.each([
    ["a bad --format", ["classify", "--format", "xml"], /jsonl.*table|table.*jsonl/],
    ["a bad --records", ["classify", "--records", "csv"], /jsonl/],
    ["an unknown subcommand", ["frobnicate"], /serve.*classify|classify.*serve/],
    ["a missing file", ["classify", "--format", "jsonl", "/nonexistent/faultline/app.log"], /^faultline: .*\/nonexistent\/faultline\/app\.log/]
  ] as const)("exits 2 with a message on stderr for %s", async (_what, args, message) => {
    const r = await runCli(args, { input: "" })
    expect(r.code).toBe(2)
    expect(r.stdout).toBe("")
    expect(stripAnsi(r.stderr)).toMatch(message)
    expect(r.stderr).not.toMatch(/^\s+at /m)
    expect(r.stderr.trim().length).toBeLessThan(400)
  })

  it("reports a missing file on one line", async () => {
    const missing = await runCli(["classify", "/nonexistent/faultline/app.log"])
    expect(missing.code).toBe(2)
    oneLine(missing.stderr)
  })

  // CONTRACT section 2: exit 2 with a "message [that] names the flag ... and what is wrong".
  it("names the flag and the bad value for `classify --format xml`", async () => {
    const r = await runCli(["classify", "--format", "xml"], { input: "" })
    expect(r.code).toBe(2)
    expect(r.stderr).toContain("--format")
    expect(r.stderr).toContain("xml")
  })

  it("names the flag and the bad value for `classify --records csv`", async () => {
    const r = await runCli(["classify", "--records", "csv"], { input: "" })
    expect(r.code).toBe(2)
    expect(r.stderr).toContain("--records")
    expect(r.stderr).toContain("csv")
  })

  it("--help lists the commands and exits 0; --version prints the package version and exits 0", async () => {
    const help = await runCli(["--help"])
    expect(help.code).toBe(0)
    const text = stripAnsi(help.stdout)
    for (const cmd of ["serve", "classify", "replay", "report", "diagnose"]) expect(text).toContain(cmd)
    const classifyHelp = await runCli(["classify", "--help"])
    expect(classifyHelp.code).toBe(0)
    expect(stripAnsi(classifyHelp.stdout)).toMatch(/--records/)
    expect(stripAnsi(classifyHelp.stdout)).toMatch(/--format/)
    const v = await runCli(["--version"])
    expect(v.code).toBe(0)
    expect(v.stdout.trim()).toBe(version)
  })
})

// ---------------------------------------------------------------------------------------------

describe("faultline replay, report and diagnose over a temp database", () => {
  let dir: string
  let configPath: string
  let dbPath: string
  let backfill: string
  let daemon: Daemon | undefined
  const t0 = Date.now()
  const at = (agoMs: number) => new Date(t0 - agoMs).toISOString()

  beforeAll(() => {
    dir = tempDir("faultline-replay-")
    dbPath = path.join(dir, "state", "faultline.db")
    configPath = path.join(dir, "faultline.json")
    fs.writeFileSync(configPath, JSON.stringify({ database: { path: dbPath }, tail: [{ path: path.join(dir, "logs/*.log") }] }))
    // every failure carries its own timestamp, a few hours back (inside the default 24h report)
    backfill = path.join(dir, "backfill.log")
    fs.writeFileSync(
      backfill,
      [
        `${at(3 * 3_600_000)} INFO chat-api - completion ok in 812ms model=Qwen/Qwen2.5-7B-Instruct`,
        `${at(3 * 3_600_000 - 1000)} ERROR chat-api - HTTP 429 {"code":50603,"message":"Request was rejected due to rate limiting. Details: TPM limit reached.","data":null} model=Qwen/Qwen2.5-7B-Instruct`,
        JSON.stringify({ level: 50, time: t0 - 2 * 3_600_000, name: "chat-api", status: 500, model: "deepseek-ai/DeepSeek-V3", body: { code: 50500, message: "Internal server error", data: null }, msg: "upstream call failed" }),
        `${at(3_600_000)} INFO chat-api - cache warm`,
        `${at(3_600_000 - 1000)} ERROR chat-api - status=503 body={"code":50508,"message":"System is too busy now. Please try again later.","data":null}`,
        `${at(1_800_000)} INFO chat-api - shutting down worker 3`
      ].join("\n") + "\n"
    )
  })
  afterAll(async () => {
    if (daemon !== undefined && daemon.proc.exitCode === null) await daemon.stop("SIGTERM")
  })

  const reportJson = async (...extra: string[]) => {
    const r = await runCli(["report", "--config", configPath, "--format", "json", ...extra], { cwd: dir })
    expect(r.code, r.stderr).toBe(0)
    return JSON.parse(r.stdout)
  }

  it("replays a file into the database and prints records, failures and ignored", async () => {
    const r = await runCli(["replay", "--config", configPath, backfill], { cwd: dir })
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/^replayed 1 file: 6 lines, 3 failures \(3 stored, 0 already stored\), 3 ignored/)
    expect(r.stdout).toMatch(/by category: .*rate_limit=1/)
    expect(fs.existsSync(dbPath)).toBe(true)

    const rep = await reportJson()
    expect(rep.total).toBe(3)
    expect(Object.fromEntries(Object.entries(rep.byCategory as Record<string, number>).filter(([, n]) => n > 0))).toEqual({ rate_limit: 1, server_error: 1, overload: 1 })
    expect(rep.ingest).toMatchObject({ linesRead: 6, ignored: 3, failures: 3 })
  })

  it("replaying the same file again stores nothing twice; the report total is unchanged", async () => {
    const r = await runCli(["replay", "--config", configPath, backfill], { cwd: dir })
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/3 failures \(0 stored, 3 already stored\)/)
    const rep = await reportJson()
    expect(rep.total).toBe(3)
    expect(rep.top.reduce((n: number, t: { count: number }) => n + t.count, 0)).toBe(3)
  })

  it("report prints the table for people and the contract's JSON", async () => {
    const table = await runCli(["report", "--config", configPath], { cwd: dir })
    expect(table.code, table.stderr).toBe(0)
    const text = stripAnsi(table.stdout)
    expect(text).toMatch(/^faultline report/)
    expect(text).toMatch(/\b3 failures\b/)
    expect(text).toMatch(/BY CATEGORY/)
    for (const c of ["rate_limit", "server_error", "overload"]) expect(text).toMatch(new RegExp(`^${c}\\s+1$`, "m"))
    expect(text).toMatch(/TOP INCIDENTS/)
    expect(text).toContain("Qwen/Qwen2.5-7B-Instruct")

    const rep = await reportJson("--since", "7d")
    expect(Object.keys(rep).sort()).toEqual(["alerts", "byCategory", "byModel", "byProvider", "byRateLimitKind", "byStatus", "calls", "failureRatio", "ingest", "tickets", "timeline", "top", "total", "window"])
    expect(Date.parse(rep.window.until) - Date.parse(rep.window.since)).toBe(7 * 86_400_000)
    expect(rep.total).toBe(3)
    expect(Object.fromEntries(Object.entries(rep.byStatus as Record<string, number>).filter(([, n]) => n > 0))).toEqual({ "429": 1, "500": 1, "503": 1 })
    expect(rep.byRateLimitKind.TPM).toBe(1)

    const narrow = await reportJson("--since", "90m")
    expect(narrow.total).toBe(1)
    expect(narrow.byCategory.overload).toBe(1)

    const bad = await runCli(["report", "--config", configPath, "--since", "yesterday"], { cwd: dir })
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/--since/)
    oneLine(bad.stderr)
  })

  it("diagnose prints the curl reproduction with a placeholder key for a stored event, exit 0", async () => {
    // find the stored events as an on-call engineer does: from the daemon's API over the same database
    daemon = await startDaemon({ config: { database: { path: dbPath } } })
    const { events } = await daemon.json<{ events: Array<{ id: string; category: string; model: string | null }> }>("/v1/events?since=7d")
    expect((await daemon.stop("SIGTERM")).code).toBe(0)
    expect(events.map((e) => e.category).sort()).toEqual(["overload", "rate_limit", "server_error"])
    const rl = events.find((e) => e.category === "rate_limit")!

    const r = await runCli(["diagnose", rl.id, "--config", configPath], { cwd: dir })
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain(rl.id)
    expect(r.stdout).toMatch(/curl -i /)
    expect(r.stdout).toContain("authorization: Bearer <API_KEY>")
    expect(r.stdout).toContain('"model":"Qwen/Qwen2.5-7B-Instruct"')
    expect(r.stdout).toMatch(/\b429\b/)
    expect(r.stdout).toMatch(/50603/)

    const se = events.find((e) => e.category === "server_error")!
    const s = await runCli(["diagnose", se.id, "--config", configPath], { cwd: dir })
    expect(s.code, s.stderr).toBe(0)
    expect(s.stdout).toContain('"model":"deepseek-ai/DeepSeek-V3"')
    expect(s.stdout).toContain("authorization: Bearer <API_KEY>")
  })

  it("diagnose of an unknown event id exits 1 with one line on stderr", async () => {
    const r = await runCli(["diagnose", "evt_unknown", "--config", configPath], { cwd: dir })
    expect(r.code).toBe(1)
    expect(r.stdout).toBe("")
    oneLine(r.stderr)
    expect(r.stderr).toMatch(/^faultline: .*evt_unknown/)
  })
})

describe("faultline replay of records without their own timestamp", () => {
  // Event ids are a hash of file+offset+text and the record's own time. A record without a
  // timestamp (a `curl -i` dump) takes the time it is read, so a second replay stores it again:
  // the price of never merging two identical lines written at one offset after a truncation
  // (src/cli/replay.ts says so). Timestamped records are stored once.
  it("stores timestamped failures once and a timestamp-less one again when a file is replayed twice", async () => {
    const dir = tempDir("faultline-replay-nots-")
    const configPath = path.join(dir, "faultline.json")
    fs.writeFileSync(configPath, JSON.stringify({ database: { path: path.join(dir, "db", "f.db") } }))
    const file = path.join(dir, "curl.log")
    fs.writeFileSync(file, APP_LOG)
    const first = await runCli(["replay", "--config", configPath, file], { cwd: dir })
    expect(first.code, first.stderr).toBe(0)
    expect(first.stdout).toMatch(/4 failures \(4 stored, 0 already stored\)/)
    const second = await runCli(["replay", "--config", configPath, file], { cwd: dir })
    expect(second.code, second.stderr).toBe(0)
    expect(second.stdout).toMatch(/4 failures \(1 stored, 3 already stored\)/)
    const rep = await runCli(["report", "--config", configPath, "--format", "json", "--since", "30d"], { cwd: dir })
    expect(JSON.parse(rep.stdout).total).toBe(5)
  })
})
