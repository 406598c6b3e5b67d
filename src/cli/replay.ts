/**
 * `faultline replay FILE...`: backfill whole files into the database through the same
 * pipeline as the tailer (no watching), print a summary, exit. Replaying the same file twice
 * stores its timestamped records once: their event ids derive from the file identity, the byte
 * offset, the text and the record's own time. A record without a timestamp of its own takes the
 * time it is read, so a second replay stores it again (the tailer relies on that to never merge
 * two identical lines written at the same offset after a truncation).
 */
import { Args, Command } from "@effect/cli"
import { Effect } from "effect"
import * as fs from "node:fs"
import { replayFile } from "../sources/tail/Tailer.js"
import { EventStore } from "../store/EventStore.js"
import type { Category } from "../classify/Event.js"
import { usageError } from "./CliError.js"
import { configOption, loadConfigOrFail, withDatabase } from "./common.js"

const files = Args.text({ name: "FILE" }).pipe(Args.atLeast(1), Args.withDescription("Log files to ingest once"))

const progressBar = (file: string, done: number, total: number, t0: number, records: number): string => {
  const secs = (Date.now() - t0) / 1000
  const rate = secs > 0 ? records / secs : 0
  const pct = total > 0 ? done / total : 1
  const eta = pct > 0 && pct < 1 ? ((secs / pct) * (1 - pct)).toFixed(0) + "s" : "-"
  const mb = (n: number) => (n / 1048576).toFixed(1)
  return `\r${file}: ${mb(done)}/${mb(total)} MB ${(pct * 100).toFixed(0)}%  ${Math.round(rate)} records/s  ETA ${eta}   `
}

export const replayCommand = Command.make("replay", { config: configOption, files }, (o) =>
  Effect.gen(function* () {
    const config = yield* loadConfigOrFail(o.config)
    for (const f of o.files) if (!fs.existsSync(f) || !fs.statSync(f).isFile()) return yield* usageError(`FILE: ${f} is not a readable file`)
    const tty = process.stderr.isTTY === true
    const t0 = Date.now()
    const byCategory: Partial<Record<Category, number>> = {}
    let lines = 0
    let failures = 0
    let ignored = 0
    let stored = 0
    let duplicates = 0
    yield* withDatabase(config, false, (db) =>
      Effect.gen(function* () {
        const store = new EventStore(db)
        for (const file of o.files) {
          let lastDraw = 0
          const r = yield* replayFile(file, (batch) =>
            Effect.sync(() => {
              const res = store.commit([batch])
              stored += res.inserted.length
              duplicates += res.duplicates
              for (const e of batch.events) byCategory[e.category] = (byCategory[e.category] ?? 0) + 1
            }), {
            onProgress: (done, total) => {
              if (!tty || Date.now() - lastDraw < 200) return
              lastDraw = Date.now()
              process.stderr.write(progressBar(file, done, total, t0, lines + done / 100))
            }
          })
          if (tty) process.stderr.write("\r\x1b[K")
          lines += r.lines
          failures += r.failures
          ignored += r.ignored
        }
      })
    )
    const secs = (Date.now() - t0) / 1000
    const cats = Object.entries(byCategory).sort((a, b) => b[1] - a[1]).map(([c, n]) => `${c}=${n}`).join(" ")
    process.stdout.write(
      `replayed ${o.files.length} file${o.files.length === 1 ? "" : "s"}: ${lines} lines, ${failures} failures (${stored} stored, ${duplicates} already stored), ${ignored} ignored in ${secs.toFixed(2)}s\n` +
        (cats ? `by category: ${cats}\n` : "")
    )
  })
).pipe(Command.withDescription("Ingest whole files once into the database (backfill), then exit with a summary"))
