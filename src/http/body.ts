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
    if (Number.isFinite(declared) && declared > maxBytes + DISCARD_LIMIT) {
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
    let overflow = false
    const onData = (c: Buffer) => {
      size += c.length
      if (overflow) {
        // a client still sending gets its 413 once it has finished (not EPIPE half-way),
        // unless it sends far more than allowed: then it is cut off
        if (size > maxBytes + DISCARD_LIMIT) finish(Effect.fail(tooLarge(maxBytes)))
        return
      }
      if (size > maxBytes) {
        overflow = true
        chunks.length = 0
        return
      }
      chunks.push(c)
    }
    const onEnd = () =>
      finish(overflow ? Effect.fail(tooLarge(maxBytes)) : Effect.succeed(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)))
    const onError = (e: Error) => finish(Effect.fail(new HttpFailure({ status: 400, code: "bad_request", message: `could not read the body: ${e.message}` })))
    req.on("data", onData)
    req.on("end", onEnd)
    req.on("error", onError)
    if (req.readableEnded) onEnd()
  })

/** How much of an oversized body is read (and thrown away) before the 413 is sent anyway. */
const DISCARD_LIMIT = 8 * 1024 * 1024

const tooLarge = (max: number) =>
  new HttpFailure({ status: 413, code: "payload_too_large", message: `body is larger than http.maxBodyBytes (${max} bytes)`, headers: { connection: "close" } })
