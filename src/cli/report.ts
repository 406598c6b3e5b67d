/**
 * `faultline report`: the report of CONTRACT section 6 as a terminal table or JSON, from the
 * configured database or from a running daemon (`--url`, with `--token` or FAULTLINE_API_TOKEN).
 */
import { Command, Options } from "@effect/cli"
import { Effect, Option } from "effect"
import { parseInstantOrAgo } from "../config/duration.js"
import { EventStore, percent, type Report } from "../store/EventStore.js"
import { completeReport } from "../alert/summary.js"
import { runtimeError, usageError } from "./CliError.js"
import { choiceOption, configOption, loadConfigOrFail, withDatabase } from "./common.js"
import { formatTable } from "./table.js"

const since = Options.text("since").pipe(Options.withDescription("Window start: a duration back from now (15m, 24h, 7d) or an ISO-8601 instant"), Options.withDefault("24h"))
const until = Options.text("until").pipe(Options.withDescription("Window end (default: now)"), Options.optional)
const format = choiceOption("format", ["table", "json"]).pipe(Options.withDefault("table" as const))
const url = Options.text("url").pipe(Options.withDescription("Ask a running daemon instead of the database, e.g. http://127.0.0.1:8787"), Options.optional)
const token = Options.text("token").pipe(Options.withDescription("API token for --url (default: FAULTLINE_API_TOKEN)"), Options.optional)

/** failures / calls as a percentage; "-" where no call was counted. */
const ratioText = (r: number | null): string => (r === null ? "-" : percent(r, true))

export const renderReport = (r: Report): string => {
  const lines: string[] = []
  lines.push(`faultline report  ${r.window.since} → ${r.window.until}`)
  const calls = r.calls > 0 ? ` in ${r.calls} calls (${ratioText(r.failureRatio)})` : ""
  lines.push(`${r.total} failures${calls} · ${r.alerts.firing} alerts firing · ${r.tickets.open} tickets open · ${r.ingest.linesRead} lines read, ${r.ingest.ignored} ignored`)
  const section = (title: string, m: Record<string, number>) => {
    const rows = Object.entries(m).filter(([, n]) => n > 0).sort((a, b) => b[1] - a[1])
    if (rows.length === 0) return
    lines.push("", title)
    lines.push(formatTable(["", "COUNT"], rows.map(([k, n]) => [k, String(n)])))
  }
  section("BY CATEGORY", r.byCategory)
  section("BY RATE-LIMIT KIND", r.byRateLimitKind)
  section("BY STATUS", r.byStatus)
  section("BY PROVIDER", r.byProvider)
  if (r.byModel.length > 0) {
    lines.push("", "BY MODEL")
    lines.push(
      formatTable(
        ["MODEL", "FAILURES", "CALLS", "RATIO"],
        r.byModel.slice(0, 15).map((m) => [m.model ?? "(none)", String(m.total), m.calls === 0 ? "-" : String(m.calls), ratioText(m.failureRatio)]),
        [60, 8, 8, 7]
      )
    )
  }
  if (r.top.length > 0) {
    lines.push("", "TOP INCIDENTS")
    lines.push(
      formatTable(
        ["COUNT", "CATEGORY", "KIND", "STATUS", "MODEL", "MESSAGE", "ACTION"],
        r.top.map((t) => [String(t.count), t.category, t.rateLimitKind ?? "-", t.status === null ? "-" : String(t.status), t.model ?? "-", t.message ?? "-", t.action]),
        [8, 15, 7, 6, 30, 50, 70]
      )
    )
  }
  if (r.total === 0) lines.push("", "No failed calls in this window.")
  return lines.join("\n")
}

const fromDaemon = (base: string, token: string | undefined, params: URLSearchParams) =>
  Effect.tryPromise({
    try: async () => {
      const res = await fetch(`${base.replace(/\/$/, "")}/v1/report?${params}`, {
        headers: token ? { authorization: `Bearer ${token}` } : {},
        signal: AbortSignal.timeout(15_000)
      })
      const text = await res.text()
      if (!res.ok) throw new Error(`${res.status} from ${base}: ${text.slice(0, 300)}`)
      return JSON.parse(text) as Report
    },
    catch: (e) => runtimeError(`cannot get the report from ${base}: ${(e as Error).message}`)
  })

export const reportCommand = Command.make("report", { config: configOption, since, until, format, url, token }, (o) =>
  Effect.gen(function* () {
    const now = Date.now()
    const s = parseInstantOrAgo(o.since, now)
    if (s === null) return yield* usageError(`--since: expected a duration like 15m, 24h, 7d or an ISO-8601 instant, got "${o.since}"`)
    const u = Option.isSome(o.until) ? parseInstantOrAgo(o.until.value, now) : now
    if (u === null) return yield* usageError(`--until: expected a duration or an ISO-8601 instant`)
    let report: Report
    if (Option.isSome(o.url)) {
      const params = new URLSearchParams({ since: new Date(s).toISOString(), until: new Date(u).toISOString() })
      report = yield* fromDaemon(o.url.value, Option.getOrUndefined(o.token) ?? process.env.FAULTLINE_API_TOKEN, params)
    } else {
      const config = yield* loadConfigOrFail(o.config)
      report = yield* withDatabase(config, true, (db) => Effect.sync(() => completeReport(db, new EventStore(db).report({ since: s, until: u }))))
    }
    process.stdout.write(o.format === "json" ? JSON.stringify(report, null, 2) + "\n" : renderReport(report) + "\n")
  })
).pipe(Command.withDescription("Print the report of stored failures (from the database, or a running daemon with --url)"))
