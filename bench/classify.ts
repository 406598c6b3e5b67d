/**
 * Benchmark of the triage core on one core: parse + classify + makeEvent over a realistic mixed
 * log generated in memory (~200k lines: mostly ordinary pino JSON and plain text lines, ~10%
 * failures of many shapes), next to a `JSON.parse`-only pass over the same JSON lines measured in
 * the same run. Run: `npx tsc -p tsconfig.build.json && node dist/bench/classify.js`.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { RecordAssembler } from "../src/parse/assemble.js"
import { classify } from "../src/classify/classify.js"
import { parseRecord } from "../src/parse/parse.js"
import { hasFailureSignal } from "../src/parse/prefilter.js"
import { recordToEvent } from "../src/sources/pipeline.js"
import { type BenchResult, makeTempDir, percentile, ratioOf, removeTempDir, rng, runStandalone } from "./common.js"
import { generateLog as generateTailLog } from "./tail.js"

const TOTAL_LINES = 200_000
const RUNS = 5
const GOAL_RATE = 800_000
const GOAL_RATIO = 0.4

const MODELS = ["Qwen/Qwen2.5-7B-Instruct", "deepseek-ai/DeepSeek-V3", "THUDM/glm-4-9b-chat", "Pro/MiniMaxAI/MiniMax-M2.5", "FunAudioLLM/CosyVoice2-0.5B"]
const PATHS = ["/api/users/", "/api/orders/", "/health", "/static/app.js", "/api/sessions/"]
const LIMITS = ["RPM", "RPD", "TPM", "TPD", "IPM", "IPD"]

function isoAt(ms: number): string {
  return new Date(ms).toISOString()
}

function textTs(ms: number): string {
  return isoAt(ms).replace("T", " ").replace("Z", "").replace(".", ",")
}

function hex(r: () => number, n: number): string {
  let s = ""
  for (let i = 0; i < n; i++) s += "0123456789abcdef"[Math.floor(r() * 16)]
  return s
}

/** Generates the mixed log: an array of lines (multi-line failures span several lines). */
export function generateLog(lines = TOTAL_LINES, seed = 42): string[] {
  const r = rng(seed)
  const out: string[] = []
  let t = Date.UTC(2026, 10, 21, 10, 0, 0)
  while (out.length < lines) {
    t += Math.floor(r() * 40)
    const x = r()
    const reqId = "req-" + hex(r, 8)
    const model = MODELS[Math.floor(r() * MODELS.length)]
    if (x < 0.5) {
      const path = PATHS[Math.floor(r() * PATHS.length)] + Math.floor(r() * 10000)
      const ordinary = [
        { level: 30, time: t, pid: 4711, hostname: "chat-api-7d9f8", name: "chat-api", reqId, req: { method: "GET", url: path, remoteAddress: "10.0.3." + Math.floor(r() * 250) }, res: { statusCode: 200 }, responseTime: Math.round(r() * 2000) / 10, msg: "request completed" },
        { level: 30, time: t, pid: 4711, hostname: "chat-api-7d9f8", name: "chat-api", reqId, model, promptTokens: Math.floor(r() * 3000), completionTokens: Math.floor(r() * 800), durationMs: Math.floor(r() * 9000), msg: "chat completion ok" },
        { level: 20, time: t, pid: 4711, hostname: "chat-api-7d9f8", name: "chat-api", reqId, key: "session:" + hex(r, 6), hit: r() < 0.8, msg: "cache lookup" },
        { level: 30, time: t, pid: 4711, hostname: "chat-api-7d9f8", name: "chat-api", queue: "jobs", depth: Math.floor(r() * 40), msg: "queue depth sampled" }
      ]
      out.push(JSON.stringify(ordinary[Math.floor(r() * ordinary.length)]))
    } else if (x < 0.9) {
      const plain = [
        `${textTs(t)} INFO [worker-${Math.floor(r() * 8)}] app.jobs - processed batch ${Math.floor(r() * 9999)} in ${Math.floor(r() * 900)}ms`,
        `${textTs(t)} DEBUG [http] app.client - POST https://api.siliconflow.cn/v1/chat/completions model=${model} stream=false`,
        `${textTs(t)} INFO [scheduler] app.cron - next run at ${isoAt(t + 60000)}`,
        `${textTs(t)} WARN [gc] runtime - heap used ${Math.floor(r() * 900)} MB of 2048 MB`
      ]
      out.push(plain[Math.floor(r() * plain.length)])
    } else {
      const kind = LIMITS[Math.floor(r() * LIMITS.length)]
      const failures: string[][] = [
        [JSON.stringify({ level: 50, time: t, pid: 4711, hostname: "chat-api-7d9f8", name: "chat-api", reqId, status: 429, body: { code: 50603, message: `Request was rejected due to rate limiting. Details: ${kind} limit reached.`, data: null }, model, msg: "upstream call failed" })],
        [JSON.stringify({ level: 50, time: t, pid: 4711, hostname: "chat-api-7d9f8", name: "chat-api", reqId, err: { type: "APIError", message: "503 System is too busy now. Please try again later.", stack: "Error: 503 System is too busy now.\n    at APIError.generate (node_modules/openai/error.js:51:20)", status: 503, error: { code: 50508, message: "System is too busy now. Please try again later.", data: null } }, model, msg: "chat completion failed" })],
        [JSON.stringify({ level: "error", timestamp: isoAt(t), service: "tts-worker", message: `upstream 400: {"code":20012,"message":"Model does not exist. Please check it carefully.","data":null}`, model })],
        [JSON.stringify({ log: `${textTs(t)} ERROR openai._base_client: Error code: 401 - {'error': {'message': 'Invalid API key', 'type': 'invalid_request_error'}}\n`, stream: "stderr", time: isoAt(t), kubernetes: { pod_name: "rag-5f6d", labels: { app: "rag" } } })],
        [`${textTs(t)} ERROR chat failed: HTTP 403 {"code":30003,"message":"根据相关法律法规，使用该模型需完成实名认证","data":null}`],
        [`${textTs(t)} ERROR [llm] openai.InternalServerError: Error code: 500 - {'message': 'Unknown error', 'data': None} (request_id=${hex(r, 32)})`],
        [`${textTs(t)} WARN [llm] request to https://api.siliconflow.cn/v1/chat/completions failed, reason: connect ECONNREFUSED 10.0.0.7:443`],
        ["HTTP/1.1 504 Gateway Time-out", "Date: Fri, 21 Nov 2026 10:00:00 GMT", "Content-Type: application/json; charset=utf-8", "Connection: keep-alive", "", `{"code":50504,"message":"Request timed out, please use stream mode","data":null}`]
      ]
      for (const l of failures[Math.floor(r() * failures.length)]) out.push(l)
    }
  }
  return out
}

function timeIt(f: () => number): { seconds: number; count: number } {
  const t0 = process.hrtime.bigint()
  const count = f()
  return { seconds: Number(process.hrtime.bigint() - t0) / 1e9, count }
}

export async function run(): Promise<BenchResult[]> {
  const lines = generateLog()
  const jsonLines = lines.filter((l) => l.charCodeAt(0) === 123)
  const ingestedAt = new Date().toISOString()
  const ctx = { source: "file:/var/log/app/app.log", line: 1, ingestedAt }
  let sink = 0

  const ours = (): number => {
    let failures = 0
    for (let i = 0; i < jsonLines.length; i++) {
      const r = recordToEvent(jsonLines[i], ctx)
      if ("event" in r) failures++
    }
    return failures
  }
  const baseline = (): number => {
    let n = 0
    for (let i = 0; i < jsonLines.length; i++) {
      const v = JSON.parse(jsonLines[i]) as { level?: unknown }
      if (v.level === 50) n++
    }
    return n
  }
  const assembleAndClassify = (): number => {
    const a = new RecordAssembler()
    let offset = 0
    let records = 0
    const handle = (recs: ReadonlyArray<{ text: string; line: number; truncated: boolean }>): void => {
      for (const rec of recs) {
        records++
        const r = recordToEvent(rec.text, { ...ctx, line: rec.line, truncated: rec.truncated })
        if ("event" in r) sink++
      }
    }
    for (let i = 0; i < lines.length; i++) {
      const len = lines[i].length + 1
      handle(a.push(lines[i], i + 1, offset, offset + len))
      offset += len
    }
    handle(a.flush())
    return records
  }

  // Warm up both paths.
  sink += ours() + baseline() + assembleAndClassify()
  const oursRates: number[] = []
  const baseRates: number[] = []
  const allRates: number[] = []
  let failures = 0
  for (let i = 0; i < RUNS; i++) {
    const b = timeIt(baseline)
    const o = timeIt(ours)
    const all = timeIt(assembleAndClassify)
    failures = o.count
    baseRates.push(jsonLines.length / b.seconds)
    oursRates.push(jsonLines.length / o.seconds)
    allRates.push(lines.length / all.seconds)
  }
  const oursRate = percentile(oursRates, 50)
  const baseRate = percentile(baseRates, 50)
  if (sink < 0) console.log(sink)
  const fresh = freshParse()
  return [
    {
      name: "parse+classify+makeEvent, single-line JSON records",
      value: Math.round(oursRate),
      unit: "records/s",
      baseline: Math.round(baseRate),
      ratio: ratioOf(oursRate, baseRate),
      goal: `>= ${GOAL_RATE / 1000}k records/s and ratio >= ${GOAL_RATIO} (baseline: JSON.parse only)`,
      met: oursRate >= GOAL_RATE && oursRate / baseRate >= GOAL_RATIO
    },
    { name: "assemble+parse+classify+makeEvent, whole mixed log", value: Math.round(percentile(allRates, 50)), unit: "lines/s" },
    { name: `single-line JSON records in the ${lines.length}-line log`, value: jsonLines.length, unit: "records" },
    { name: "failed calls found among them", value: failures, unit: "records" },
    { name: `parse+classify+makeEvent, fresh records of the tail bench's log (${fresh.records} candidates; the record memo answers repeats)`, value: fresh.usPerRecord, unit: "µs/record (CPU)", baseline: fresh.usPerRecordFull, ratio: ratioOf(fresh.usPerRecord, fresh.usPerRecordFull) },
    { name: "parse+classify of the same records in full (what a new template costs; the baseline above)", value: fresh.usPerRecordFull, unit: "µs/record (CPU)" }
  ]
}

/**
 * The cost of a record nobody has parsed before: the candidates of the tail bench's 4 % log (each
 * with its own request id, retry delay, trace id), the first half parsed to warm up, the second
 * half measured in CPU time. The loops above parse the same lines again and again, and the
 * parser's and classifier's memories (verdicts, fingerprints, markers) answer from the first
 * pass; in a log they rarely can.
 */
function freshParse(): { readonly records: number; readonly usPerRecord: number; readonly usPerRecordFull: number } {
  const dir = makeTempDir("fl-bench-fresh-")
  try {
    const file = path.join(dir, "app.log")
    generateTailLog(file, 30 * 1048576, Date.UTC(2026, 10, 25, 12), 11)
    const lines = fs.readFileSync(file, "utf8").split("\n")
    lines.pop()
    const a = new RecordAssembler()
    const texts: string[] = []
    let offset = 0
    for (let i = 0; i < lines.length; i++) {
      const len = lines[i]!.length + 1
      for (const r of a.push(lines[i]!, i + 1, offset, offset + len)) if (hasFailureSignal(r.text)) texts.push(r.text)
      offset += len
    }
    for (const r of a.flush()) if (hasFailureSignal(r.text)) texts.push(r.text)
    const ctx = { source: "file:/var/log/app/app.log", line: 1, ingestedAt: new Date().toISOString(), prefiltered: true }
    const half = texts.length >> 1
    for (let i = 0; i < half; i++) recordToEvent(texts[i]!, ctx)
    const c0 = process.cpuUsage()
    for (let i = half; i < texts.length; i++) recordToEvent(texts[i]!, ctx)
    const c = process.cpuUsage(c0)
    let freshSink = 0
    // the same records parsed and classified in full, as the record memo does for a template it
    // has not seen (or cannot trust)
    const c1 = process.cpuUsage()
    for (let i = half; i < texts.length; i++) {
      const r = parseRecord(texts[i]!, { prefiltered: true })
      if (r._tag === "Failure") freshSink += classify(r.failure).fingerprint.length
    }
    const c2 = process.cpuUsage(c1)
    if (freshSink < 0) console.log(freshSink)
    const us = (u: NodeJS.CpuUsage): number => Math.round(((u.user + u.system) / (texts.length - half)) * 10) / 10
    return { records: texts.length, usPerRecord: us(c), usPerRecordFull: us(c2) }
  } finally {
    removeTempDir(dir)
  }
}

runStandalone(import.meta.url, run)
