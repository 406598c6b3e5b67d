/**
 * faultline's own HTTP answers: JSON everywhere, errors as
 * `{"error": {"code": <string>, "message": <string>}}` with a fitting status (CONTRACT section 6).
 *
 * Route handlers fail with `HttpFailure`; the server turns it into the error body once,
 * in one place (http/Server.ts).
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as IncomingMessage from "@effect/platform/HttpIncomingMessage"
import { Data, Effect, Option, ParseResult, Schema } from "effect"

export type ErrorCode =
  | "bad_request"
  | "bad_json"
  | "bad_query"
  | "unauthorized"
  | "not_found"
  | "payload_too_large"
  | "unsupported_media_type"
  | "not_ready"
  | "conflict"
  | "internal"

export class HttpFailure extends Data.TaggedError("HttpFailure")<{
  readonly status: number
  readonly code: ErrorCode
  readonly message: string
  readonly headers?: Record<string, string>
  /** Extra top-level fields of the error body (e.g. per-record `rejected`). */
  readonly extra?: Record<string, unknown>
}> {}

export const json = (body: unknown, status = 200) => HttpServerResponse.unsafeJson(body, { status })

/** The body of every error answer. */
export const errorBody = (f: HttpFailure) => ({ error: { code: f.code, message: f.message }, ...f.extra })

export const errorResponse = (f: HttpFailure) => HttpServerResponse.unsafeJson(errorBody(f), { status: f.status, headers: f.headers ?? {} })

/** One readable line out of a Schema decode failure: `limit: Expected ...`. */
export const formatParseError = (e: ParseResult.ParseError): string =>
  ParseResult.ArrayFormatter.formatErrorSync(e)
    .slice(0, 3)
    // a reason quotes the sender's value: short, never the body echoed back
    .map((i) => cut(`${i.path.length ? i.path.join(".") + ": " : ""}${i.message}`, 300))
    .join("; ")

const cut = (s: string, max: number): string => (s.length > max ? s.slice(0, max - 1) + "…" : s)

/**
 * A JSON body decoded with `schema`, under the same limits as `POST /v1/events`: 415 for a
 * content type that is not JSON, 413 past `maxBodyBytes` (announced or read), 400 with a short
 * reason for bad JSON or a bad shape.
 */
export const readJsonBody = <A, I>(schema: Schema.Schema<A, I>, maxBodyBytes: number) =>
  Effect.gen(function* () {
    const req = yield* HttpServerRequest.HttpServerRequest
    const ct = (req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase()
    if (ct !== "application/json" && !ct.endsWith("+json")) {
      const message = `content type ${JSON.stringify(cut(req.headers["content-type"] ?? "(none)", 100))} is not readable: send application/json`
      return yield* Effect.fail(new HttpFailure({ status: 415, code: "unsupported_media_type", message }))
    }
    const tooLarge = new HttpFailure({
      status: 413,
      code: "payload_too_large",
      message: `body is larger than http.maxBodyBytes (${maxBodyBytes} bytes)`,
      headers: { connection: "close" }
    })
    const announced = Number(req.headers["content-length"] ?? "0")
    if (announced > maxBodyBytes) return yield* Effect.fail(tooLarge)
    const text = yield* req.text.pipe(
      IncomingMessage.withMaxBodySize(Option.some(maxBodyBytes)),
      Effect.mapError((e) => (String((e as { cause?: { message?: string } }).cause?.message ?? "").includes("maxBytes") ? tooLarge : new HttpFailure({ status: 400, code: "bad_request", message: "the body could not be read" })))
    )
    let raw: unknown
    try {
      raw = JSON.parse(text)
    } catch {
      return yield* Effect.fail(new HttpFailure({ status: 400, code: "bad_json", message: "the body is not valid JSON" }))
    }
    return yield* Schema.decodeUnknown(schema, { onExcessProperty: "error" })(raw).pipe(
      Effect.mapError((e) => new HttpFailure({ status: 400, code: "bad_request", message: formatParseError(e) }))
    )
  })

/** Decode the query string with a Schema; a bad query fails with 400 `bad_query` and the reason. */
export const decodeQuery = <A, I extends Readonly<Record<string, string | ReadonlyArray<string> | undefined>>>(
  schema: Schema.Schema<A, I>
) =>
  HttpServerRequest.schemaSearchParams(schema).pipe(
    Effect.mapError((e) => new HttpFailure({ status: 400, code: "bad_query", message: formatParseError(e) }))
  )

export const notFound = (what: string) => new HttpFailure({ status: 404, code: "not_found", message: `${what} not found` })
