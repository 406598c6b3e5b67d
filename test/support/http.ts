/** HTTP helpers shared by the e2e tests: a read-everything answer, and raw-socket exchanges. */
import * as net from "node:net"

export interface Answer {
  readonly status: number
  readonly headers: Headers
  readonly text: string
  readonly body: any
}

/** A fetch Response read whole; `body` is the parsed JSON or null. */
export const answer = async (r: Response): Promise<Answer> => {
  const text = await r.text()
  let body: unknown = null
  try {
    body = JSON.parse(text)
  } catch {
    body = null
  }
  return { status: r.status, headers: r.headers, text, body }
}

/**
 * Write `bytes` on a raw socket to 127.0.0.1:`port` and read the first HTTP answer (status and
 * body by Content-Length) — for requests fetch will not send (lying lengths, half bodies).
 */
export const rawExchange = (port: number, bytes: Buffer, timeoutMs = 15_000): Promise<{ status: number; body: string; all: string }> =>
  new Promise((resolve, reject) => {
    const sock = net.connect(port, "127.0.0.1")
    let received = Buffer.alloc(0)
    let settled = false
    const settle = (f: () => void) => {
      if (settled) return
      settled = true
      sock.destroy()
      f()
    }
    const tryParse = (final: boolean) => {
      const text = received.toString("latin1")
      const end = text.indexOf("\r\n\r\n")
      const m = /^HTTP\/1\.1 (\d{3}) /.exec(text)
      if (end === -1 || m === null) {
        if (final) settle(() => reject(new Error(`no HTTP answer on the socket (got ${JSON.stringify(text.slice(0, 200))})`)))
        return
      }
      const length = /\r\ncontent-length: *(\d+)/i.exec(text.slice(0, end))
      const payload = received.subarray(end + 4)
      if (final || (length !== null && payload.length >= Number(length[1]))) {
        const body = payload.subarray(0, length === null ? payload.length : Number(length[1])).toString("utf8")
        settle(() => resolve({ status: Number(m[1]), body, all: text }))
      }
    }
    sock.on("data", (c: Buffer) => {
      received = Buffer.concat([received, c])
      tryParse(false)
    })
    sock.on("error", () => tryParse(true))
    sock.on("close", () => tryParse(true))
    sock.setTimeout(timeoutMs, () => settle(() => reject(new Error(`no answer within ${timeoutMs} ms`))))
    sock.write(bytes)
  })
