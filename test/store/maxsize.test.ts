/**
 * `database.maxSize` (CONTRACT section 10) at the store: a real SQLite file in a temp folder,
 * written past a small limit, pruned oldest-first down to the low-water mark while the report
 * (read from the buckets) stays whole; and the size syntax of the config.
 */
import * as fs from "node:fs"
import { Effect, Either } from "effect"
import { describe, expect, it } from "vitest"
import { decodeConfig, parseSize } from "../../src/config/Config.js"
import { pruneToSizeEffect } from "../../src/store/EventStore.js"
import { batch, DAY, ev, HOUR, MINUTE, openStore, prng } from "./fixtures.js"

const MAX = 2_000_000
const T0 = Date.UTC(2026, 2, 1)
const categories = ["rate_limit", "server_error", "auth_key", "transport"] as const

/** `n` events from `from` on, `gap` ms apart, each with a ~1 KB sample (as a real body is). */
const writeEvents = (store: ReturnType<typeof openStore>["store"], from: number, n: number, gap: number, seed = 1) => {
  const rnd = prng(seed)
  const ids: string[] = []
  for (let i = 0; i < n; i += 500) {
    const events = Array.from({ length: Math.min(500, n - i) }, (_, j) => {
      const k = i + j
      const e = ev({
        at: from + k * gap,
        category: categories[k % categories.length],
        model: `model-${k % 7}`,
        service: `svc-${k % 3}`,
        message: `failure ${k % 11}`
      })
      return { ...e, sample: JSON.stringify({ k, body: Array.from({ length: 40 }, () => rnd().toString(36)).join("") }) }
    })
    store.commit([batch(events)])
    ids.push(...events.map((e) => e.id))
  }
  return ids
}

describe("database.maxSize: pruning the oldest events", () => {
  it("prunes oldest first under the low-water mark; the report over the window and the incidents stay whole", () => {
    const { db, store, file } = openStore()
    const ids = writeEvents(store, T0, 8_000, 30_000) // ~2.8 days of events
    const before = store.size()
    expect(before.usedBytes).toBeGreaterThan(2 * MAX)
    const window = { since: T0 - DAY, until: T0 + 4 * DAY } // minute-aligned: read from the buckets
    const reportBefore = store.report(window)
    const incidentsBefore = store.incidents({ limit: 1000 })
    const totalsBefore = store.ingestTotals()
    expect(reportBefore.total).toBe(8_000)

    const r = store.pruneToSize(MAX)
    expect(r.deleted).toBeGreaterThan(0)
    expect(r.deleted).toBeLessThan(8_000)
    expect(r.before.usedBytes).toBe(before.usedBytes)
    expect(r.after.usedBytes).toBeLessThanOrEqual(MAX * 0.9)
    expect(store.size().usedBytes).toBeLessThanOrEqual(MAX)

    // exactly the oldest `deleted` events went
    const left = db.prepare("SELECT count(*) FROM events").pluck().get() as number
    expect(left).toBe(8_000 - r.deleted)
    expect(store.getEvent(ids[0]!)).toBeNull()
    expect(store.getEvent(ids[r.deleted - 1]!)).toBeNull()
    expect(store.getEvent(ids[r.deleted]!)).not.toBeNull()
    expect(store.getEvent(ids.at(-1)!)).not.toBeNull()
    expect(r.prunedUntil).toBe(T0 + (r.deleted - 1) * 30_000)
    const oldest = db.prepare("SELECT min(occurred_at) FROM events").pluck().get() as number
    expect(oldest).toBe(T0 + r.deleted * 30_000)

    // the report, incidents and counters do not change
    expect(store.report(window)).toEqual(reportBefore)
    expect(store.report({ since: T0, until: T0 + 6 * HOUR }).total).toBe(6 * 120)
    expect(store.incidents({ limit: 1000 })).toEqual(incidentsBefore)
    expect(store.ingestTotals()).toEqual(totalsBefore)
    expect(fs.existsSync(file)).toBe(true)

    // under the limit: nothing to do
    const again = store.pruneToSize(MAX)
    expect(again.deleted).toBe(0)
  })

  it("the file stops growing: freed pages are reused while events keep arriving", () => {
    const { db, store, file } = openStore()
    let at = T0
    const fileSize = () => {
      db.pragma("wal_checkpoint(TRUNCATE)")
      return fs.statSync(file).size
    }
    const sizes: number[] = []
    // each round writes more than MAX (thin rows: 2,000 of these events no longer did)
    for (let round = 0; round < 5; round++) {
      writeEvents(store, at, 3_000, 1_000, round + 1)
      at += 3_000 * 1_000
      const r = store.pruneToSize(MAX)
      if (round > 0) expect(r.deleted).toBeGreaterThan(0)
      expect(store.size().usedBytes).toBeLessThanOrEqual(MAX * 0.9)
      sizes.push(fileSize())
    }
    // after the first rounds the main file reaches its high-water mark and stays there
    expect(Math.max(...sizes.slice(2))).toBeLessThanOrEqual(sizes[1]! * 1.05)
    // the newest events are all there
    const newest = db.prepare("SELECT max(occurred_at) FROM events").pluck().get() as number
    expect(newest).toBe(at - 1_000)
  })

  it("no events left: stops, deleting what there was, and says what is still used", () => {
    const { store } = openStore()
    writeEvents(store, T0, 500, MINUTE)
    const r = store.pruneToSize(MIN_FOR_SCHEMA_ONLY)
    expect(r.deleted).toBe(500)
    expect(r.after.usedBytes).toBeGreaterThan(MIN_FOR_SCHEMA_ONLY)
    expect(store.report({ since: T0 - HOUR, until: T0 + DAY }).total).toBe(500)
  })

  it("the daemon's prune yields to the event loop between chunks", async () => {
    const { store } = openStore()
    writeEvents(store, T0, 6_000, 30_000)
    let ticks = 0
    const timer = setInterval(() => ticks++, 0)
    try {
      const r = await Effect.runPromise(pruneToSizeEffect(store, MAX, { chunk: 200 }))
      expect(r.deleted).toBeGreaterThan(400)
      expect(r.after.usedBytes).toBeLessThanOrEqual(MAX * 0.9)
    } finally {
      clearInterval(timer)
    }
    expect(ticks).toBeGreaterThan(1)
  })
})

/** Smaller than the schema alone: every event goes and the database is still over it. */
const MIN_FOR_SCHEMA_ONLY = 4_096

describe("database.maxSize: the config", () => {
  it("reads bytes and sizes with units", () => {
    expect(parseSize(2_000_000)).toBe(2_000_000)
    expect(parseSize("500MB")).toBe(500_000_000)
    expect(parseSize("2GB")).toBe(2_000_000_000)
    expect(parseSize("2gb ")).toBe(2_000_000_000)
    expect(parseSize("512KiB")).toBe(524_288)
    expect(parseSize("10 mb")).toBe(10_000_000)
    expect(parseSize("1.5 GiB")).toBe(1.5 * 1024 ** 3)
    expect(parseSize("3000000")).toBe(3_000_000)
  })

  it("decodes to bytes; none by default", () => {
    const ok = decodeConfig({ database: { maxSize: "2MB" } })
    expect(Either.isRight(ok) && ok.right.database.maxSize).toBe(2_000_000)
    const none = decodeConfig({})
    expect(Either.isRight(none) && none.right.database.maxSize).toBeNull()
    const explicitNull = decodeConfig({ database: { maxSize: null } })
    expect(Either.isRight(explicitNull) && explicitNull.right.database.maxSize).toBeNull()
  })

  it.each([["banana"], ["12 parsecs"], [-5], [0], [1.5], [true], ["1KB"], [100], [""], ["5 MB MB"]])("refuses %j, naming database.maxSize", (v) => {
    const r = decodeConfig({ database: { maxSize: v } }, {}, "faultline.json")
    expect(Either.isLeft(r)).toBe(true)
    const message = Either.isLeft(r) ? r.left.message : ""
    expect(message).toMatch(/^invalid configuration in faultline\.json: database\.maxSize: /)
    expect(message).not.toContain("\n")
  })
})
