/**
 * `database.maxSize` end to end (CONTRACT sections 9 and 10): the built CLI serves a database
 * written past a 2MB limit; it prunes the oldest events (one info line), counts them in
 * `faultline_events_pruned_total{reason="size"}`, keeps the newest and the report's totals. A
 * size that is not one is refused at load: exit 2, one line naming `database.maxSize`.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import type { FailureEvent } from "../../src/classify/Event.js"
import { openDatabase } from "../../src/store/Database.js"
import { EventStore } from "../../src/store/EventStore.js"
import { type Daemon, runCli, startDaemon, tempDir, waitFor } from "../support/daemon.js"

const MAX = 2_000_000
const MINUTE = 60_000

const event = (k: number, at: number): FailureEvent => ({
  id: `evt_size_${String(k).padStart(6, "0")}`,
  occurredAt: new Date(at).toISOString(),
  ingestedAt: new Date(at + 1000).toISOString(),
  source: "webhook",
  line: null,
  service: `svc-${k % 3}`,
  status: 429,
  code: "rate_limit_exceeded",
  message: `Rate limit reached for requests (${k % 5})`,
  model: `model-${k % 4}`,
  requestId: `req_${k}`,
  endpoint: "/v1/chat/completions",
  stream: false,
  category: "rate_limit",
  rateLimitKind: "RPM",
  severity: "warning",
  retryable: true,
  action: "back off and retry",
  fingerprint: `fp-${k % 5}`,
  bodyNotJson: false,
  // ~1 KB that differs from event to event (a repeated body would be stored as a delta of a few bytes)
  sample: JSON.stringify({ k, error: { message: Array.from({ length: 130 }, (_, j) => ((k * 2654435761 + j * 40503) >>> 0).toString(36)).join(" ") } }),
  provider: null
})

const daemons: Daemon[] = []
afterAll(async () => {
  for (const d of daemons) await d.stop().catch(() => undefined)
})

const prunedSize = async (d: Daemon): Promise<number | undefined> => {
  const text = await (await d.fetch("/metrics")).text()
  const m = /^faultline_events_pruned_total\{reason="size"\} (\d+)$/m.exec(text)
  return m === null ? undefined : Number(m[1])
}

describe("database.maxSize", () => {
  it("prunes the oldest events of a database past it; the newest and the report's totals stay", async () => {
    const dir = tempDir("faultline-maxsize-")
    const file = path.join(dir, "data/faultline.db")
    // 6000 events of ~1 KB over the last ~2 days, written as the daemon would
    const now = Date.now()
    const start = Math.floor((now - 2 * 86_400_000) / MINUTE) * MINUTE
    const gap = 25_000
    const n = 6_000
    const db = openDatabase(file)
    const store = new EventStore(db)
    for (let i = 0; i < n; i += 500) {
      const events = Array.from({ length: 500 }, (_, j) => event(i + j, start + (i + j) * gap))
      store.commit([{ source: "webhook", events, linesRead: events.length, ignored: 0, checkpoint: null }])
    }
    const usedBefore = store.size().usedBytes
    expect(usedBefore).toBeGreaterThan(2 * MAX)
    const window = { since: start, until: Math.floor(now / MINUTE) * MINUTE }
    const reportBefore = store.report(window)
    expect(reportBefore.total).toBe(n)
    db.close()

    const d = await startDaemon({ dir, config: { database: { path: file, maxSize: "2MB" }, tail: [] } })
    daemons.push(d)
    const line = await waitFor("the size prune's log line", () => d.logs().find((l) => l.reason === "size" && typeof l.events === "number"))
    expect(line.level).toBe(30) // info
    expect(line.msg).toMatch(/^pruned \d+ oldest events.*database\.maxSize/)
    const deleted = line.events as number
    expect(deleted).toBeGreaterThan(0)
    expect(deleted).toBeLessThan(n)
    expect(line.usedBytesBefore).toBe(usedBefore)
    expect(line.usedBytesAfter as number).toBeLessThanOrEqual(MAX * 0.9)
    expect(d.logs().filter((l) => l.reason === "size")).toHaveLength(1)

    // counted, once
    expect(await prunedSize(d)).toBe(deleted)

    // the newest events are served, the oldest are gone; the report over the window is whole
    const page = await d.json<{ events: Array<{ id: string }> }>("/v1/events?limit=1")
    expect(page.events[0]!.id).toBe(event(n - 1, 0).id)
    const report = await d.json<{ total: number; byModel: unknown }>(
      `/v1/report?since=${new Date(window.since).toISOString()}&until=${new Date(window.until).toISOString()}`
    )
    expect(report.total).toBe(n)
    expect(report.byModel).toEqual(reportBefore.byModel)

    // a later check finds it under the limit: no second prune
    await new Promise((r) => setTimeout(r, 6_500))
    expect(d.logs().filter((l) => l.reason === "size")).toHaveLength(1)
    expect(await prunedSize(d)).toBe(deleted)
    const code = await d.stop()
    expect(code.code).toBe(0)
    const reopened = openDatabase(file)
    const after = new EventStore(reopened)
    expect(after.getEvent(event(0, 0).id)).toBeNull()
    expect(after.getEvent(event(deleted - 1, 0).id)).toBeNull()
    expect(after.getEvent(event(deleted, 0).id)).not.toBeNull()
    expect(after.report(window)).toEqual(reportBefore)
    reopened.close()
  })

  it("a size that is not one is refused at load: exit 2, one line naming database.maxSize", async () => {
    const dir = tempDir("faultline-maxsize-")
    const config = path.join(dir, "faultline.json")
    fs.writeFileSync(config, JSON.stringify({ database: { path: path.join(dir, "f.db"), maxSize: "banana" }, tail: [] }))
    const r = await runCli(["serve", "--config", config], { cwd: dir })
    expect(r.code).toBe(2)
    const lines = r.stderr.trim().split("\n")
    expect(lines).toHaveLength(1)
    expect(lines[0]).toContain("database.maxSize")
    expect(lines[0]).toContain("banana")
    expect(fs.existsSync(path.join(dir, "f.db"))).toBe(false)
  })
})
