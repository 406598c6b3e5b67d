/**
 * The daemon's own log: pino JSON on stdout, behind Effect's Logger. Code logs with
 * `Effect.log*` and annotations; this file is the only place that knows about pino.
 */
import { Cause, HashMap, Layer, List, Logger, LogLevel } from "effect"
import pino from "pino"

export type LevelName = "trace" | "debug" | "info" | "warn" | "error" | "fatal" | "silent"

const toPino = (level: LogLevel.LogLevel): Exclude<LevelName, "silent"> => {
  switch (level._tag) {
    case "All":
    case "Trace":
      return "trace"
    case "Debug":
      return "debug"
    case "Info":
      return "info"
    case "Warning":
      return "warn"
    case "Error":
      return "error"
    default:
      return "fatal"
  }
}

const toEffectLevel = (name: LevelName): LogLevel.LogLevel =>
  ({
    trace: LogLevel.Trace,
    debug: LogLevel.Debug,
    info: LogLevel.Info,
    warn: LogLevel.Warning,
    error: LogLevel.Error,
    fatal: LogLevel.Fatal,
    silent: LogLevel.None
  })[name]

export const makePino = (level: LevelName, destination: pino.DestinationStream = pino.destination({ dest: 1, sync: true })) =>
  pino({ level, base: { name: "faultline" }, timestamp: pino.stdTimeFunctions.isoTime }, destination)

/** Replace Effect's default logger with pino; set the minimum level. */
export const pinoLoggerLayer = (level: LevelName, instance = makePino(level)): Layer.Layer<never> => {
  const logger = Logger.make(({ logLevel, message, annotations, cause, spans }) => {
    const fields: Record<string, unknown> = {}
    for (const [k, v] of HashMap.toEntries(annotations)) fields[k] = v
    if (!Cause.isEmpty(cause)) fields.err = Cause.pretty(cause, { renderErrorCause: true })
    const spanList = List.toArray(spans)
    if (spanList.length > 0) fields.span = spanList.map((s) => s.label).join(">")
    const parts = Array.isArray(message) ? message : [message]
    const text = parts.filter((p) => typeof p === "string").join(" ")
    for (const p of parts) if (typeof p === "object" && p !== null) Object.assign(fields, p)
    instance[toPino(logLevel)](fields, text)
  })
  return Layer.merge(Logger.replace(Logger.defaultLogger, logger), Logger.minimumLogLevel(toEffectLevel(level)))
}
