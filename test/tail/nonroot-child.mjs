/**
 * What nonroot.ts runs as an unprivileged user, from the built sources (dist/):
 * - `discover <base>`: walks `base` for every line read on stdin, prints the Discovery;
 * - `tailer <json {cwd, specs}>`: runs the tailer (its scan worker too) on a memory store and
 *   prints JSON lines: {t:"ready"}, {t:"log",level,message}, {t:"batch",linesRead,events},
 *   {t:"drained"} after each "drain" line read on stdin. Ends when stdin closes.
 * A file, not `node -e`: a worker thread inherits `-e <script>` from process.execArgv.
 */
import { Effect, Exit, Logger, Scope } from "effect"
import * as path from "node:path"
import * as readline from "node:readline"

const dist = path.resolve(import.meta.dirname, "../../dist/src/sources/tail")
const out = (o) => process.stdout.write(JSON.stringify(o) + "\n")
const [mode, arg] = process.argv.slice(2)
// created once ready: readline drops the lines that arrive before it is iterated
const lines = () => readline.createInterface({ input: process.stdin })

if (mode === "discover") {
  const { discover } = await import(path.join(dist, "discover.js"))
  for await (const _ of lines()) out(await Effect.runPromise(discover(arg)))
} else if (mode === "tailer") {
  const { runTailer } = await import(path.join(dist, "Tailer.js"))
  const { cwd, specs } = JSON.parse(arg)
  const checkpoints = new Map()
  const sink = (batch) =>
    Effect.sync(() => {
      if (batch.checkpoint !== null) checkpoints.set(batch.checkpoint.key, batch.checkpoint)
      out({ t: "batch", linesRead: batch.linesRead, events: batch.events.map((e) => ({ sample: e.sample, line: e.line, source: e.source })) })
    })
  const logger = Logger.make(({ logLevel, message }) => out({ t: "log", level: logLevel.label, message: String(Array.isArray(message) ? message[0] : message) }))
  const scope = Effect.runSync(Scope.make())
  const handle = await Effect.runPromise(
    runTailer({
      specs,
      cwd,
      sink,
      firstStart: true,
      loadCheckpoint: (k) => checkpoints.get(k) ?? null,
      allCheckpoints: () => [...checkpoints.values()],
      idleFlushMs: 100,
      pollIntervalMs: 200,
      rescanIntervalMs: 200
    }).pipe(Effect.provide(Logger.replace(Logger.defaultLogger, logger)), Scope.extend(scope))
  )
  out({ t: "ready" })
  for await (const line of lines()) {
    if (line === "drain") {
      await Effect.runPromise(handle.drain())
      out({ t: "drained" })
    }
  }
  await Effect.runPromise(Scope.close(scope, Exit.void))
} else {
  throw new Error(`unknown mode ${mode}`)
}
