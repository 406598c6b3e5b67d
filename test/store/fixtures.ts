/** Test helpers for the store: temp databases and FailureEvent literals (no parser involved). */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import type BetterSqlite3 from "better-sqlite3"
import { afterAll } from "vitest"
import type { Category, FailureEvent, RateLimitKind } from "../../src/classify/Event.js"
import type { IngestBatch, SourceCheckpoint } from "../../src/sources/Batch.js"
import { openDatabase } from "../../src/store/Database.js"
import { EventStore } from "../../src/store/EventStore.js"

export const MINUTE = 60_000
export const HOUR = 3_600_000
export const DAY = 86_400_000

const dirs: string[] = []
const handles: BetterSqlite3.Database[] = []
afterAll(() => {
  for (const db of handles) if (db.open) db.close()
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true })
})

export const tempDir = (): string => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "faultline-store-test-"))
  dirs.push(dir)
  return dir
}

export const openStore = (file = path.join(tempDir(), "faultline.db")): { db: BetterSqlite3.Database; store: EventStore; file: string } => {
  const db = openDatabase(file)
  handles.push(db)
  return { db, store: new EventStore(db), file }
}

let seq = 0

/** A FailureEvent with sensible defaults; `fingerprint` defaults to a function of the labels. */
export const ev = (over: Partial<FailureEvent> & { at: number }): FailureEvent => {
  const { at, ...rest } = over
  const category: Category = rest.category ?? "rate_limit"
  const rateLimitKind: RateLimitKind | null = rest.rateLimitKind !== undefined ? rest.rateLimitKind : category === "rate_limit" ? "TPM" : null
  const status = rest.status !== undefined ? rest.status : category === "rate_limit" ? 429 : category === "transport" ? null : 500
  const code = rest.code !== undefined ? rest.code : 50603
  const model = rest.model !== undefined ? rest.model : "Qwen/Qwen2.5-7B-Instruct"
  const service = rest.service !== undefined ? rest.service : "chat-api"
  const message = rest.message !== undefined ? rest.message : `failure of ${category}`
  seq++
  return {
    id: `evt_${String(seq).padStart(8, "0")}`,
    occurredAt: new Date(at).toISOString(),
    ingestedAt: new Date(at + 1000).toISOString(),
    source: "file:/var/log/app.log",
    line: seq,
    requestId: `req_${seq}`,
    endpoint: "/v1/chat/completions",
    stream: false,
    severity: "warning",
    retryable: true,
    action: `action for ${category}`,
    bodyNotJson: false,
    sample: `{"status":${status},"seq":${seq}}`,
    provider: null,
    ...rest,
    category,
    rateLimitKind,
    status,
    code,
    model,
    service,
    message,
    fingerprint:
      rest.fingerprint ?? fnv(JSON.stringify([category, rateLimitKind, status, code, model, service, (message ?? "").replace(/\d+/g, "#")]))
  }
}

export const fnv = (s: string): string => {
  let h = 0x811c9dc5
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193)
  return (h >>> 0).toString(16).padStart(8, "0") + (s.length * 2654435761 >>> 0).toString(16).padStart(8, "0")
}

export const batch = (
  events: ReadonlyArray<FailureEvent>,
  opts: { source?: string; linesRead?: number; ignored?: number; checkpoint?: SourceCheckpoint | null } = {}
): IngestBatch => ({
  source: opts.source ?? "file:/var/log/app.log",
  events,
  linesRead: opts.linesRead ?? events.length,
  ignored: opts.ignored ?? 0,
  checkpoint: opts.checkpoint ?? null
})

/** A small deterministic PRNG (mulberry32). */
export const prng = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = seed
  t = Math.imul(t ^ (t >>> 15), t | 1)
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}
