/**
 * The one door into the store for every source: commit a batch (events + read position in one
 * transaction), count it in the metrics, then hand the newly stored events to alerting.
 *
 * Sources that cannot give up (the tailer) use `commitRetrying`: a busy, locked or read-only
 * database is retried with backoff and a log line, never skipped. Sources that can answer a
 * client (the webhook) use `commit` and turn a failure into 503.
 */
import { Context, Data, Duration, Effect, Layer, Schedule } from "effect"
import type { FailureEvent } from "../classify/Event.js"
import type { Metrics } from "../observe/metrics.js"
import type { EventStore } from "../store/EventStore.js"
import type { CommitResult, IngestBatch } from "./Batch.js"

export class StoreUnavailable extends Data.TaggedError("StoreUnavailable")<{ readonly message: string }> {}

export interface IntakeApi {
  readonly commit: (batches: ReadonlyArray<IngestBatch>) => Effect.Effect<CommitResult, StoreUnavailable>
  readonly commitRetrying: (batch: IngestBatch) => Effect.Effect<void>
}

export class Intake extends Context.Tag("faultline/Intake")<Intake, IntakeApi>() {
  static readonly make = (deps: {
    readonly store: EventStore
    readonly metrics: Metrics
    readonly observe: (events: ReadonlyArray<FailureEvent>) => Effect.Effect<void>
  }): IntakeApi => {
    const commit = (batches: ReadonlyArray<IngestBatch>) =>
      Effect.try({
        try: () => deps.store.commit(batches),
        catch: (e) => new StoreUnavailable({ message: e instanceof Error ? e.message : String(e) })
      }).pipe(
        Effect.tap((result) =>
          Effect.sync(() => {
            // failures are counted once: spread the inserted events over their batches by source
            for (const b of batches) {
              const inserted = batches.length === 1 ? result.inserted : result.inserted.filter((e) => b.events.includes(e))
              deps.metrics.recordBatch(b.source, b.linesRead, b.ignored, inserted)
            }
          })
        ),
        Effect.tap((result) =>
          result.inserted.length === 0
            ? Effect.void
            : deps.observe(result.inserted).pipe(Effect.catchAllCause((cause) => Effect.logError("alerting failed for a batch", cause)))
        ),
        Effect.tapError((e) =>
          Effect.sync(() => deps.metrics.ingestErrors.inc({ reason: "store_unavailable" })).pipe(
            Effect.zipRight(Effect.logWarning("could not commit a batch; will retry", { error: e.message }))
          )
        )
      )
    // 100 ms doubling, capped at 5 s between tries; forever: the tailer waits for the disk
    const retry = Schedule.exponential(Duration.millis(100), 2).pipe(Schedule.either(Schedule.spaced(Duration.seconds(5))))
    return {
      commit,
      commitRetrying: (batch) => commit([batch]).pipe(Effect.retry(retry), Effect.asVoid, Effect.orDie)
    }
  }

  static readonly layer = (deps: Parameters<typeof Intake.make>[0]) => Layer.succeed(Intake, Intake.make(deps))
}
