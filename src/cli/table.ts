/** Terminal tables for people: fixed columns, cut to width, no colours when not a TTY. */
import type { FailureEvent } from "../classify/Event.js"

export const formatTable = (header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>, maxWidths: ReadonlyArray<number> = []): string => {
  const cut = (s: string, w: number | undefined) => (w !== undefined && s.length > w ? s.slice(0, Math.max(1, w - 1)) + "…" : s)
  const cells = [header, ...rows].map((r) => r.map((c, i) => cut(c.replace(/\s+/g, " "), maxWidths[i])))
  const widths = header.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? "").length)))
  const line = (r: ReadonlyArray<string>) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join("  ").trimEnd()
  return [line(cells[0]!), widths.map((w) => "─".repeat(w)).join("  "), ...cells.slice(1).map(line)].join("\n")
}

export const renderTable = (events: ReadonlyArray<FailureEvent & { file?: string }>): string => {
  if (events.length === 0) return "no failed calls found"
  return formatTable(
    ["LINE", "CATEGORY", "KIND", "STATUS", "MODEL", "ACTION"],
    events.map((e) => [
      e.line === null ? "-" : String(e.line),
      e.category,
      e.rateLimitKind ?? "-",
      e.status === null ? "-" : String(e.status),
      e.model ?? "-",
      e.action
    ]),
    [8, 16, 8, 6, 36, 90]
  ) + `\n\n${events.length} failed call${events.length === 1 ? "" : "s"}`
}
