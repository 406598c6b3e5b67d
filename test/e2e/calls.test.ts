/**
 * Calls counted, not stored (CONTRACT sections 3, 6, 9), end to end: the built CLI runs `serve`
 * on a loopback port and tails a real log where an application writes its successful and failed
 * calls of three models in the shapes real logs have (httpx's request lines, pino request logs,
 * an access log, SDK errors); the report's calls, ratios and timeline, `/metrics` and the webhook's
 * call counts must agree with what was written.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Daemon, startDaemon, tempDir, waitFor } from "../support/daemon.js"

const A = "Qwen/Qwen2.5-7B-Instruct"
const B = "deepseek-ai/DeepSeek-V3"
const C = "THUDM/glm-4-9b-chat"

/** ISO time `sAgo` seconds ago, and the same in the Python logging format. */
const ago = (sAgo: number) => new Date(Date.now() - sAgo * 1000)
const pyTime = (t: Date) => t.toISOString().replace("T", " ").replace("Z", "").replace(".", ",")

/** Successful calls as three kinds of application write them. */
const okLines = (model: string, n: number, sAgo: number): string[] =>
  Array.from({ length: n }, (_, i) => {
    const t = ago(sAgo + i)
    switch (i % 3) {
      case 0:
        return JSON.stringify({ level: 30, time: t.getTime(), msg: "llm call done", req: { method: "POST", url: "/v1/chat/completions" }, model, res: { statusCode: 200 }, responseTime: 812 })
      case 1:
        // a request id that holds a failure word: the pre-filter lets it through, the parser finds no failure
        return `${pyTime(t)} - INFO - httpx - HTTP Request: POST https://api.siliconflow.cn/v1/chat/completions "HTTP/1.1 200 OK" model=${model} request_id=req-${i}err`
      default:
        return `${t.toISOString()} INFO gateway - "POST /v1/chat/completions HTTP/1.1" 200 1532 model=${model} stream=true`
    }
  })

/** Failed calls: the service's 429 and 503 bodies and a Python SDK error. */
const failLines = (model: string, n: number, sAgo: number): string[] =>
  Array.from({ length: n }, (_, i) => {
    const t = ago(sAgo + i)
    switch (i % 3) {
      case 0:
        return JSON.stringify({ level: 50, time: t.getTime(), msg: "upstream call failed", status: 429, model, body: { code: 50603, message: "Request was rejected due to rate limiting. Details: TPM limit reached.", data: null } })
      case 1:
        return `${t.toISOString()} ERROR chat.client - HTTP 503 {"code":50505,"message":"Model service overloaded. Please try again later.","data":null} model=${model}`
      default:
        return `${pyTime(t)} ERROR app - openai.BadRequestError: Error code: 400 - {'code': 20015, 'message': 'max_tokens is too large', 'data': None} (model=${model})`
    }
  })

/** Lines that are neither: ordinary work, a health check, a non-LLM request. */
const ordinary = (n: number): string[] =>
  Array.from({ length: n }, (_, i) =>
    i % 2 === 0 ? `${ago(30).toISOString()} INFO worker - processed batch ${i} in ${10 + i}ms` : `INFO:     127.0.0.1:53412 - "GET /healthz HTTP/1.1" 200 OK`
  )

/** `faultline_calls_total` samples of a Prometheus text: labels -> value. */
const callsMetric = (text: string): Array<{ labels: Record<string, string>; value: number }> =>
  text
    .split("\n")
    .filter((l) => l.startsWith("faultline_calls_total{"))
    .map((l) => {
      const m = /^faultline_calls_total\{(.*)\} (\S+)$/.exec(l)!
      const labels = Object.fromEntries([...m[1]!.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((x) => [x[1]!, x[2]!]))
      return { labels, value: Number(m[2]) }
    })

describe("calls counted beside the failures", () => {
  let d: Daemon
  let log: string
  // what the application wrote: model -> [ok, failed]
  const written = new Map<string, [number, number]>([
    [A, [60, 6]],
    [B, [30, 15]],
    [C, [90, 0]]
  ])
  const totalCalls = [...written.values()].reduce((n, [ok, f]) => n + ok + f, 0)
  const totalFailed = [...written.values()].reduce((n, [, f]) => n + f, 0)

  beforeAll(async () => {
    const dir = tempDir()
    fs.mkdirSync(path.join(dir, "logs"))
    log = path.join(dir, "logs/app.log")
    fs.writeFileSync(log, "")
    d = await startDaemon({ dir, config: { tail: [{ path: path.join(dir, "logs/*.log"), service: "chat-api", startAt: "beginning" }] } })
    await waitFor("the daemon to answer", async () => (await d.fetch("/readyz")).ok, 30_000)
    // interleaved, appended in a few writes as an application would
    const lines: string[] = []
    for (const [model, [ok, failed]] of written) lines.push(...okLines(model, ok, 120), ...failLines(model, failed, 100))
    lines.push(...ordinary(20))
    for (let i = 0; i < lines.length; i += 50) fs.appendFileSync(log, lines.slice(i, i + 50).join("\n") + "\n")
    await waitFor("every line read", async () => {
      const r = await d.json("/v1/report?since=1h")
      return r.ingest.linesRead >= lines.length && r.calls === totalCalls ? r : null
    }, 30_000)
  }, 60_000)

  afterAll(async () => {
    if (d !== undefined) expect((await d.stop("SIGTERM")).code).toBe(0)
  })

  it("the report counts every call once, failed and successful, overall, per model and in the timeline", async () => {
    const r = await d.json("/v1/report?since=1h")
    expect(r.total).toBe(totalFailed)
    expect(r.calls).toBe(totalCalls)
    expect(r.failureRatio).toBeCloseTo(totalFailed / totalCalls, 10)
    const byModel = Object.fromEntries(r.byModel.map((m: any) => [m.model, { total: m.total, calls: m.calls, failureRatio: m.failureRatio }]))
    for (const [model, [ok, failed]] of written) expect(byModel[model]).toEqual({ total: failed, calls: ok + failed, failureRatio: failed / (ok + failed) })
    // the healthy model is listed with its calls though it never failed
    expect(byModel[C]).toEqual({ total: 0, calls: 90, failureRatio: 0 })
    expect(r.timeline.reduce((n: number, b: any) => n + b.calls, 0)).toBe(totalCalls)
    // filtered by model, the same numbers
    const onlyB = await d.json(`/v1/report?since=1h&model=${encodeURIComponent(B)}`)
    expect({ total: onlyB.total, calls: onlyB.calls }).toEqual({ total: 15, calls: 45 })
  })

  it("/metrics counts the same calls in faultline_calls_total{model,service,provider,outcome}", async () => {
    const text = await (await d.fetch("/metrics")).text()
    const samples = callsMetric(text)
    for (const [model, [ok, failed]] of written) {
      const of = (outcome: string) => samples.filter((s) => s.labels["model"] === model && s.labels["outcome"] === outcome).reduce((n, s) => n + s.value, 0)
      expect({ model, ok: of("ok"), failed: of("failed") }).toEqual({ model, ok, failed })
    }
    for (const s of samples) expect(Object.keys(s.labels).sort()).toEqual(["model", "outcome", "provider", "service"])
    expect(samples.every((s) => s.labels["service"] === "chat-api")).toBe(true)
  })

  it("the webhook counts structured successes and an application's own counts, a retried post once", async () => {
    const post = async (body: unknown) => {
      const res = await d.fetch("/v1/events", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })
      expect(res.status).toBe(202)
      return (await res.json()) as any
    }
    const minute = new Date(Math.floor(Date.now() / 60_000) * 60_000 - 120_000).toISOString()
    const counts = { id: "tts-counters-0001", calls: [{ minute, service: "tts", model: "FunAudioLLM/CosyVoice2-0.5B", ok: 40, failed: 2 }] }
    expect(await post(counts)).toMatchObject({ accepted: 0, duplicates: 0, counted: 42 })
    expect(await post(counts)).toMatchObject({ accepted: 0, duplicates: 1, counted: 0 })
    const structured = await post([
      { status: 200, service: "tts", model: "FunAudioLLM/CosyVoice2-0.5B", endpoint: "https://api.siliconflow.cn/v1/audio/speech" },
      { status: 500, service: "tts", model: "FunAudioLLM/CosyVoice2-0.5B", message: "Internal server error" }
    ])
    expect(structured).toMatchObject({ accepted: 1, counted: 1 })
    const r = await waitFor("the counts in the report", async () => {
      const rep = await d.json("/v1/report?since=1h&service=tts")
      return rep.calls === 44 ? rep : null
    })
    expect(r.byModel).toEqual([expect.objectContaining({ model: "FunAudioLLM/CosyVoice2-0.5B", total: 1, calls: 44 })])
    // a malformed count is refused with its index and reason; the rest of the body is kept
    const bad = await post([{ calls: [{ minute: "yesterday", ok: 1, failed: 0 }] }, { status: 200, model: "m", endpoint: "/v1/chat/completions" }])
    expect(bad.rejected).toEqual([{ index: 0, error: expect.stringMatching(/minute/) }])
    expect(bad.counted).toBe(1)
  })
})
