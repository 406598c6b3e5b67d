/**
 * The composition root: the one place that wires the daemon's layers together.
 *
 *   Database ─┬─ EventStore ─┐
 *             ├─ Outbox ─ AlertEngine ─┬─ Intake ─┬─ Tailer
 *             │           Relay        │          └─ HTTP (ingest)
 *             └─────────────────────── HTTP (read API, alerts, /metrics, page)
 */
import { lastFailureByModel } from "./store/lastFailures.js"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServer from "@effect/platform/HttpServer"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { Duration, Effect, Layer, Schedule } from "effect"
import * as path from "node:path"
import { AlertEngine } from "./alert/engine.js"
import { Outbox } from "./alert/outbox.js"
import { Relay } from "./alert/relay.js"
import { completeReport } from "./alert/summary.js"
import { type Config, secretValue } from "./config/Config.js"
import { parseDuration } from "./config/duration.js"
import { alertRoutes } from "./http/alertRoutes.js"
import { makeIngestHandler } from "./http/ingestRoute.js"
import { pageWindows, renderPage } from "./http/page.js"
import { readRoutes } from "./http/readRoutes.js"
import { baseRoutes, serverLayer } from "./http/Server.js"
import { pinoLoggerLayer } from "./observe/logger.js"
import { MetricsService } from "./observe/metrics.js"
import { Intake } from "./sources/Intake.js"
import { runTailer } from "./sources/tail/Tailer.js"
import { Database } from "./store/Database.js"
import { EventStoreService, pruneToSizeEffect } from "./store/EventStore.js"

export interface AppOptions {
  /** Folder that relative globs and paths are resolved against. */
  readonly cwd: string
  /** Alert evaluation period (tests shorten it). */
  readonly evaluateEvery?: Duration.DurationInput
}

const IntakeLive = Layer.scoped(
  Intake,
  Effect.gen(function* () {
    const store = yield* EventStoreService
    const alerts = yield* AlertEngine
    const metrics = yield* MetricsService
    return yield* Intake.make({ store, metrics, observe: alerts.observe })
  })
)

/** Tails the configured globs; on shutdown reads what is left, flushes and commits. */
const TailerLive = (config: Config, cwd: string) =>
  Layer.scopedDiscard(
    Effect.gen(function* () {
      const intake = yield* Intake
      const store = yield* EventStoreService
      const metrics = yield* MetricsService
      const { db } = yield* Database
      // `startAt` applies only to files present at the very first start of this database; that
      // start is recorded once the tailer has committed the checkpoints of those files
      const firstStart = db.prepare(`SELECT 1 FROM meta WHERE key = 'tail.firstStartedAt'`).get() === undefined
      const handle = yield* runTailer({
        specs: config.tail,
        cwd,
        sink: intake.commitRetrying,
        loadCheckpoint: (key) => store.checkpoint(key),
        allCheckpoints: () => store.checkpoints(),
        firstStart,
        // on a backlog, ~4% of lines are failures: 50k lines make transactions of ~2000 rows
        // (fewer commits and tailer cycles: 20k was ~8% slower on the tail bench; 75k ~4% faster
        // but peaked at 196-198 MB RSS against a 200 MB goal); only the candidate records of a
        // batch reach this thread
        maxBatchLines: 50_000
      })
      if (firstStart) db.prepare(`INSERT OR IGNORE INTO meta (key, value) VALUES ('tail.firstStartedAt', ?)`).run(new Date().toISOString())
      metrics.setSourceLag(() => handle.stats().map((s) => ({ source: s.source, lagBytes: Math.max(0, s.size - s.offset) })))
      yield* Effect.addFinalizer(() =>
        handle.drain().pipe(
          Effect.timeout(Duration.seconds(3)),
          Effect.catchAllCause((cause) => Effect.logWarning("could not drain the tailed files before stopping", cause))
        )
      )
    })
  )

/**
 * Prunes events past `retentionDays` every hour, and, with `database.maxSize`, the oldest events
 * whenever the used pages pass it (checked every few seconds: three PRAGMA reads), down to 90% of
 * it. Incidents, buckets and counters are kept. One info line and `faultline_events_pruned_total`
 * per run that deleted something.
 */
const RetentionLive = (config: Config) =>
  Layer.scopedDiscard(
    Effect.gen(function* () {
      const store = yield* EventStoreService
      const metrics = yield* MetricsService
      const mb = (n: number) => `${(n / 1e6).toFixed(1)}MB`
      yield* Effect.sync(() => {
        const before = store.size()
        const n = store.prune(Date.now(), config.database.retentionDays)
        return { n, before, after: n > 0 ? store.size() : before }
      }).pipe(
        Effect.tap(({ n, before, after }) => {
          if (n === 0) return Effect.void
          metrics.eventsPruned.inc({ reason: "age" }, n)
          return Effect.logInfo(
            `pruned ${n} events older than ${config.database.retentionDays} days (database.retentionDays); used ${mb(before.usedBytes)} -> ${mb(after.usedBytes)}`
          ).pipe(Effect.annotateLogs({ reason: "age", events: n, usedBytesBefore: before.usedBytes, usedBytesAfter: after.usedBytes, fileBytes: after.fileBytes }))
        }),
        Effect.catchAllCause((cause) => Effect.logWarning("retention pruning failed", cause)),
        Effect.delay(Duration.seconds(30)),
        Effect.repeat(Schedule.spaced(Duration.hours(1))),
        Effect.forkScoped
      )
      const maxSize = config.database.maxSize
      if (maxSize === null) return
      let warnedEmpty = false
      yield* pruneToSizeEffect(store, maxSize).pipe(
        Effect.tap(({ deleted, before, after, prunedUntil }) => {
          if (before.usedBytes <= maxSize) return Effect.void
          if (deleted > 0) metrics.eventsPruned.inc({ reason: "size" }, deleted)
          const annotations = { reason: "size", events: deleted, maxSize, usedBytesBefore: before.usedBytes, usedBytesAfter: after.usedBytes, fileBytes: after.fileBytes }
          if (deleted === 0) {
            // only incidents, buckets, alerts and tickets are left: nothing this prune may delete
            if (warnedEmpty) return Effect.void
            warnedEmpty = true
            return Effect.logWarning(`the database uses ${mb(before.usedBytes)}, over database.maxSize ${mb(maxSize)}, with no events left to prune`).pipe(Effect.annotateLogs(annotations))
          }
          warnedEmpty = false
          const until = prunedUntil === null ? "" : `, up to ${new Date(prunedUntil).toISOString()}`
          return Effect.logInfo(
            `pruned ${deleted} oldest events${until}: the database used ${mb(before.usedBytes)}, over database.maxSize ${mb(maxSize)}; now ${mb(after.usedBytes)}`
          ).pipe(Effect.annotateLogs(annotations))
        }),
        Effect.catchAllCause((cause) => Effect.logWarning("size pruning failed", cause)),
        Effect.delay(Duration.seconds(1)),
        Effect.repeat(Schedule.spaced(Duration.seconds(5))),
        Effect.forkScoped
      )
    })
  )

/** The HTTP API, listening on the configured host:port; logs the start-up line once listening. */
const HttpLive = (config: Config) =>
  Layer.unwrapEffect(
    Effect.gen(function* () {
      const store = yield* EventStoreService
      const alerts = yield* AlertEngine
      const metrics = yield* MetricsService
      const intake = yield* Intake
      const { db } = yield* Database
      metrics.setAlertGauges(alerts.gauges)
      const apiToken = secretValue(config.http.apiToken)
      const ingestToken = secretValue(config.http.ingestToken)
      const complete = (r: Parameters<typeof completeReport>[1]) => completeReport(db, r)

      const page = Effect.gen(function* () {
        const req = yield* HttpServerRequest.HttpServerRequest
        const asked = new URL(req.url, "http://x").searchParams.get("window") ?? "24h"
        const label = (pageWindows as ReadonlyArray<string>).includes(asked) ? asked : "24h"
        const until = Date.now()
        const report = complete(store.report({ since: until - parseDuration(label)!, until }))
        const firing = yield* alerts.listAlerts({ state: "firing", limit: 50 })
        // the card counts tickets not resolved: list the acknowledged ones too
        const open = yield* alerts.listTickets({ state: "open", limit: 50 })
        const acknowledged = yield* alerts.listTickets({ state: "acknowledged", limit: 50 })
        return HttpServerResponse.html(
          renderPage(report, {
            windowLabel: label,
            generatedAt: new Date(until).toISOString(),
            lastFailure: lastFailureByModel(db, report.byModel.filter((m) => m.total > 0).map((m) => m.model)),
            firingAlerts: firing.items.map((a) => ({ ...a, labels: a.labels as Record<string, unknown> })),
            openTickets: [...open.items, ...acknowledged.items]
          })
        )
      })

      const router = HttpRouter.empty.pipe(
        HttpRouter.concat(baseRoutes({ metrics, ready: () => db.open })),
        HttpRouter.concat(readRoutes({ store, completeReport: complete })),
        HttpRouter.concat(alertRoutes({ maxBodyBytes: config.http.maxBodyBytes })),
        HttpRouter.get("/", page)
      )

      const banner = Effect.gen(function* () {
        const server = yield* HttpServer.HttpServer
        const address = server.address._tag === "TcpAddress" ? `http://${server.address.hostname}:${server.address.port}` : "a unix socket"
        const globs = config.tail.map((t) => t.path).join(", ") || "nothing"
        yield* Effect.logInfo(`faultline listening on ${address}, tailing ${globs}, database ${path.resolve(config.database.path)}`).pipe(
          Effect.annotateLogs({ listen: address, tail: config.tail.map((t) => t.path), database: path.resolve(config.database.path) })
        )
      })
      const ingest = makeIngestHandler(
        {
          tokens: [apiToken, ingestToken].filter((t): t is string => t !== null),
          hmacSecret: secretValue(config.http.ingestHmacSecret),
          maxBodyBytes: config.http.maxBodyBytes,
          intake,
          metrics
        },
        yield* Effect.runtime<never>()
      )
      const fast = [{ method: "POST", path: "/v1/events", handle: ingest }]
      return serverLayer(router, { host: config.http.host, port: config.http.port, apiToken }, banner, fast)
    })
  )

/** The whole daemon as one Layer: launch it with `Layer.launch`. */
export const AppLive = (config: Config, opts: AppOptions) => {
  const DatabaseLive = Database.layer(config.database.path)
  const OutboxLive = Outbox.layer(config)
  const AlertLive = AlertEngine.layer(config, { evaluateEvery: opts.evaluateEvery }).pipe(Layer.provide(OutboxLive))
  const RelayLive = Relay.layer(config).pipe(Layer.provide(OutboxLive), Layer.provide(NodeHttpClient.layerUndici))
  const Core = Layer.mergeAll(EventStoreService.layer, AlertLive, RelayLive, MetricsService.layer).pipe(Layer.provideMerge(DatabaseLive))
  // The tailer is built first: its initial scan (and the checkpoints of files already there)
  // is done before the server listens, so "ready" means the files are being tailed. On
  // shutdown the server stops first, then the tailer reads what is left and commits.
  const Features = Layer.mergeAll(HttpLive(config), RetentionLive(config)).pipe(
    Layer.provide(TailerLive(config, opts.cwd)),
    Layer.provide(IntakeLive)
  )
  return Features.pipe(Layer.provide(Core), Layer.provide(pinoLoggerLayer(config.log.level)))
}
