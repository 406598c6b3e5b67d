/**
 * The HTTP server: routes of CONTRACT section 6, auth around them, faultline's error body for
 * every failure, server timeouts against slow clients. Built as a Layer by the composition root.
 */
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServer from "@effect/platform/HttpServer"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Effect, Layer } from "effect"
import * as http from "node:http"
import type { Metrics } from "../observe/metrics.js"
import { checkTokens } from "./auth.js"
import { openApiDocument } from "./openapi.js"
import { isPagePath } from "./page.js"
import { pageRoutes } from "./pageRoutes.js"
import { errorResponse, HttpFailure, json } from "./respond.js"

export interface ServerOptions {
  readonly host: string
  readonly port: number
  readonly apiToken: string | null
}

export interface BaseRouteOptions {
  readonly metrics: Metrics
  /** Database open and migrations applied. */
  readonly ready: () => boolean
}

const OPEN_PATHS = new Set(["/healthz", "/readyz", "/metrics"])

/** `apiToken` guards every route but the open ones; POST /v1/events checks its own tokens. */
const withAuth = (apiToken: string | null) =>
  HttpMiddleware.make((app) =>
    Effect.gen(function* () {
      if (apiToken === null) return yield* app
      const req = yield* HttpServerRequest.HttpServerRequest
      const path = req.url.split("?")[0]!
      if (OPEN_PATHS.has(path) || (path === "/v1/events" && req.method === "POST")) return yield* app
      const page = isPagePath(path)
      const verdict = checkTokens([apiToken], req.headers["authorization"], page)
      if (verdict === "ok") return yield* app
      return errorResponse(
        new HttpFailure({
          status: 401,
          code: "unauthorized",
          message: verdict === "missing" ? "send Authorization: Bearer <api token>" : "the token is not valid",
          headers: page ? { "www-authenticate": 'Basic realm="faultline"' } : {}
        })
      )
    })
  )

/** Every failure becomes `{"error": {...}}`; an unexpected one is a 500 with a log line. */
const withErrors = HttpMiddleware.make((app) =>
  app.pipe(
    Effect.catchAll((e: unknown) => {
      if (e instanceof HttpFailure) return Effect.succeed(errorResponse(e))
      if ((e as { _tag?: string })?._tag === "RouteNotFound") {
        return Effect.succeed(errorResponse(new HttpFailure({ status: 404, code: "not_found", message: "no such route" })))
      }
      if ((e as { _tag?: string })?._tag === "RequestError") {
        return Effect.succeed(errorResponse(new HttpFailure({ status: 400, code: "bad_request", message: String((e as Error).message ?? e) })))
      }
      return Effect.logError("request failed", e).pipe(
        Effect.as(errorResponse(new HttpFailure({ status: 500, code: "internal", message: "internal error" })))
      )
    }),
    Effect.catchAllDefect((d) =>
      Effect.logError("request failed with a defect", d).pipe(
        Effect.as(errorResponse(new HttpFailure({ status: 500, code: "internal", message: "internal error" })))
      )
    )
  )
)

export const baseRoutes = (opts: BaseRouteOptions) =>
  HttpRouter.empty.pipe(
    HttpRouter.get("/healthz", Effect.succeed(json({ status: "ok" }))),
    HttpRouter.get(
      "/readyz",
      Effect.sync(() =>
        opts.ready()
          ? json({ status: "ready" })
          : errorResponse(new HttpFailure({ status: 503, code: "not_ready", message: "database not open or migrations not applied" }))
      )
    ),
    HttpRouter.get(
      "/metrics",
      Effect.promise(() => opts.metrics.text()).pipe(
        Effect.map((text) => HttpServerResponse.text(text, { contentType: opts.metrics.contentType }))
      )
    ),
    HttpRouter.get("/openapi.json", Effect.sync(() => json(openApiDocument))),
    // the detail pages the report page (`GET /`, App.ts) links to
    HttpRouter.concat(pageRoutes)
  )

/** A plain node:http handler for one method and path, served ahead of the Effect router. */
export interface FastRoute {
  readonly method: string
  readonly path: string
  readonly handle: (req: http.IncomingMessage, res: http.ServerResponse) => void
}

/**
 * node:http's server, with `fast` routes answered before the request reaches the Effect
 * handler (which platform-node attaches as the "request" listener).
 */
class FastRouteServer extends http.Server {
  constructor(
    options: http.ServerOptions,
    private readonly fast: ReadonlyArray<FastRoute>
  ) {
    super(options)
  }

  override emit(event: string | symbol, ...args: Array<unknown>): boolean {
    if (event === "request" && this.fast.length > 0) {
      const req = args[0] as http.IncomingMessage
      const url = req.url ?? ""
      const q = url.indexOf("?")
      const path = q === -1 ? url : url.slice(0, q)
      for (const route of this.fast) {
        if (route.method === req.method && route.path === path) {
          route.handle(req, args[1] as http.ServerResponse)
          return true
        }
      }
    }
    return (super.emit as (event: string | symbol, ...args: Array<unknown>) => boolean).call(this, event, ...args)
  }
}

/** Serve a router on host:port with faultline's middleware; `onListening` runs once it listens. */
export const serverLayer = <E, R, R2>(
  router: HttpRouter.HttpRouter<E, R>,
  opts: ServerOptions,
  onListening: Effect.Effect<void, never, R2>,
  fast: ReadonlyArray<FastRoute> = []
) =>
  Layer.mergeAll(
    router.pipe(withErrors, withAuth(opts.apiToken), HttpServer.serve(), HttpMiddleware.withTracerDisabledWhen(() => true)),
    Layer.effectDiscard(onListening)
  ).pipe(
    Layer.provide(
      NodeHttpServer.layer(
        () => {
          const server = new FastRouteServer({ requestTimeout: 30_000, headersTimeout: 10_000, keepAliveTimeout: 5_000 }, fast)
          server.maxHeadersCount = 100
          // requests Node refuses before any route sees them still get faultline's JSON error
          server.on("clientError", (err: NodeJS.ErrnoException, socket) => {
            if (!socket.writable || (err as { code?: string }).code === "ECONNRESET") return socket.destroy()
            const [status, code, message] =
              err.code === "HPE_HEADER_OVERFLOW"
                ? [431, "bad_request", "request headers are too large"]
                : err.code === "ERR_HTTP_REQUEST_TIMEOUT"
                  ? [408, "bad_request", "the request took too long to arrive"]
                  : [400, "bad_request", "malformed HTTP request"]
            const body = JSON.stringify({ error: { code, message } })
            socket.end(
              `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`
            )
          })
          return server
        },
        { host: opts.host, port: opts.port }
      )
    )
  )
