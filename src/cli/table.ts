/** Terminal tables for people: fixed columns, cut to width, no colours when not a TTY. */
import type { FailureEvent } from "../classify/Event.js"

export const formatTable = (header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>, maxWidths: ReadonlyArray<number> = []): string => {
  const cut = (s: string, w: number | undefined) => (w !== undefined && s.length > w ? s.slice(0, Math.max(1, w - 1)) + "…" : s)
  const cells = [header, ...rows].map((r) => r.map((c, i) => cut(c.replace(/\s+/g, " "), maxWidths[i])))
  const widths = header.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? "").length)))
  const line = (r: ReadonlyArray<string>) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join("  ").trimEnd()
  return [line(cells[0]!), widths.map((w) => "─".repeat(w)).join("  "), ...cells.slice(1).map(line)].join("\n")
}

/** The part of `--explain` that the table prints under a row. */
export interface RowExplanation {
  readonly decidedBy: { readonly kind: string; readonly name: string } | null
  readonly [field: string]: { readonly from: string; readonly text: string } | { readonly kind: string; readonly name: string } | null
}

const EXPLAINED = ["status", "code", "message", "model", "provider"] as const

/** `--explain` under a row: what decided the category, then each field's extractor and text. */
export const explanationLines = (x: RowExplanation): string[] => {
  const lines = [`    decided by ${x.decidedBy === null ? "-" : `${x.decidedBy.kind} ${x.decidedBy.name}`}`]
  for (const f of EXPLAINED) {
    const ev = x[f] as { from: string; text: string } | null | undefined
    lines.push(`    ${f.padEnd(8)} ${ev == null ? "-" : `${ev.from}: ${ev.text.replace(/\s+/g, " ")}`}`)
  }
  return lines
}

export const renderTable = (events: ReadonlyArray<FailureEvent & { file?: string; explain?: RowExplanation }>): string => {
  if (events.length === 0) return "no failed calls found"
  const table = formatTable(
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
  )
  const [header, rule, ...rows] = table.split("\n")
  const body = rows.flatMap((row, i) => {
    const x = events[i]!.explain
    return x === undefined ? [row] : [row, ...explanationLines(x)]
  })
  return [header, rule, ...body].join("\n") + `\n\n${events.length} failed call${events.length === 1 ? "" : "s"}`
}
