/**
 * Reads a request body straight from the Node request, bounded by `maxBytes`.
 * (The Effect body helpers cost an order of magnitude on the ingest route: MEASURED.md.)
 */
import type * as http from "node:http"
import { HttpFailure } from "./respond.js"

/** `then` is called once, with the body or the failure to answer. */
export const readBody = (req: http.IncomingMessage, maxBytes: number, then: (result: Buffer | HttpFailure) => void): void => {
  const declared = Number(req.headers["content-length"])
  if (Number.isFinite(declared) && declared > maxBytes + DISCARD_LIMIT) {
    req.resume()
    then(tooLarge(maxBytes))
    return
  }
  const chunks: Buffer[] = []
  let size = 0
  let done = false
  const finish = (r: Buffer | HttpFailure) => {
    if (done) return
    done = true
    req.off("data", onData)
    req.off("end", onEnd)
    req.off("error", onError)
    then(r)
  }
  let overflow = false
  const onData = (c: Buffer) => {
    size += c.length
    if (overflow) {
      // a client still sending gets its 413 once it has finished (not EPIPE half-way),
      // unless it sends far more than allowed: then it is cut off
      if (size > maxBytes + DISCARD_LIMIT) finish(tooLarge(maxBytes))
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
    finish(overflow ? tooLarge(maxBytes) : chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size))
  const onError = (e: Error) => finish(new HttpFailure({ status: 400, code: "bad_request", message: `could not read the body: ${e.message}` }))
  req.on("data", onData)
  req.on("end", onEnd)
  req.on("error", onError)
  if (req.readableEnded) onEnd()
}

/** How much of an oversized body is read (and thrown away) before the 413 is sent anyway. */
const DISCARD_LIMIT = 8 * 1024 * 1024

const tooLarge = (max: number) =>
  new HttpFailure({ status: 413, code: "payload_too_large", message: `body is larger than http.maxBodyBytes (${max} bytes)`, headers: { connection: "close" } })
