/**
 * Start faultline as a user does: the built CLI, a temp folder, a config file, an ephemeral port.
 */
import { spawn, type ChildProcess } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"

export const repoRoot = path.resolve(import.meta.dirname, "../..")
export const cliPath = path.join(repoRoot, "dist/src/main.js")

export const tempDir = (prefix = "faultline-"): string => fs.mkdtempSync(path.join(os.tmpdir(), prefix))

export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const srv = net.createServer()
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as net.AddressInfo).port
      srv.close(() => resolve(port))
    })
    srv.on("error", reject)
  })

/** Wait for a condition, polling; fails with `what` after `timeoutMs`. Never a fixed sleep. */
export const waitFor = async <A>(what: string, probe: () => Promise<A | undefined | null | false> | A | undefined | null | false, timeoutMs = 20_000, everyMs = 25): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  let last: unknown
  for (;;) {
    try {
      const v = await probe()
      if (v !== undefined && v !== null && v !== false) return v as A
    } catch (e) {
      last = e
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${String(last)}` : ""}`)
    await new Promise((r) => setTimeout(r, everyMs))
  }
}

export interface Daemon {
  readonly dir: string
  readonly port: number
  readonly url: string
  readonly configPath: string
  readonly proc: ChildProcess
  stdout(): string
  stderr(): string
  /** JSON lines the daemon logged. */
  logs(): Array<Record<string, unknown>>
  fetch(p: string, init?: RequestInit & { token?: string }): Promise<Response>
  json<A = any>(p: string, init?: RequestInit & { token?: string }): Promise<A>
  kill9(): Promise<void>
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; ms: number }>
}

export interface StartOptions {
  readonly dir?: string
  readonly config?: Record<string, unknown>
  readonly env?: Record<string, string>
  readonly port?: number
  readonly apiToken?: string
}

export const runCli = (args: ReadonlyArray<string>, opts: { cwd?: string; input?: string; env?: Record<string, string> } = {}) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const p = spawn(process.execPath, [cliPath, ...args], { cwd: opts.cwd ?? repoRoot, env: { ...process.env, ...opts.env } })
    let stdout = ""
    let stderr = ""
    p.stdout.on("data", (d) => (stdout += d))
    p.stderr.on("data", (d) => (stderr += d))
    p.on("close", (code) => resolve({ code, stdout, stderr }))
    p.stdin.end(opts.input ?? "")
  })

export const startDaemon = async (opts: StartOptions = {}): Promise<Daemon> => {
  const dir = opts.dir ?? tempDir()
  const port = opts.port ?? (await freePort())
  const configPath = path.join(dir, "faultline.json")
  const config = {
    database: { path: path.join(dir, "data/faultline.db") },
    tail: [{ path: path.join(dir, "logs/**/*.log"), startAt: "beginning" }],
    ...opts.config,
    http: { host: "127.0.0.1", port, ...((opts.config?.http as object) ?? {}) }
  }
  fs.writeFileSync(configPath, JSON.stringify(config, null, 2))
  const proc = spawn(process.execPath, [cliPath, "serve", "--config", configPath], {
    cwd: dir,
    env: { ...process.env, FAULTLINE_LOG_LEVEL: "debug", ...opts.env },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let out = ""
  let err = ""
  proc.stdout!.on("data", (d) => (out += d))
  proc.stderr!.on("data", (d) => (err += d))
  const url = `http://127.0.0.1:${port}`
  const doFetch = (p: string, init: RequestInit & { token?: string } = {}) => {
    const headers = new Headers(init.headers)
    const token = init.token ?? opts.apiToken
    if (token && !headers.has("authorization")) headers.set("authorization", `Bearer ${token}`)
    return fetch(url + p, { ...init, headers, signal: AbortSignal.timeout(15_000) })
  }
  const exited = new Promise<number | null>((resolve) => proc.on("exit", (code) => resolve(code)))
  const d: Daemon = {
    dir,
    port,
    url,
    configPath,
    proc,
    stdout: () => out,
    stderr: () => err,
    logs: () =>
      out
        .split("\n")
        .filter((l) => l.startsWith("{"))
        .map((l) => {
          try {
            return JSON.parse(l) as Record<string, unknown>
          } catch {
            return {}
          }
        }),
    fetch: doFetch,
    json: async (p, init) => {
      const r = await doFetch(p, init)
      const body = await r.text()
      if (!r.ok) throw new Error(`${p}: ${r.status} ${body}`)
      return JSON.parse(body)
    },
    kill9: async () => {
      proc.kill("SIGKILL")
      await exited
    },
    stop: async (signal = "SIGTERM") => {
      const t0 = Date.now()
      proc.kill(signal)
      const code = await exited
      return { code, ms: Date.now() - t0 }
    }
  }
  // Ready when THIS daemon says it listens (its start-up line) and /readyz answers: a free port
  // can be taken by another test's server between freePort() and the bind, and then /readyz
  // alone would be answered by that one. A port lost that way is picked again.
  let lostPort = false
  await waitFor(
    `faultline to be ready on ${url} (stderr: ${err.slice(-500)})`,
    async () => {
      if (proc.exitCode !== null) {
        if (opts.port === undefined && /EADDRINUSE/.test(out + err)) return (lostPort = true)
        throw new Error(`faultline exited with ${proc.exitCode}: ${err}${out.slice(-2000)}`)
      }
      if (!out.includes("faultline listening on")) return false
      const r = await fetch(url + "/readyz").catch(() => null)
      return r?.status === 200
    },
    30_000
  )
  return lostPort ? startDaemon(opts.dir === undefined ? { ...opts, dir } : opts) : d
}
