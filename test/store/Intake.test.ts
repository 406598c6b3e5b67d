/**
 * The Intake's door for callers outside Effect (`submit`, used by the ingest route's plain
 * node:http handler), over a real SQLite file: a full queue refuses at once (the route answers
 * 503 + Retry-After) and loses nothing it accepted; one turn of the event loop gathers the
 * submissions into group commits.
 */
import { Effect, Exit, Scope } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import type { FailureEvent } from "../../src/classify/Event.js"
import type { CommitResult } from "../../src/sources/Batch.js"
import { Intake, type IntakeApi, StoreUnavailable } from "../../src/sources/Intake.js"
import { Metrics } from "../../src/observe/metrics.js"
import { batch, ev, openStore } from "./fixtures.js"

const T0 = Date.now() - 60_000

const scopes: Array<Scope.CloseableScope> = []
afterEach(async () => {
  for (const s of scopes.splice(0)) await Effect.runPromise(Scope.close(s, Exit.void))
})

const startIntake = async (observed: Array<ReadonlyArray<FailureEvent>>): Promise<{ intake: IntakeApi; count: () => number }> => {
  const { store, db } = openStore()
  const scope = Effect.runSync(Scope.make())
  scopes.push(scope)
  const intake = await Effect.runPromise(
    Intake.make({ store, metrics: new Metrics(), observe: (events) => Effect.sync(() => void observed.push(events)) }).pipe(Scope.extend(scope))
  )
  return { intake, count: () => (db.prepare("SELECT count(*) AS n FROM events").get() as { n: number }).n }
}

describe("Intake.submit", () => {
  it("refuses at once when its queue is full, and stores every batch it accepted, once", async () => {
    const observed: Array<ReadonlyArray<FailureEvent>> = []
    const { intake, count } = await startIntake(observed)
    const results = new Map<number, CommitResult | StoreUnavailable>()
    let accepted = 0
    let refused = 0
    // all in one turn: the writer cannot take anything before the loop turns
    for (let i = 0; i < 1500; i++) {
      const ok = intake.submit(batch([ev({ at: T0 + i, id: `evt-${i}` })], { source: "webhook", checkpoint: null }), (r) => results.set(i, r))
      if (ok) accepted++
      else refused++
    }
    expect(refused).toBeGreaterThan(0)
    expect(accepted).toBeGreaterThanOrEqual(1024)
    const deadline = Date.now() + 30_000
    while (results.size < accepted && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10))
    expect(results.size).toBe(accepted)
    for (const r of results.values()) expect(r).toMatchObject({ inserted: [expect.anything()], duplicates: 0 })
    expect(count()).toBe(accepted)
    // gathered into group commits, not one commit per submission
    expect(observed.length).toBeLessThan(accepted / 10)
    expect(observed.flat()).toHaveLength(accepted)
  })
})
