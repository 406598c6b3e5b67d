/**
 * Ratio and burn-rate rules (CONTRACT section 7) over a real SQLite file, time driven by
 * TestClock: calls are counted as the store counts them (every stored failure a failed call,
 * the successes beside them), and the rules fire and resolve on the events' own time.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, TestClock } from "effect"
import type BetterSqlite3 from "better-sqlite3"
import { resolveRules } from "../../src/alert/rules.js"
import type { FailureEvent } from "../../src/classify/Event.js"
import { CallCounts } from "../../src/store/CallCounts.js"
import { minuteOf } from "../../src/sources/Batch.js"
import { diagnosedEvent, formatDiagnosis } from "../../src/ticket/diagnosis.js"
import { config, event, harness, outboxRows, storeEvents, T0, tempDb } from "./helpers.js"

const MIN = 60_000
const HOUR_MS = 60 * MIN
const A = "Qwen/Qwen2.5-7B-Instruct"
const B = "deepseek-ai/DeepSeek-V3"

/** The rules, with the built-in count rule of overloads off unless a test names it. */
const cfg = (rules: ReadonlyArray<Record<string, unknown>>) =>
  config({
    receivers: [{ name: "hook", type: "webhook", url: "http://127.0.0.1:9/hook" }],
    defaultReceivers: ["hook"],
    rules: rules.some((r) => r["name"] === "overloaded") ? rules : [...rules, { name: "overloaded", disabled: true }]
  })

/**
 * One minute of traffic of `model` at `at`: `failed` overloads (stored events, each a failed
 * call) and `ok` successful calls, counted as the store's commit counts them.
 */
const minute = (db: BetterSqlite3.Database, at: number, model: string, ok: number, failed: number): FailureEvent[] => {
  const events = Array.from({ length: failed }, (_, i) => event({ category: "overload", at: at + i * 10, model }))
  new CallCounts(db).record([{ minute: minuteOf(at), service: "chat-api", model, provider: null, ok, failed: 0 }], events)
  return events
}

const reasons = (db: BetterSqlite3.Database) => outboxRows(db).map((r) => [r.reason, JSON.parse(r.payload).groupKey])

describe("ratio rules", () => {
  const rules = [{ name: "failing-calls", category: "overload", ratio: 0.2, minCalls: 20, window: "5m", groupBy: ["model"], resolveAfter: "2m" }]

  it.scoped("fire when failures / calls of the group reach the ratio, and resolve when it falls back, on the events' own time", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(T0)
      const { engine, db } = yield* harness(cfg(rules), tempDb())
      // 10 failures in 100 calls of A, and 5 in 10 of B (fewer than minCalls): nothing
      yield* engine.observe(minute(db, T0, A, 90, 10))
      yield* engine.observe(minute(db, T0, B, 5, 5))
      expect(outboxRows(db)).toEqual([])

      // the next minute A gets worse: 10 + 30 failures in 100 + 40 calls = 29%
      yield* TestClock.adjust(MIN)
      yield* engine.observe(minute(db, T0 + MIN, A, 10, 30))
      expect(reasons(db)).toEqual([["firing", 'failing-calls{model="Qwen/Qwen2.5-7B-Instruct"}']])
      const fired = JSON.parse(outboxRows(db)[0]!.payload)
      expect(fired).toMatchObject({ count: 40, calls: 140, threshold: 0.2, window: "5m", labels: { alertname: "failing-calls", category: "overload", model: A } })
      expect(fired.failureRatio).toBeCloseTo(40 / 140, 10)
      const [alert] = (yield* engine.listAlerts({ state: "firing", limit: 10 })).items
      expect(alert).toMatchObject({ count: 40, calls: 140, threshold: 0.2 })

      // A recovers: successes only; the failures leave the 5m window at T0 + 6m, resolved 2m later
      for (let m = 2; m <= 9; m++) {
        yield* TestClock.adjust(MIN)
        minute(db, T0 + m * MIN, A, 200, 0)
      }
      yield* TestClock.adjust(5_000)
      expect(reasons(db)).toEqual([
        ["firing", 'failing-calls{model="Qwen/Qwen2.5-7B-Instruct"}'],
        ["resolved", 'failing-calls{model="Qwen/Qwen2.5-7B-Instruct"}']
      ])
    })
  )

  it.scoped("a ratio of busy traffic does not fire where an absolute count would, and a quiet service's few failures wait for minCalls", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(T0)
      const { engine, db } = yield* harness(cfg([...rules, { name: "overloaded", threshold: 10, window: "5m", groupBy: ["model"] }]), tempDb())
      // 30 failures in 10 000 calls: the built-in count pages, the ratio does not
      yield* engine.observe(minute(db, T0, A, 9_970, 30))
      expect(reasons(db)).toEqual([["firing", 'overloaded{model="Qwen/Qwen2.5-7B-Instruct"}']])
      // 3 failures in 3 calls: 100%, but below minCalls
      yield* engine.observe(minute(db, T0, B, 0, 3))
      expect(reasons(db)).toHaveLength(1)
    })
  )

  it.scoped("without calls seen a ratio rule waits; built-in count rules page as before", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(T0)
      const { engine, db } = yield* harness(cfg([...rules, { name: "overloaded", threshold: 10, window: "5m", groupBy: ["model"] }]), tempDb())
      // failures reach the engine, but no call was ever counted (no store in between)
      yield* engine.observe(Array.from({ length: 50 }, (_, i) => event({ category: "overload", at: T0 - i, model: A })))
      expect(reasons(db)).toEqual([["firing", 'overloaded{model="Qwen/Qwen2.5-7B-Instruct"}']])
    })
  )
})

describe("slo rules (multi-window, multi-burn-rate)", () => {
  const slo = [{ name: "chat-slo", slo: { objective: 0.99, windows: [["1h", "5m", 14.4], ["6h", "30m", 6]] }, groupBy: ["model"], minCalls: 50, resolveAfter: "5m" }]

  it.scoped("fires on a fast burn (20% of calls failing for 10 minutes)", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(T0)
      const { engine, db } = yield* harness(cfg(slo), tempDb())
      for (let m = 0; m < 10; m++) {
        yield* engine.observe(minute(db, T0 + m * MIN, A, 80, 20))
        yield* TestClock.adjust(MIN)
      }
      expect(reasons(db)).toEqual([["firing", 'chat-slo{model="Qwen/Qwen2.5-7B-Instruct"}']])
      const fired = JSON.parse(outboxRows(db)[0]!.payload)
      // any category counts; the threshold is the error budget
      expect(fired.labels).toMatchObject({ alertname: "chat-slo", category: "any", model: A })
      expect(fired.threshold).toBeCloseTo(0.01, 10)
      expect(fired.failureRatio).toBeCloseTo(0.2, 10)
    })
  )

  it.scoped("does not fire on a slow burn that stays within budget (0.5% for 6 hours), nor on a short spike the long window absorbs", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(T0)
      // evaluated once a minute here (every 5 s in the daemon): six hours of minutes stay quick
      const { engine, db } = yield* harness(cfg(slo), tempDb(), { evaluateEvery: "1 minute" })
      for (let m = 0; m < 6 * 60; m++) {
        const at = T0 + m * MIN
        // 1 failure in 200 calls a minute (burning at 0.5x); one bad minute (150 of 200) at 3h: the
        // 5m window burns at ~15x, past 14.4, but its 1h window at ~1.7x: no page
        yield* engine.observe(m === 180 ? minute(db, at, A, 50, 150) : minute(db, at, A, 199, 1))
        yield* TestClock.adjust(MIN)
      }
      expect(reasons(db)).toEqual([])
    })
  )

  it("checks its form when the config loads: one of threshold, ratio and slo; windows short within long", () => {
    const bad = (spec: Record<string, unknown>) => {
      const r = resolveRules([{ name: "x", ...spec } as never])
      return Either.isLeft(r) ? r.left.message : "accepted"
    }
    expect(bad({ category: "overload", threshold: 3, ratio: 0.1 })).toMatch(/one of threshold, ratio and slo/)
    expect(bad({ threshold: 3 })).toMatch(/needs a category/)
    expect(bad({ category: "overload", minCalls: 5 })).toMatch(/minCalls goes with ratio or slo/)
    expect(bad({ slo: { objective: 0.99, windows: [["5m", "1h", 14.4]] } })).toMatch(/slo\.windows/)
    expect(bad({ ratio: 0.05 })).toBe("accepted")
    // a built-in turned into a ratio rule leaves its threshold behind
    const r = Either.getOrThrow(resolveRules([{ name: "overloaded", ratio: 0.1 } as never])).find((x) => x.name === "overloaded")!
    expect(r.mode).toEqual({ _tag: "ratio", ratio: 0.1, minCalls: 10 })
    expect(r.threshold).toBe(0.1)
  })
})

describe("model health in the diagnosis", () => {
  it.scoped("says how the event's model and the service's other models did, and tries the healthiest one in the second curl", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(T0)
      const { db } = yield* harness(cfg([]), tempDb())
      const C = "THUDM/glm-4-9b-chat"
      // in the hour before: A fails 40 of 100, B 5 of 100, C 0 of 50; D belongs to another service
      const events = [...minute(db, T0 - 30 * MIN, A, 60, 40), ...minute(db, T0 - 20 * MIN, B, 95, 5)]
      minute(db, T0 - 10 * MIN, C, 50, 0)
      new CallCounts(db).record([{ minute: minuteOf(T0 - 5 * MIN), service: "batch-jobs", model: "D", provider: null, ok: 500, failed: 0 }], [])
      // the event: A fails again, now
      const e = event({ category: "overload", at: T0, model: A })
      storeEvents(db, [...events, e])
      const diagnosed = diagnosedEvent(db, e)
      const d = diagnosed.diagnosis
      // the event's model first, then the others by calls (D is of another service)
      expect(diagnosed.modelHealth!.map((h) => [h.model, h.calls, h.failed])).toEqual([[A, 100, 40], [B, 100, 5], [C, 50, 0]])
      // a ticket's diagnosis keeps the contract's keys; the figures are in its summary
      expect(Object.keys(d).sort()).toEqual(["curl", "curlOtherModel", "hints", "otherModelsAffected", "summary"])
      expect(d.summary).toContain(`this model ${A}: 40 of 100 calls failed (40%)`)
      expect(d.summary).toContain(`${C}: 0 of 50 calls failed (0%)`)
      expect(d.curlOtherModel).toContain(`"model":"${C}"`)
      expect(formatDiagnosis(diagnosed)).toContain("Calls in the hour before the event (service chat-api):")
    })
  )

  it.scoped("without calls counted, the diagnosis is as before: no health, the model the failures suggest", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(T0)
      const { db } = yield* harness(cfg([]), tempDb())
      const e = event({ category: "overload", at: T0, model: A })
      storeEvents(db, [e, event({ category: "rate_limit", at: T0 - 2 * HOUR_MS, model: B })])
      const { diagnosis: d, modelHealth } = diagnosedEvent(db, e)
      expect(modelHealth).toEqual([])
      expect(d.summary).not.toContain("calls failed")
      expect(d.curlOtherModel).toContain(`"model":"${B}"`)
    })
  )
})
