/**
 * `--explain` and `classify.rules` as a user runs them (CONTRACT sections 2, 4 and 10): the built
 * CLI over real records, a config file with rules, a temp database for `diagnose --explain`.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { runCli, tempDir } from "../support/daemon.js"

const jsonLines = (stdout: string): any[] =>
  stdout
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l))

const PYTHON_429 =
  "openai.RateLimitError: Error code: 429 - {'error': {'message': 'Rate limit reached for gpt-4o in organization org-3xAmPlE on tokens per min (TPM): Limit 30000, Used 29850, Requested 1200.', 'type': 'tokens', 'param': None, 'code': 'rate_limit_exceeded'}}"
const CURL_400 = [
  "HTTP/1.1 400 Bad Request",
  "Content-Type: application/json; charset=utf-8",
  "",
  '{"code":20012,"message":"Model does not exist. Please check it carefully.","data":null}'
].join("\n")
const ACME_403 = 'ERROR gateway answered HTTP 403 {"error":{"message":"Your monthly plan exhausted, upgrade at acme.example","type":"plan_error"}} key=sk-live-0123456789abcdef0123'

describe("faultline classify --explain", () => {
  it("says which extractor set each field, with the text it read, and what decided the category", async () => {
    const r = await runCli(["classify", "--records", "jsonl", "--explain"], {
      input: [
        JSON.stringify({ id: "py", raw: PYTHON_429 }),
        JSON.stringify({ id: "curl", raw: CURL_400 }),
        JSON.stringify({ id: "plain", raw: "2026-11-21 10:00:00 INFO worker started" })
      ].join("\n") + "\n"
    })
    expect(r.code, r.stderr).toBe(0)
    const [py, curl, plain] = jsonLines(r.stdout)
    expect(py.input).toBe("py")
    expect(py.explain.status).toEqual({ from: "status-text", text: expect.stringContaining("Error code: 429") })
    expect(py.explain.code).toEqual({ from: "error-body", text: "rate_limit_exceeded" })
    expect(py.explain.message.from).toBe("error-body")
    expect(py.explain.model).toEqual({ from: "free-text", text: "gpt-4o" })
    expect(py.explain.decidedBy).toEqual({ kind: "status", name: "429" })

    expect(curl.category).toBe("model_not_found")
    expect(curl.explain.status).toEqual({ from: "http-dump", text: "HTTP/1.1 400 Bad Request" })
    expect(curl.explain.decidedBy).toEqual({ kind: "catalog", name: "siliconflow.model-does-not-exist" })
    expect(curl.explain.model).toBeNull()

    // an ignored record carries the (empty) evidence too
    expect(plain).toMatchObject({ input: "plain", ignored: true, explain: { status: null, decidedBy: null } })
  })

  it("prints the explanation under each row of the table, redacted", async () => {
    const r = await runCli(["classify", "--format", "table", "--explain"], { input: ACME_403 + "\n" })
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/decided by status 403/)
    expect(r.stdout).toMatch(/status\s+status-text: .*HTTP 403/)
    expect(r.stdout).toMatch(/message\s+error-body: Your monthly plan exhausted/)
    expect(r.stdout).not.toContain("sk-live-0123456789abcdef0123")
  })

  it("every text is at most 200 characters", async () => {
    const long = `Error code: 400 - {'error': {'message': '${"x".repeat(900)} is not valid', 'type': 'invalid_request_error'}}`
    const r = await runCli(["classify", "--records", "jsonl", "--explain"], { input: JSON.stringify({ id: "1", raw: long }) + "\n" })
    const [e] = jsonLines(r.stdout)
    for (const f of ["status", "message"]) expect(e.explain[f].text.length, f).toBeLessThanOrEqual(200)
  })
})

describe("classify.rules", () => {
  let dir: string
  const writeConfig = (name: string, cfg: unknown): string => {
    const p = path.join(dir, name)
    fs.writeFileSync(p, JSON.stringify(cfg))
    return p
  }
  beforeAll(() => {
    dir = tempDir("faultline-rules-")
  })

  it("a rule is tried before the catalogue and named in --explain", async () => {
    const cfg = writeConfig("rules.json", {
      classify: { rules: [{ name: "acme-gateway-quota", match: { status: 403, message: "plan exhausted" }, category: "quota" }] }
    })
    const r = await runCli(["classify", "--records", "jsonl", "--explain", "--config", cfg], {
      input: [JSON.stringify({ id: "acme", raw: ACME_403 }), JSON.stringify({ id: "py", raw: PYTHON_429 })].join("\n") + "\n"
    })
    expect(r.code, r.stderr).toBe(0)
    const [acme, py] = jsonLines(r.stdout)
    expect(acme).toMatchObject({ category: "quota", severity: "critical", retryable: false, explain: { decidedBy: { kind: "rule", name: "acme-gateway-quota" } } })
    expect(acme.action).toMatch(/Top up/)
    // the rule does not touch what it does not match
    expect(py).toMatchObject({ category: "rate_limit", rateLimitKind: "TPM" })
  })

  it("a rate_limit rule sets the kind it names, or reads it from the message", async () => {
    const cfg = writeConfig("kinds.json", {
      classify: {
        rules: [
          { name: "acme-daily", match: { code: "acme_daily_cap" }, category: "rate_limit", rateLimitKind: "RPD" },
          { name: "acme-slow-down", match: { errorType: "acme_throttle" }, category: "rate_limit" }
        ]
      }
    })
    const r = await runCli(["classify", "--records", "jsonl", "--config", cfg], {
      input: [
        JSON.stringify({ id: "a", raw: '{"level":"error","status":400,"body":{"error":{"code":"acme_daily_cap","message":"cap"}}}' }),
        JSON.stringify({ id: "b", raw: '{"level":"error","status":400,"body":{"error":{"type":"acme_throttle","message":"over 60 requests per minute"}}}' })
      ].join("\n") + "\n"
    })
    const [a, b] = jsonLines(r.stdout)
    expect(a).toMatchObject({ category: "rate_limit", rateLimitKind: "RPD", severity: "critical" })
    expect(b).toMatchObject({ category: "rate_limit", rateLimitKind: "RPM", retryable: true })
  })

  const refused: ReadonlyArray<readonly [string, unknown, RegExp]> = [
    ["a pattern that backtracks catastrophically", { name: "r", match: { message: "(a+)+b" }, category: "quota" }, /classify\.rules\[0\]\.match\.message: .*\(a\+\)\+b.*backtrack/],
    ["a repeated alternation", { name: "r", match: { message: "(x|xy)*z" }, category: "quota" }, /classify\.rules\[0\]\.match\.message: .*alternation/],
    ["a back-reference", { name: "r", match: { message: "(a)\\1" }, category: "quota" }, /classify\.rules\[0\]\.match\.message: .*back-reference/],
    ["a look-ahead", { name: "r", match: { message: "quota(?!ok)" }, category: "quota" }, /classify\.rules\[0\]\.match\.message: .*look-around/],
    ["a pattern that does not compile", { name: "r", match: { message: "quota [a-" }, category: "quota" }, /classify\.rules\[0\]\.match\.message: .*not a valid regular expression/],
    ["an empty match", { name: "r", match: {}, category: "quota" }, /classify\.rules\[0\]\.match: expected at least one of status, code, errorType, provider, message/],
    ["an unknown category", { name: "r", match: { status: 403 }, category: "billing" }, /classify\.rules\[0\]\.category: expected .*quota.*got "billing"/],
    ["a status out of range", { name: "r", match: { status: 1000 }, category: "quota" }, /classify\.rules\[0\]\.match\.status/],
    ["a kind on another category", { name: "r", match: { status: 403 }, category: "quota", rateLimitKind: "RPM" }, /classify\.rules\[0\]\.rateLimitKind: only a rule of category rate_limit/],
    ["an unknown kind", { name: "r", match: { status: 429 }, category: "rate_limit", rateLimitKind: "RPW" }, /classify\.rules\[0\]\.rateLimitKind: expected .*RPM.*got "RPW"/],
    ["an unknown field", { name: "r", match: { status: 429, body: "x" }, category: "rate_limit" }, /classify\.rules\[0\]\.match\.body/],
    ["a rule without a name", { match: { status: 429 }, category: "rate_limit" }, /classify\.rules\[0\]\.name/]
  ]
  it.each(refused)("refuses %s when the config loads: exit 2, one line naming the field", async (_what, rule, error) => {
    const cfg = writeConfig(`bad-${Math.random().toString(36).slice(2)}.json`, { classify: { rules: [rule] } })
    const r = await runCli(["classify", "--records", "jsonl", "--config", cfg], { input: JSON.stringify({ id: "1", raw: PYTHON_429 }) + "\n" })
    expect(r.code, r.stdout).toBe(2)
    expect(r.stderr.trimEnd().split("\n")).toHaveLength(1)
    expect(r.stderr).toMatch(error)
    expect(r.stdout).toBe("")
  })

  it("refuses two rules of the same name", async () => {
    const rule = { name: "same", match: { status: 403 }, category: "quota" }
    const cfg = writeConfig("twice.json", { classify: { rules: [rule, rule] } })
    const r = await runCli(["serve", "--config", cfg])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/classify\.rules\[1\]\.name: "same" is used twice/)
  })
})

describe("faultline diagnose --explain", () => {
  it("explains a stored event from its sample", async () => {
    const dir = tempDir("faultline-diag-explain-")
    const db = path.join(dir, "fl.db")
    const cfg = path.join(dir, "cfg.json")
    fs.writeFileSync(cfg, JSON.stringify({ database: { path: db } }))
    const log = path.join(dir, "app.log")
    fs.writeFileSync(log, `${new Date(Date.now() - 60_000).toISOString()} ERROR app - ${PYTHON_429}\n`)
    const replay = await runCli(["replay", "--config", cfg, log], { cwd: dir })
    expect(replay.code, replay.stderr).toBe(0)
    const Database = (await import("better-sqlite3")).default
    const handle = new Database(db, { readonly: true })
    const id = handle.prepare("SELECT id FROM events LIMIT 1").pluck().get() as string
    handle.close()

    const text = await runCli(["diagnose", id, "--config", cfg, "--explain"], { cwd: dir })
    expect(text.code, text.stderr).toBe(0)
    expect(text.stdout).toMatch(/Why this classification/)
    expect(text.stdout).toMatch(/decided by status 429/)
    expect(text.stdout).toMatch(/code\s+error-body: rate_limit_exceeded/)

    const json = await runCli(["diagnose", id, "--config", cfg, "--explain", "--format", "json"], { cwd: dir })
    const parsed = JSON.parse(json.stdout)
    expect(parsed.event.id).toBe(id)
    expect(parsed.explain.decidedBy).toEqual({ kind: "status", name: "429" })
    expect(parsed.explain.model).toEqual({ from: "free-text", text: "gpt-4o" })
  })
})
