/**
 * The README's "Five-minute tour", run as written: the fenced ```sh block under
 * `## Five-minute tour` is read from README.md and its commands run one by one, in order, each
 * with `bash -c`, in a fresh temp folder laid out like a checkout of this package:
 *
 *   package.json   the scripts.start of this package's package.json, as is (`npm start`)
 *   dist/          -> this package's build, so `npm start` runs the built daemon
 *   fixtures/      -> this package's fixtures (the tour classifies fixtures/shapes/*.log)
 *   node_modules/.bin/faultline -> dist/src/main.js, so `npx faultline` resolves to this package
 *                  without installing anything
 *
 * The tour's daemon listens on 127.0.0.1:8787; the test gives it an ephemeral port instead:
 * FAULTLINE_PORT is set for every command and `127.0.0.1:8787` / `localhost:8787` in the commands
 * is rewritten to that port. npm's own variables (npm_*) and FAULTLINE_* of the test runner are
 * dropped from the commands' environment, so `npm start` and `npx` work on the temp folder and
 * the daemon starts from its defaults, as on a fresh checkout.
 *
 * Not run: `npm ci` (this tree is installed and built already) and `open http://…` (no
 * browser). Everything else runs, `jq` included: a missing `jq` fails the test (`.ci/run`
 * installs the Debian packages the tests need). The background command (`npm start &`) is
 * started in its own process group, killed in afterAll. Between commands the test waits for
 * conditions, never fixed sleeps: the daemon ready after `npm start &`, the appended line stored
 * as an event after the command that writes to logs/.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { categories } from "../../src/classify/Event.js"
import { cliPath, freePort, repoRoot, tempDir, waitFor } from "../support/daemon.js"

// ---------------------------------------------------------------------------------------------
// the tour, from README.md

/** The commands of the first ```sh block under `## Five-minute tour`: comments and blank lines dropped, `\` continuations joined. */
export const tourCommands = (readme: string): string[] => {
  const at = readme.search(/^## Five-minute tour\s*$/m)
  if (at === -1) throw new Error("README.md has no `## Five-minute tour` section")
  const rest = readme.slice(at).split("\n").slice(1)
  const end = rest.findIndex((l) => /^## /.test(l))
  const section = (end === -1 ? rest : rest.slice(0, end)).join("\n")
  const m = /^```(?:sh|bash|shell)\s*\n([\s\S]*?)^```\s*$/m.exec(section)
  if (m === null) throw new Error("the Five-minute tour has no ```sh block")
  const commands: string[] = []
  let pending = ""
  for (const raw of m[1]!.split("\n")) {
    const line = pending + raw
    if (/\\$/.test(line)) {
      pending = line.slice(0, -1)
      continue
    }
    pending = ""
    const cmd = stripComment(line).trim()
    if (cmd !== "") commands.push(cmd)
  }
  return commands
}

/** A shell line without its trailing `# comment` (a `#` outside quotes, at the start or after a blank). */
const stripComment = (line: string): string => {
  let quote: string | null = null
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!
    if (quote !== null) {
      if (c === quote) quote = null
      else if (c === "\\" && quote === '"') i++
    } else if (c === "'" || c === '"') quote = c
    else if (c === "\\") i++
    else if (c === "#" && (i === 0 || /\s/.test(line[i - 1]!))) return line.slice(0, i)
  }
  return line
}

const TOUR_PORT = /\b(127\.0\.0\.1|localhost):8787\b/g

// ---------------------------------------------------------------------------------------------
// running commands

interface Ran {
  readonly cmd: string
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

const run = (cmd: string, cwd: string, env: NodeJS.ProcessEnv, timeoutMs = 60_000): Promise<Ran> =>
  new Promise((resolve, reject) => {
    const p = spawn("bash", ["-c", cmd], { cwd, env, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    p.stdout.on("data", (d) => (stdout += d))
    p.stderr.on("data", (d) => (stderr += d))
    const timer = setTimeout(() => {
      p.kill("SIGKILL")
      reject(new Error(`\`${cmd}\` did not finish within ${timeoutMs} ms; stdout: ${stdout.slice(-1000)} stderr: ${stderr.slice(-1000)}`))
    }, timeoutMs)
    p.on("error", reject)
    p.on("close", (code) => {
      clearTimeout(timer)
      resolve({ cmd, code, stdout, stderr })
    })
  })

const jsonLines = (s: string): any[] =>
  s
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l))

const hasCommand = (name: string): boolean => {
  try {
    execFileSync("bash", ["-c", `command -v ${name}`], { stdio: "ignore" })
    return true
  } catch {
    return false
  }
}

// ---------------------------------------------------------------------------------------------

describe("the README's five-minute tour, run as written", { timeout: 180_000 }, () => {
  const readme = fs.readFileSync(path.join(repoRoot, "README.md"), "utf8")
  let dir: string
  let port: number
  let env: NodeJS.ProcessEnv
  let daemon: ChildProcess | null = null
  let daemonOut = ""
  let daemonExit: Promise<unknown> = Promise.resolve()

  beforeAll(async () => {
    expect(fs.existsSync(cliPath), `${cliPath} is missing: build with npx tsc -p tsconfig.build.json`).toBe(true)
    dir = tempDir("faultline-tour-")
    port = await freePort()
    const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { scripts: Record<string, string> }
    // a checkout-like folder: no `bin` of its own, so `npx faultline` takes node_modules/.bin
    fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "faultline-tour", private: true, type: "module", scripts: { start: pkg.scripts.start } }, null, 2))
    fs.symlinkSync(path.join(repoRoot, "dist"), path.join(dir, "dist"))
    fs.symlinkSync(path.join(repoRoot, "fixtures"), path.join(dir, "fixtures"))
    fs.mkdirSync(path.join(dir, "node_modules/.bin"), { recursive: true })
    fs.symlinkSync(cliPath, path.join(dir, "node_modules/.bin/faultline"))
    env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k) && !k.startsWith("FAULTLINE_")))
    env.FAULTLINE_PORT = String(port)
    env.npm_config_update_notifier = "false"
  })

  afterAll(async () => {
    if (daemon?.pid !== undefined && daemon.exitCode === null) {
      // the whole group: npm, its shell and the daemon
      try {
        process.kill(-daemon.pid, "SIGTERM")
      } catch {}
      const stopped = await Promise.race([daemonExit.then(() => true), new Promise((r) => setTimeout(() => r(false), 10_000))])
      if (!stopped) {
        try {
          process.kill(-daemon.pid, "SIGKILL")
        } catch {}
      }
    }
    if (dir !== undefined) fs.rmSync(dir, { recursive: true, force: true })
  })

  it("has the commands the tour describes, with no fixed date", () => {
    const commands = tourCommands(readme)
    expect(commands[0]).toBe("npm ci")
    expect(commands.some((c) => /^npm start\s*&$/.test(c))).toBe(true)
    expect(commands.some((c) => /^curl -s 127\.0\.0\.1:8787\/v1\/events \| jq /.test(c))).toBe(true)
    expect(commands.some((c) => /^curl -s 127\.0\.0\.1:8787\/v1\/report \| jq /.test(c))).toBe(true)
    expect(commands.filter((c) => /npx faultline classify/.test(c))).toHaveLength(2)
    expect(commands).toContain("npx faultline report --since 1h")
    // the appended line is dated when it is written: a fixed date falls out of the 24 h window
    const block = commands.join("\n")
    expect(block).not.toMatch(/\b20\d\d-\d\d-\d\d\b/)
  })

  it("runs, in order, and shows what the README says", async () => {
    expect(hasCommand("jq"), "the tour pipes into jq: install it (apt-get install -y jq)").toBe(true)
    expect(hasCommand("curl"), "the tour calls curl: install it (apt-get install -y curl)").toBe(true)
    const commands = tourCommands(readme)
    const seen = new Set<string>()
    const check = (what: string, ran: Ran, f: () => void) => {
      seen.add(what)
      expect(ran.code, `${ran.cmd}\nstdout: ${ran.stdout}\nstderr: ${ran.stderr}`).toBe(0)
      f()
    }

    for (const original of commands) {
      const cmd = original.replace(TOUR_PORT, (_, host: string) => `${host}:${port}`)

      if (cmd === "npm ci") continue // installed and built already; npm ci would reinstall this tree
      if (/^open\s+https?:\/\//.test(cmd)) continue // no browser here (page.test.ts opens the page)

      const bg = /^(.*?)\s*&$/.exec(cmd)
      if (bg !== null && !/&&$/.test(cmd)) {
        expect(daemon, "one command in the background").toBeNull()
        daemon = spawn("bash", ["-c", bg[1]!], { cwd: dir, env, detached: true, stdio: ["ignore", "pipe", "pipe"] })
        daemon.stdout!.on("data", (d) => (daemonOut += d))
        daemon.stderr!.on("data", (d) => (daemonOut += d))
        const proc = daemon
        daemonExit = new Promise((r) => proc.on("exit", r))
        await waitFor(
          `\`${original}\` to serve on port ${port}`,
          async () => {
            if (proc.exitCode !== null) throw new Error(`\`${original}\` exited with ${proc.exitCode}: ${daemonOut.slice(-2000)}`)
            const r = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => null)
            return r?.status === 200
          },
          60_000,
          50
        )
        // "prints where it listens, what it tails, where the database is"
        await waitFor("the start-up line", () => daemonOut.includes("faultline listening on"), 10_000)
        expect(daemonOut).toContain(`http://127.0.0.1:${port}`)
        expect(daemonOut).toContain("logs/**/*.log")
        expect(daemonOut).toContain(path.join("data", "faultline.db"))
        seen.add("start")
        continue
      }

      const ran = await run(cmd, dir, env)

      if (/>>?\s*logs\//.test(cmd)) {
        check("append", ran, () => expect(fs.readFileSync(path.join(dir, "logs/app.log"), "utf8")).toMatch(/HTTP 429 .*TPM limit reached/))
        // the tailer reads it and stores the event, inside the default window (the last 24 h): a
        // line dated days ago would be stored but shown nowhere
        await waitFor(
          "the appended line to be stored as an event of the last 24 h (GET /v1/events' default window)",
          async () => {
            const r = await fetch(`http://127.0.0.1:${port}/v1/events`)
            const body = (await r.json()) as { events: Array<{ rateLimitKind: string | null }> }
            return body.events.some((e) => e.rateLimitKind === "TPM")
          },
          30_000,
          50
        )
      } else if (/\/v1\/events\b.*\|\s*jq\b/.test(cmd)) {
        check("events", ran, () => {
          const shown = JSON.parse(ran.stdout)
          expect(shown).toEqual({ category: "rate_limit", rateLimitKind: "TPM", action: expect.any(String) })
          expect(shown.action.length).toBeGreaterThan(10)
        })
      } else if (/\/v1\/report\b.*\|\s*jq\b/.test(cmd)) {
        check("report", ran, () => {
          const shown = JSON.parse(ran.stdout)
          expect(Object.keys(shown).sort()).toEqual(["byCategory", "total"])
          expect(shown.total).toBeGreaterThanOrEqual(1)
          expect(shown.byCategory.rate_limit).toBeGreaterThanOrEqual(1)
        })
      } else if (/\|\s*npx faultline classify\s*$/.test(cmd)) {
        check("classify stdin", ran, () => {
          const events = jsonLines(ran.stdout)
          expect(events).toHaveLength(1)
          expect(events[0]).toMatchObject({ status: 504, message: "The upstream server is timing out", category: "overload", source: "stdin" })
        })
      } else if (/npx faultline classify --format jsonl fixtures\/shapes\/\*\.log\s*\|\s*head\s*$/.test(cmd)) {
        check("classify files", ran, () => {
          const events = jsonLines(ran.stdout)
          expect(events).toHaveLength(10)
          for (const e of events) {
            expect(categories).toContain(e.category)
            expect(e.file).toMatch(/^fixtures\/shapes\/.+\.log$/)
          }
        })
      } else if (/^npx faultline report\b/.test(cmd)) {
        check("report cli", ran, () => {
          expect(ran.stdout).toContain("faultline report")
          const total = /^(\d+) failures/m.exec(ran.stdout)
          expect(total, ran.stdout).not.toBeNull()
          expect(Number(total![1])).toBeGreaterThanOrEqual(1)
          expect(ran.stdout).toMatch(/rate_limit\s+1/)
          expect(ran.stdout).toMatch(/TPM\s+1/)
        })
      } else {
        check(`other: ${original}`, ran, () => {})
      }
    }

    expect([...seen].filter((s) => !s.startsWith("other: ")).sort()).toEqual(
      ["append", "classify files", "classify stdin", "events", "report", "report cli", "start"].sort()
    )
  })
})
