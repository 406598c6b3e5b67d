/**
 * The one door into the store for every source: commit a batch (events + read position in one
 * transaction), count it in the metrics, then hand the newly stored events to alerting.
 *
 * Group commit: one writer fiber takes whatever batches are waiting (webhook requests arriving
 * together, the tailer's next batch) and commits them in one SQLite transaction, so fifty
 * concurrent webhook requests cost one commit, not fifty; alerting looks at the group once.
 * A lone request is committed at once — nothing waits for company.
 *
 * Sources that cannot give up (the tailer) use `commitRetrying`: a busy, locked or read-only
 * database is retried with backoff and a log line, never skipped. Sources that can answer a
 * client (the webhook) use `commit` and turn a failure into 503.
 */
import { Context, Data, Deferred, Duration, Effect, Exit, Layer, Queue, Schedule, type Scope } from "effect"
import type { FailureEvent } from "../classify/Event.js"
import type { Metrics } from "../observe/metrics.js"
import type { EventStore } from "../store/EventStore.js"
import { type CommitResult, countedCalls, type IngestBatch } from "./Batch.js"

export class StoreUnavailable extends Data.TaggedError("StoreUnavailable")<{ readonly message: string }> {}

export interface IntakeApi {
  readonly commit: (batch: IngestBatch) => Effect.Effect<CommitResult, StoreUnavailable>
  readonly commitRetrying: (batch: IngestBatch) => Effect.Effect<void>
  /**
   * The same door for a caller outside Effect (the ingest route's plain node:http handler):
   * `done` is called once with the result. Returns false, without calling `done`, when the
   * queue is full — the caller tells its client to retry.
   */
  readonly submit: (batch: IngestBatch, done: (result: CommitResult | StoreUnavailable) => void) => boolean
}

export interface IntakeDeps {
  readonly store: EventStore
  readonly metrics: Metrics
  readonly observe: (events: ReadonlyArray<FailureEvent>) => Effect.Effect<void>
}

interface Waiting {
  readonly batch: IngestBatch
  readonly done: (result: CommitResult | StoreUnavailable) => void
}

/** Most commit requests taken into one transaction. */
const MAX_GROUP = 256

/** Resumes after the event loop's I/O phase (setImmediate), not after a timer. */
const nextTurn = Effect.async<void>((resume) => {
  const t = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(t))
})

const unavailable = (e: unknown) => new StoreUnavailable({ message: e instanceof Error ? e.message : String(e) })

export class Intake extends Context.Tag("faultline/Intake")<Intake, IntakeApi>() {
  static readonly make = (deps: IntakeDeps): Effect.Effect<IntakeApi, never, Scope.Scope> =>
    Effect.gen(function* () {
      const queue = yield* Queue.bounded<Waiting>(1024)
      yield* Effect.addFinalizer(() => Queue.shutdown(queue))
      /**
       * One store commit for the whole group, so the store aggregates the report series and
       * incidents over all of it (fifty events of one fingerprint: one upsert, not fifty);
       * each waiting sender then gets its own share of the result.
       */
      const groupCommit = (group: ReadonlyArray<Waiting>): Array<CommitResult> => {
        if (group.length === 1) return [deps.store.commit([group[0]!.batch])]
        const all = deps.store.commit(group.map((w) => w.batch))
        const inserted = new Set(all.inserted)
        return group.map((w) => {
          const mine = w.batch.events.filter((e) => inserted.has(e))
          const result = { inserted: mine, duplicates: w.batch.events.length - mine.length }
          return all.repeatedCallPosts === undefined ? result : { ...result, repeatedCallPosts: all.repeatedCallPosts }
        })
      }

      /** One transaction for the group; if it fails, each member alone, so one bad batch fails only itself. */
      const commitGroup = (group: ReadonlyArray<Waiting>): Array<CommitResult | StoreUnavailable> => {
        try {
          return groupCommit(group)
        } catch (e) {
          if (group.length === 1) return [unavailable(e)]
          return group.map((w) => {
            try {
              return deps.store.commit([w.batch])
            } catch (e1) {
              return unavailable(e1)
            }
          })
        }
      }

      const writer = Effect.gen(function* () {
        const first = yield* Queue.take(queue)
        // Let the I/O that is already waiting (other webhook requests read in this event-loop
        // turn) reach the queue first: requests arrive one per socket callback, so without this
        // turn a group would almost always be one request, and a commit costs ~100 µs however
        // small it is. An idle daemon loses a few microseconds, not a timer's worth.
        yield* nextTurn
        const rest = yield* Queue.takeUpTo(queue, MAX_GROUP - 1)
        const group = [first, ...rest]
        const results = commitGroup(group)
        const inserted: FailureEvent[] = []
        for (const [i, w] of group.entries()) {
          const r = results[i]!
          if (r instanceof StoreUnavailable) continue
          deps.metrics.recordBatch(w.batch.source, w.batch.linesRead, w.batch.ignored, r.inserted, countedCalls(w.batch, r))
          for (const e of r.inserted) inserted.push(e)
        }
        if (inserted.length > 0) {
          yield* deps.observe(inserted).pipe(Effect.catchAllCause((cause) => Effect.logError("alerting failed for a batch", cause)))
        }
        for (const [i, w] of group.entries()) {
          const r = results[i]!
          if (r instanceof StoreUnavailable) deps.metrics.ingestErrors.inc({ reason: "store_unavailable" })
          try {
            w.done(r)
          } catch (e) {
            yield* Effect.logError("a commit's sender failed on its answer", e)
          }
        }
      })
      yield* writer.pipe(Effect.forever, Effect.forkScoped)

      const commit = (batch: IngestBatch): Effect.Effect<CommitResult, StoreUnavailable> =>
        Effect.gen(function* () {
          const done = yield* Deferred.make<CommitResult, StoreUnavailable>()
          const answer = (r: CommitResult | StoreUnavailable) =>
            Deferred.unsafeDone(done, r instanceof StoreUnavailable ? Exit.fail(r) : Exit.succeed(r))
          yield* Queue.offer(queue, { batch, done: answer })
          return yield* Deferred.await(done)
        })
      // 100 ms doubling, capped at 5 s between tries; forever: the tailer waits for the disk
      const retry = Schedule.exponential(Duration.millis(100), 2).pipe(Schedule.either(Schedule.spaced(Duration.seconds(5))))
      return {
        commit: (batch) =>
          commit(batch).pipe(
            Effect.tapError((e) =>
              Effect.logWarning("could not commit a batch; the sender is told to retry", { source: batch.source, error: e.message })
            )
          ),
        commitRetrying: (batch) =>
          commit(batch).pipe(
            Effect.tapError((e) => Effect.logWarning("could not commit a batch; will retry", { source: batch.source, error: e.message })),
            Effect.retry(retry),
            Effect.asVoid,
            Effect.orDie
          ),
        submit: (batch, done) => Queue.unsafeOffer(queue, { batch, done })
      }
    })

  static readonly layer = (deps: IntakeDeps) => Layer.scoped(Intake, Intake.make(deps))
}
