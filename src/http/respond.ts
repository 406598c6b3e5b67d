/**
 * faultline's own HTTP answers: JSON everywhere, errors as
 * `{"error": {"code": <string>, "message": <string>}}` with a fitting status (CONTRACT section 6).
 *
 * Route handlers fail with `HttpFailure`; the server turns it into the error body once,
 * in one place (http/Server.ts).
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Data, Effect, ParseResult, Schema } from "effect"

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
    .map((i) => `${i.path.length ? i.path.join(".") + ": " : ""}${i.message}`)
    .join("; ")

/** Decode the query string with a Schema; a bad query fails with 400 `bad_query` and the reason. */
export const decodeQuery = <A, I extends Readonly<Record<string, string | ReadonlyArray<string> | undefined>>>(
  schema: Schema.Schema<A, I>
) =>
  HttpServerRequest.schemaSearchParams(schema).pipe(
    Effect.mapError((e) => new HttpFailure({ status: 400, code: "bad_query", message: formatParseError(e) }))
  )

export const notFound = (what: string) => new HttpFailure({ status: 404, code: "not_found", message: `${what} not found` })
