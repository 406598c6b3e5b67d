/**
 * Test helpers for alerting: FailureEvent builder (no parser), configs, a temp SQLite file,
 * the engine/outbox/relay layers, a recording HTTP receiver on 127.0.0.1 and polling waits.
 */
import { NodeHttpClient } from "@effect/platform-node"
import type BetterSqlite3 from "better-sqlite3"
import { Context, Effect, Either, Layer, type Scope } from "effect"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { AlertEngine, type AlertEngineApi, type AlertEngineOptions } from "../../src/alert/engine.js"
import { Outbox } from "../../src/alert/outbox.js"
import { Relay } from "../../src/alert/relay.js"
import type { Category, FailureEvent, RateLimitKind } from "../../src/classify/Event.js"
import { type Config, decodeConfig } from "../../src/config/Config.js"
import { Database } from "../../src/store/Database.js"

export const T0 = Date.parse("2026-11-21T10:00:00.000Z")
export const iso = (ms: number) => new Date(ms).toISOString()

const defaults: Record<Category, { status: number | null; code: number | string | null; message: string; action: string }> = {
  model_not_found: { status: 400, code: 20012, message: "Model does not exist. Please check it carefully.", action: "Correct the model parameter." },
  invalid_request: { status: 400, code: 20015, message: "max_tokens is too large", action: "Correct the request parameters according to message." },
  auth_key: { status: 401, code: null, message: "Invalid token", action: "Fix the API key." },
  auth_realname: { status: 403, code: 30011, message: "The model requires real-name authentication", action: "Complete real-name authentication of the account." },
  permission: { status: 403, code: 30001, message: "Permission denied", action: "Read message; fix the permission it names." },
  quota: { status: 402, code: 30002, message: "Insufficient balance", action: "Top up or raise the quota; retrying will not help." },
  rate_limit: { status: 429, code: 50603, message: "Request was rejected due to rate limiting. Details: TPM limit reached.", action: "Slow down or wait: the tokens-per-minute limit was hit." },
  overload: { status: 503, code: 50505, message: "Model service overloaded. Please try again later.", action: "Retry later with backoff; use stream: true." },
  server_error: { status: 500, code: 50500, message: "Internal server error", action: "Escalate to the operator: a ticket is opened." },
  transport: { status: null, code: null, message: "connect ECONNREFUSED 10.0.0.7:443", action: "Check the network path; if a proxy is enabled, disable it and retry." },
  unknown: { status: 404, code: null, message: "Not Found", action: "Read message; look at the raw sample." }
}

let seq = 0

/** A FailureEvent as the classifier would make it (fingerprint: category, kind, status, code, model, service, message). */
export const event = (over: Partial<FailureEvent> & { readonly at?: number } = {}): FailureEvent => {
  const category = over.category ?? "rate_limit"
  const d = defaults[category]
  const at = over.at ?? T0
  const base = {
    id: `evt_test_${process.pid}_${++seq}`,
    occurredAt: iso(at),
    ingestedAt: iso(at),
    source: "webhook",
    line: null,
    service: "chat-api" as string | null,
    status: d.status,
    code: d.code,
    message: d.message as string | null,
    model: "Qwen/Qwen2.5-7B-Instruct" as string | null,
    requestId: null,
    endpoint: "https://api.example.com/v1/chat/completions" as string | null,
    stream: false as boolean | null,
    category,
    rateLimitKind: (category === "rate_limit" ? "TPM" : null) as RateLimitKind | null,
    severity: category === "server_error" || category === "auth_key" || category === "quota" ? ("critical" as const) : ("warning" as const),
    retryable: ["rate_limit", "overload", "transport", "server_error"].includes(category),
    action: d.action,
    fingerprint: "",
    bodyNotJson: false,
    provider: null as string | null,
    sample: `HTTP ${d.status} {"code":${JSON.stringify(d.code)},"message":${JSON.stringify(d.message)},"data":null}`
  }
  const { at: _at, ...rest } = over
  const e = { ...base, ...rest, ...(over.at === undefined ? {} : { occurredAt: iso(at), ingestedAt: iso(at) }) }
  const fingerprint =
    over.fingerprint ??
    createHash("sha1").update(JSON.stringify([e.category, e.rateLimitKind, e.status, e.code, e.model, e.service, e.message])).digest("hex").slice(0, 16)
  return { ...e, fingerprint }
}

export const config = (raw: Record<string, unknown>): Config => Either.getOrThrow(decodeConfig(raw))

export const tempDir = (): string => fs.mkdtempSync(path.join(os.tmpdir(), "faultline-alert-"))
export const tempDb = (): string => path.join(tempDir(), "faultline.db")

export interface Harness {
  readonly engine: AlertEngineApi
  readonly db: BetterSqlite3.Database
}

/** Engine + outbox (+ relay with a real HTTP client when `relay`) over the SQLite file, in the current scope. */
export const harness = (
  cfg: Config,
  file: string,
  opts: AlertEngineOptions & { readonly relay?: boolean } = {}
): Effect.Effect<Harness, unknown, Scope.Scope> =>
  Effect.gen(function* () {
    const base = Layer.provideMerge(Outbox.layer(cfg), Database.layer(file))
    const engine = Layer.provideMerge(AlertEngine.layer(cfg, opts), base)
    const all = opts.relay === true ? Layer.provideMerge(Relay.layer(cfg).pipe(Layer.provide(NodeHttpClient.layerUndici)), engine) : engine
    const ctx = yield* Layer.build(all)
    return { engine: Context.get(ctx, AlertEngine), db: Context.get(ctx, Database).db }
  })

// ---------------------------------------------------------------------------------------------
// A recording receiver

export interface Recorded {
  readonly method: string
  readonly path: string
  readonly headers: http.IncomingHttpHeaders
  readonly body: string
  readonly at: number
}

export type Behaviour =
  | { readonly status: number; readonly headers?: Record<string, string>; readonly body?: string }
  | "hang"

export interface TestReceiver {
  readonly url: string
  readonly port: number
  readonly requests: Array<Recorded>
  /** Decide the answer to the n-th request (0-based). Default: 200 "ok". */
  respond: (req: Recorded, n: number) => Behaviour
  readonly close: () => Promise<void>
}

export const startReceiver = (port = 0): Promise<TestReceiver> =>
  new Promise((resolve, reject) => {
    const requests: Array<Recorded> = []
    const hanging = new Set<http.ServerResponse>()
    const state: { respond: TestReceiver["respond"] } = { respond: () => ({ status: 200, body: "ok" }) }
    const server = http.createServer((req, res) => {
      const chunks: Array<Buffer> = []
      req.on("data", (c: Buffer) => chunks.push(c))
      req.on("end", () => {
        const r: Recorded = { method: req.method ?? "", path: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8"), at: Date.now() }
        requests.push(r)
        const b = state.respond(r, requests.length - 1)
        if (b === "hang") {
          hanging.add(res)
          return
        }
        res.writeHead(b.status, { "content-type": "text/plain", ...(b.headers ?? {}) })
        res.end(b.body ?? "")
      })
    })
    server.on("error", reject)
    server.listen(port, "127.0.0.1", () => {
      const p = (server.address() as AddressInfo).port
      resolve({
        url: `http://127.0.0.1:${p}`,
        port: p,
        requests,
        get respond() {
          return state.respond
        },
        set respond(f) {
          state.respond = f
        },
        close: () =>
          new Promise<void>((done) => {
            for (const res of hanging) res.destroy()
            server.closeAllConnections()
            server.close(() => done())
          })
      })
    })
  })

/** A receiver for the test's scope. */
export const receiver = (port = 0): Effect.Effect<TestReceiver, never, Scope.Scope> =>
  Effect.acquireRelease(Effect.promise(() => startReceiver(port)), (r) => Effect.promise(() => r.close()))

/** A port nobody listens on (for a receiver that is down). */
export const freePort = (): Promise<number> =>
  new Promise((resolve) => {
    const s = http.createServer()
    s.listen(0, "127.0.0.1", () => {
      const p = (s.address() as AddressInfo).port
      s.close(() => resolve(p))
    })
  })

/** Polls a condition (real time) until it holds; fails with `what` after `timeoutMs`. */
export const waitFor = <A>(what: string, f: () => A | undefined | null | false, timeoutMs = 20_000): Effect.Effect<A> =>
  Effect.gen(function* () {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const v = f()
      if (v !== undefined && v !== null && v !== false) return v
      if (Date.now() > deadline) return yield* Effect.die(new Error(`timed out waiting for ${what}`))
      yield* Effect.promise(() => new Promise((r) => setTimeout(r, 20)))
    }
  })

export interface OutboxRowLite {
  readonly id: string
  readonly receiver: string
  readonly kind: string
  readonly status: string
  readonly reason: string
  readonly state: string
  readonly attempts: number
  readonly ref_id: string
  readonly order_key: string
  readonly created_at: number
  readonly payload: string
}

export const outboxRows = (db: BetterSqlite3.Database): Array<OutboxRowLite> =>
  db.prepare(`SELECT * FROM outbox ORDER BY seq`).all() as Array<OutboxRowLite>

/** Stores events the way 001_core.sql lays them out (for the diagnosis queries). */
export const storeEvents = (db: BetterSqlite3.Database, events: ReadonlyArray<FailureEvent>): void => {
  const stmt = db.prepare(
    `INSERT INTO events (id, occurred_at, ingested_at, source, line, service, status, code, message, model, request_id, endpoint, stream,
                         category, rate_limit_kind, severity, retryable, action, fingerprint, body_not_json, sample)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
  )
  db.transaction(() => {
    for (const e of events) {
      stmt.run(
        e.id, Date.parse(e.occurredAt), Date.parse(e.ingestedAt), e.source, e.line, e.service, e.status, e.code, e.message, e.model, e.requestId,
        e.endpoint, e.stream === null ? null : e.stream ? 1 : 0, e.category, e.rateLimitKind, e.severity, e.retryable ? 1 : 0, e.action,
        e.fingerprint, e.bodyNotJson ? 1 : 0, e.sample
      )
    }
  })()
}
