/** A real HTTP receiver on 127.0.0.1 that records every request and answers as told. */
import * as http from "node:http"
import type { AddressInfo } from "node:net"

export interface Received {
  readonly method: string
  readonly path: string
  readonly headers: http.IncomingHttpHeaders
  readonly body: string
  json(): any
}

export interface Receiver {
  readonly url: string
  readonly received: Received[]
  /** Decide the answer of the next requests: status, headers, or "hang". */
  respond(fn: (r: Received) => { status: number; headers?: Record<string, string>; body?: string } | "hang"): void
  close(): Promise<void>
}

export const startReceiver = async (): Promise<Receiver> => {
  const received: Received[] = []
  let answer: (r: Received) => { status: number; headers?: Record<string, string>; body?: string } | "hang" = () => ({ status: 200 })
  const hanging = new Set<http.ServerResponse>()
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on("data", (c) => chunks.push(c))
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8")
      const r: Received = { method: req.method!, path: req.url!, headers: req.headers, body, json: () => JSON.parse(body) }
      received.push(r)
      const a = answer(r)
      if (a === "hang") {
        hanging.add(res)
        return
      }
      res.writeHead(a.status, { "content-type": "application/json", ...a.headers })
      res.end(a.body ?? "{}")
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    respond: (fn) => (answer = fn),
    close: () =>
      new Promise((resolve) => {
        for (const r of hanging) r.destroy()
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}
