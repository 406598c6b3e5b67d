/**
 * Prometheus metrics of CONTRACT section 9 (prom-client). Label cardinality is bounded:
 * the first `maxValues` models and services seen keep their names, the rest fold into `other`.
 */
import { Context, Layer } from "effect"
import client from "prom-client"
import type { FailureEvent } from "../classify/Event.js"
import type { CallCount } from "../sources/Batch.js"

class Capped {
  private readonly seen = new Set<string>()
  constructor(private readonly max: number) {}
  label(v: string | null): string {
    if (v === null || v === "") return "none"
    if (this.seen.has(v)) return v
    if (this.seen.size >= this.max) return "other"
    this.seen.add(v)
    return v
  }
}

/**
 * The events of one fingerprint with the same labels: a fingerprint fixes category, kind, status
 * and model, but not the provider, nor the service when a source's configured one stands in.
 */
interface FingerprintGroup {
  readonly event: FailureEvent
  n: number
}

export interface AlertGaugeSources {
  readonly alertsFiring: () => ReadonlyArray<{ rule: string; count: number }>
  readonly notifications: () => ReadonlyArray<{ receiver: string; outcome: string; count: number }>
  readonly outboxPending: () => number
  readonly ticketsOpen: () => number
}

export class Metrics {
  readonly registry = new client.Registry()
  private readonly models: Capped
  private readonly services: Capped
  private readonly providers: Capped
  private readonly sourcesCap: Capped
  private readonly failures: client.Counter<"category" | "rate_limit_kind" | "status" | "model" | "service" | "provider">
  private readonly calls: client.Counter<"model" | "service" | "provider" | "outcome">
  private readonly linesRead: client.Counter<"source">
  private readonly linesIgnored: client.Counter<"source">
  readonly ingestErrors: client.Counter<"reason">
  readonly webhookRequests: client.Counter<"outcome">
  /** Events deleted by retention: `age` (database.retentionDays) or `size` (database.maxSize). */
  readonly eventsPruned: client.Counter<"reason">
  private gauges: AlertGaugeSources | null = null
  private sourceLag: () => ReadonlyArray<{ source: string; lagBytes: number }> = () => []

  constructor(maxValues = 50) {
    this.models = new Capped(maxValues)
    this.services = new Capped(maxValues)
    this.providers = new Capped(maxValues)
    this.sourcesCap = new Capped(maxValues * 2)
    const registers = [this.registry]
    this.failures = new client.Counter({
      name: "faultline_failures_total",
      help: "Failed LLM API calls stored, by classification.",
      labelNames: ["category", "rate_limit_kind", "status", "model", "service", "provider"],
      registers
    })
    this.calls = new client.Counter({
      name: "faultline_calls_total",
      help: "Calls of the LLM API seen, failed and successful (outcome ok or failed).",
      labelNames: ["model", "service", "provider", "outcome"],
      registers
    })
    this.linesRead = new client.Counter({ name: "faultline_lines_read_total", help: "Log lines (and webhook records) read.", labelNames: ["source"], registers })
    this.linesIgnored = new client.Counter({ name: "faultline_lines_ignored_total", help: "Records read that are not failed calls.", labelNames: ["source"], registers })
    this.ingestErrors = new client.Counter({ name: "faultline_ingest_errors_total", help: "Ingest problems (bad webhook bodies, unreadable files, store errors).", labelNames: ["reason"], registers })
    this.webhookRequests = new client.Counter({ name: "faultline_webhook_requests_total", help: "POST /v1/events requests by outcome.", labelNames: ["outcome"], registers })
    this.eventsPruned = new client.Counter({ name: "faultline_events_pruned_total", help: "Events pruned, by reason (age: database.retentionDays, size: database.maxSize).", labelNames: ["reason"], registers })
    for (const reason of ["age", "size"]) this.eventsPruned.inc({ reason }, 0)
    const self = this
    new client.Gauge({
      name: "faultline_source_lag_bytes",
      help: "Bytes of a tailed file not yet read.",
      labelNames: ["source"],
      registers,
      collect() {
        this.reset()
        for (const s of self.sourceLag()) this.set({ source: self.sourcesCap.label(s.source) }, s.lagBytes)
      }
    })
    new client.Gauge({
      name: "faultline_alerts_firing",
      help: "Alerts firing, by rule.",
      labelNames: ["rule"],
      registers,
      collect() {
        this.reset()
        for (const a of self.gauges?.alertsFiring() ?? []) this.set({ rule: a.rule }, a.count)
      }
    })
    new client.Counter({
      name: "faultline_notifications_total",
      help: "Notifications by receiver and outcome.",
      labelNames: ["receiver", "outcome"],
      registers,
      collect() {
        this.reset()
        for (const n of self.gauges?.notifications() ?? []) this.inc({ receiver: n.receiver, outcome: n.outcome }, n.count)
      }
    })
    new client.Gauge({
      name: "faultline_outbox_pending",
      help: "Notifications waiting for delivery.",
      registers,
      collect() {
        this.set(self.gauges?.outboxPending() ?? 0)
      }
    })
    new client.Gauge({
      name: "faultline_tickets_open",
      help: "Escalation tickets open (or acknowledged).",
      registers,
      collect() {
        this.set(self.gauges?.ticketsOpen() ?? 0)
      }
    })
    client.collectDefaultMetrics({ register: this.registry, prefix: "faultline_" })
  }

  setAlertGauges(g: AlertGaugeSources): void {
    this.gauges = g
  }

  setSourceLag(f: () => ReadonlyArray<{ source: string; lagBytes: number }>): void {
    this.sourceLag = f
  }

  recordBatch(source: string, linesRead: number, ignored: number, inserted: ReadonlyArray<FailureEvent>, calls: ReadonlyArray<CallCount> = []): void {
    const s = this.sourcesCap.label(source)
    if (linesRead > 0) this.linesRead.inc({ source: s }, linesRead)
    if (ignored > 0) this.linesIgnored.inc({ source: s }, ignored)
    // one inc per label set: prom-client hashes the labels on every call. A storm's events are
    // grouped by fingerprint first (its few label sets compared in place), so that a key is built
    // once per group, not once per event
    const groups = new Map<string, FingerprintGroup[]>()
    for (const e of inserted) {
      let list = groups.get(e.fingerprint)
      if (list === undefined) groups.set(e.fingerprint, (list = []))
      let g: FingerprintGroup | undefined
      for (const x of list) {
        if (x.event.provider === e.provider && x.event.category === e.category && x.event.rateLimitKind === e.rateLimitKind && x.event.status === e.status && x.event.model === e.model && x.event.service === e.service) {
          g = x
          break
        }
      }
      if (g === undefined) list.push({ event: e, n: 1 })
      else g.n++
    }
    const counts = new Map<string, { labels: Record<string, string>; n: number }>()
    const failed: Array<Pick<CallCount, "service" | "model" | "provider" | "ok" | "failed">> = []
    for (const list of groups.values()) {
      for (const { event: e, n } of list) {
        const model = this.models.label(e.model)
        const service = this.services.label(e.service)
        const provider = this.providers.label(e.provider)
        const key = `${e.category}\u0000${e.rateLimitKind}\u0000${e.status}\u0000${model}\u0000${service}\u0000${provider}`
        const c = counts.get(key)
        if (c !== undefined) c.n += n
        else {
          const labels = { category: e.category, rate_limit_kind: e.rateLimitKind ?? "none", status: e.status === null ? "none" : String(e.status), model, service, provider }
          counts.set(key, { labels, n })
        }
        failed.push({ service: e.service, model: e.model, provider: e.provider, ok: 0, failed: n })
      }
    }
    for (const { labels, n } of counts.values()) this.failures.inc(labels, n)
    this.recordCalls(calls.length === 0 ? failed : [...calls, ...failed])
  }

  /** faultline_calls_total: `calls` as counted (recordBatch adds each stored event as a failed call). */
  recordCalls(calls: ReadonlyArray<Pick<CallCount, "service" | "model" | "provider" | "ok" | "failed">>): void {
    const counts = new Map<string, { labels: Record<string, string>; n: number }>()
    const add = (model: string | null, service: string | null, provider: string | null, outcome: "ok" | "failed", n: number) => {
      if (n <= 0) return
      const labels = { model: this.models.label(model), service: this.services.label(service), provider: this.providers.label(provider), outcome }
      const key = `${labels.model}\u0000${labels.service}\u0000${labels.provider}\u0000${outcome}`
      const c = counts.get(key)
      if (c !== undefined) c.n += n
      else counts.set(key, { labels, n })
    }
    for (const c of calls) {
      add(c.model, c.service, c.provider, "ok", c.ok)
      add(c.model, c.service, c.provider, "failed", c.failed)
    }
    for (const { labels, n } of counts.values()) this.calls.inc(labels, n)
  }

  text(): Promise<string> {
    return this.registry.metrics()
  }

  readonly contentType = client.Registry.PROMETHEUS_CONTENT_TYPE
}

export class MetricsService extends Context.Tag("faultline/Metrics")<MetricsService, Metrics>() {
  static readonly layer = Layer.sync(MetricsService, () => new Metrics())
}
