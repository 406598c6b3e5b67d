/**
 * Reads a request body straight from the Node request, bounded by `maxBytes`.
 * (The Effect body helpers cost an order of magnitude on the ingest route: MEASURED.md.)
 */
import type * as http from "node:http"
import { Effect } from "effect"
import { HttpFailure } from "./respond.js"

export const readBody = (req: http.IncomingMessage, maxBytes: number): Effect.Effect<Buffer, HttpFailure> =>
  Effect.async<Buffer, HttpFailure>((resume) => {
    const declared = Number(req.headers["content-length"])
    if (Number.isFinite(declared) && declared > maxBytes) {
      req.resume()
      resume(Effect.fail(tooLarge(maxBytes)))
      return
    }
    const chunks: Buffer[] = []
    let size = 0
    let done = false
    const finish = (r: Effect.Effect<Buffer, HttpFailure>) => {
      if (done) return
      done = true
      req.off("data", onData)
      req.off("end", onEnd)
      req.off("error", onError)
      resume(r)
    }
    const onData = (c: Buffer) => {
      size += c.length
      if (size > maxBytes) {
        req.resume() // discard the rest; the response closes the connection
        finish(Effect.fail(tooLarge(maxBytes)))
        return
      }
      chunks.push(c)
    }
    const onEnd = () => finish(Effect.succeed(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)))
    const onError = (e: Error) => finish(Effect.fail(new HttpFailure({ status: 400, code: "bad_request", message: `could not read the body: ${e.message}` })))
    req.on("data", onData)
    req.on("end", onEnd)
    req.on("error", onError)
    if (req.readableEnded) onEnd()
  })

const tooLarge = (max: number) =>
  new HttpFailure({ status: 413, code: "payload_too_large", message: `body is larger than http.maxBodyBytes (${max} bytes)`, headers: { connection: "close" } })
