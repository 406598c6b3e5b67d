/**
 * `faultline classify`: classify log text offline (files or stdin), no database.
 * Default input is log text, assembled into records as the tailer does; `--records jsonl`
 * reads `{"id","raw"}` lines and answers exactly one line per input line.
 */
import { Args, Command, Options } from "@effect/cli"
import { Effect, Option } from "effect"
import * as fs from "node:fs"
import { RecordAssembler } from "../parse/assemble.js"
import { type Explanation, recordToEvent } from "../sources/pipeline.js"
import type { FailureEvent } from "../classify/Event.js"
import { CliError, usageError, runtimeError } from "./CliError.js"
import { renderTable } from "./table.js"
import { choiceOption, configOption, loadConfigOrFail } from "./common.js"

const records = choiceOption("records", ["jsonl"]).pipe(
  Options.withDescription("Input is JSON lines {\"id\", \"raw\"}: one output line per input line"),
  Options.optional
)
const format = choiceOption("format", ["jsonl", "table"]).pipe(
  Options.withDescription("Output format (default: table on a terminal, jsonl otherwise)"),
  Options.optional
)
const explain = Options.boolean("explain").pipe(
  Options.withDescription("Add to every event (and ignored record) the evidence of each field and what decided the category")
)
const files = Args.text({ name: "FILE" }).pipe(Args.repeated, Args.withDescription("Log files to read (default: stdin)"))

type Out = { write(line: string): void; end(): void }

/** An event as printed: with the file it came from and, with `--explain`, its explanation. */
type Row = FailureEvent & { file?: string; explain?: Explanation }

const stdoutWriter = (): Out => {
  const chunks: string[] = []
  let size = 0
  const flush = () => {
    if (chunks.length) fs.writeSync(1, chunks.join(""))
    chunks.length = 0
    size = 0
  }
  return {
    write(line) {
      chunks.push(line + "\n")
      size += line.length
      if (size > 1 << 16) flush()
    },
    end: flush
  }
}

/** Read a whole input as lines with byte offsets; stdin is read synchronously from fd 0. */
const readInput = (file: string): string => {
  try {
    return file === "-" ? fs.readFileSync(0, "utf8") : fs.readFileSync(file, "utf8")
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    if (code === "EAGAIN") return fs.readFileSync("/dev/stdin", "utf8")
    throw usageError(`cannot read ${file}: ${code ?? (e as Error).message}`)
  }
}

const eventsOfText = (text: string, file: string, explain: boolean, emit: (e: Row) => void): void => {
  const source = file === "-" ? "stdin" : `file:${file}`
  const ingestedAt = new Date().toISOString()
  const assembler = new RecordAssembler()
  const handle = (recs: ReturnType<RecordAssembler["flush"]>) => {
    for (const r of recs) {
      const out = recordToEvent(r.text, { source, line: r.line, ingestedAt, truncated: r.truncated, explain })
      if ("event" in out) emit(out.explain === undefined ? { ...out.event, file } : { ...out.event, file, explain: out.explain })
    }
  }
  let offset = 0
  let lineNo = 0
  let start = 0
  while (start < text.length) {
    let end = text.indexOf("\n", start)
    const last = end === -1
    if (last) end = text.length
    let line = text.slice(start, end)
    if (line.endsWith("\r")) line = line.slice(0, -1)
    lineNo++
    const bytes = Buffer.byteLength(text.slice(start, last ? end : end + 1))
    handle(assembler.push(line, lineNo, offset, offset + bytes))
    offset += bytes
    start = end + 1
  }
  handle(assembler.flush())
}

export const classifyCommand = Command.make("classify", { records, format, explain, config: configOption, files }, ({ records, format, explain, config, files }) =>
  // --config only for classify.rules (put in force by loading it)
  (Option.isSome(config) ? Effect.asVoid(loadConfigOrFail(config)) : Effect.void).pipe(Effect.zipRight(Effect.try({
    try: () => {
      const fmt = Option.getOrElse(format, () => (process.stdout.isTTY ? "table" : "jsonl"))
      const inputs = files.length === 0 ? ["-"] : files
      for (const f of inputs) {
        if (f.startsWith("--")) throw usageError(`unknown option ${f} (see faultline classify --help)`)
        if (f !== "-" && !fs.existsSync(f)) throw usageError(`FILE: ${f} does not exist`)
      }
      const out = stdoutWriter()
      const rows: Row[] = []
      const emit = (e: Row) => (fmt === "jsonl" ? out.write(JSON.stringify(e)) : rows.push(e))
      if (Option.isSome(records)) {
        for (const f of inputs) classifyRecords(readInput(f), f, fmt, explain, out, rows)
      } else {
        for (const f of inputs) eventsOfText(readInput(f), f, explain, emit)
      }
      if (fmt === "table") out.write(renderTable(rows))
      out.end()
    },
    catch: (e) => (e instanceof CliError ? e : runtimeError(e instanceof Error ? e.message : String(e)))
  })))
).pipe(Command.withDescription("Classify log text from FILEs or stdin, without a database; prints one event per failed call"))

/**
 * `--records jsonl`: exactly one output line per input line. A line that is not a JSON object
 * with a string `raw` is answered with an ignore reason (it is counted, not fatal: the other
 * lines are still classified).
 */
const classifyRecords = (text: string, file: string, fmt: string, explain: boolean, out: Out, rows: Row[]): void => {
  const ingestedAt = new Date().toISOString()
  const source = file === "-" ? "stdin" : `file:${file}`
  const lines = text.split("\n")
  if (lines[lines.length - 1] === "") lines.pop()
  lines.forEach((line, i) => {
    let rec: unknown
    try {
      rec = JSON.parse(line)
    } catch (e) {
      if (fmt === "jsonl") out.write(JSON.stringify({ input: String(i + 1), ignored: true, reason: `not valid JSON: ${(e as Error).message}` }))
      return
    }
    const { id, raw } = (typeof rec === "object" && rec !== null ? rec : {}) as { id?: unknown; raw?: unknown }
    const input = typeof id === "string" || typeof id === "number" ? String(id) : String(i + 1)
    if (typeof raw !== "string") {
      if (fmt === "jsonl") out.write(JSON.stringify({ input, ignored: true, reason: 'expected an object with a string "raw"' }))
      return
    }
    const res = recordToEvent(raw, { source, line: null, ingestedAt, explain })
    const why = res.explain === undefined ? {} : { explain: res.explain }
    if ("event" in res) {
      if (fmt === "jsonl") out.write(JSON.stringify({ input, ...res.event, ...why }))
      else rows.push({ ...res.event, ...why })
    } else if (fmt === "jsonl") {
      out.write(JSON.stringify({ input, ignored: true, reason: res.ignored, ...why }))
    }
  })
}
