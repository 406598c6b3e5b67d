/**
 * `npm run eval`: faultline's judgement measured on the corpus of real failed calls
 * (`fixtures/corpus/`, see its README): per corpus file and per part (tune, holdout), the share
 * of records whose category, status, rate-limit kind, code, model and provider match the labels,
 * and the records that were ignored though they are failed calls. Each record goes through
 * exactly what `faultline classify --records jsonl` runs.
 *
 * Lists the tune part's misses; the holdout part's misses only with `--holdout-misses` (they are
 * what the team must not tune on). `--json` prints the figures as JSON.
 */
import { createHash } from "node:crypto"
import { readdirSync, readFileSync } from "node:fs"
import * as path from "node:path"
import { recordToEvent } from "../src/sources/pipeline.js"
import { isMain, repoRoot } from "./common.js"

export interface LabelledRecord {
  readonly id: string
  readonly raw: string
  readonly status: number | null
  readonly code: number | string | null
  readonly model: string | null
  readonly category: ReadonlyArray<string>
  readonly rateLimitKind: ReadonlyArray<string | null>
  readonly provider?: ReadonlyArray<string | null> | string | null
  readonly ignore?: boolean
  readonly source?: string
}

export type Part = "tune" | "holdout"
export const FIELDS = ["ignored", "category", "status", "kind", "code", "model", "provider"] as const
export type Field = (typeof FIELDS)[number]

/** The goals of the corpus issue, per field (share of records). */
export const GOALS: Partial<Record<Field, number>> = { category: 0.98, status: 0.98, kind: 0.98, code: 0.95, model: 0.9 }

export function partOf(id: string): Part {
  return parseInt(createHash("sha1").update(id).digest("hex")[0]!, 16) < 5 ? "holdout" : "tune"
}

export interface CorpusFile {
  readonly name: string
  readonly records: ReadonlyArray<LabelledRecord>
}

export function loadCorpus(root = path.join(repoRoot, "fixtures", "corpus")): CorpusFile[] {
  const files = readdirSync(root).filter((f) => f.endsWith(".jsonl")).map((f) => path.join(root, f))
  const collected = path.join(root, "collected")
  for (const f of readdirSync(collected).filter((f) => f.endsWith(".jsonl")).sort()) files.push(path.join(collected, f))
  return files.map((f) => ({
    name: path.relative(root, f),
    records: readFileSync(f, "utf8")
      .split("\n")
      .filter((l) => l.trim() !== "")
      .map((l) => JSON.parse(l) as LabelledRecord)
  }))
}

export interface Miss {
  readonly id: string
  readonly field: Field
  readonly expected: unknown
  readonly got: unknown
}

export interface Tally {
  /** Per field: [correct, counted]. */
  readonly fields: Record<Field, [number, number]>
  records: number
  readonly misses: Miss[]
}

const newTally = (): Tally => ({
  fields: Object.fromEntries(FIELDS.map((f) => [f, [0, 0]])) as unknown as Record<Field, [number, number]>,
  records: 0,
  misses: []
})

const sameCode = (a: unknown, b: unknown): boolean => a === b || (a !== null && b !== null && String(a).toLowerCase() === String(b).toLowerCase())

const providerLabels = (p: LabelledRecord["provider"]): ReadonlyArray<string | null> | null =>
  p === undefined ? null : Array.isArray(p) ? p : [p as string | null]

/** Score one record into a tally. */
export function scoreRecord(r: LabelledRecord, t: Tally, ingestedAt = new Date().toISOString()): void {
  const out = recordToEvent(r.raw, { source: "stdin", line: null, ingestedAt })
  t.records++
  const count = (field: Field, ok: boolean, expected: unknown, got: unknown): void => {
    const f = t.fields[field]
    f[1]++
    if (ok) f[0]++
    else t.misses.push({ id: r.id, field, expected, got })
  }
  if (r.ignore === true) {
    count("ignored", !("event" in out), "ignored", "event" in out ? out.event.category : "ignored")
    return
  }
  if (!("event" in out)) {
    count("ignored", false, "a failed call", `ignored: ${out.ignored}`)
    for (const f of FIELDS) if (f !== "ignored" && (f !== "kind" || r.rateLimitKind.some((k) => k !== null)) && (f !== "provider" || providerLabels(r.provider) !== null)) t.fields[f][1]++
    return
  }
  const e = out.event
  count("ignored", true, null, null)
  count("category", r.category.includes(e.category), r.category, e.category)
  count("status", e.status === r.status, r.status, e.status)
  if (r.rateLimitKind.some((k) => k !== null)) count("kind", r.rateLimitKind.includes(e.rateLimitKind), r.rateLimitKind, e.rateLimitKind)
  count("code", sameCode(e.code, r.code), r.code, e.code)
  count("model", e.model === r.model, r.model, e.model)
  const providers = providerLabels(r.provider)
  if (providers !== null) count("provider", providers.includes(e.provider), providers, e.provider)
}

export interface Evaluation {
  readonly byFile: ReadonlyArray<{ readonly file: string; readonly part: Part; readonly tally: Tally }>
  readonly byPart: Record<Part, Tally>
}

export function evaluate(files: ReadonlyArray<CorpusFile>): Evaluation {
  const byFile: Array<{ file: string; part: Part; tally: Tally }> = []
  const byPart: Record<Part, Tally> = { tune: newTally(), holdout: newTally() }
  for (const f of files) {
    const parts: Record<Part, Tally> = { tune: newTally(), holdout: newTally() }
    for (const r of f.records) {
      const part = partOf(r.id)
      scoreRecord(r, parts[part])
      scoreRecord(r, byPart[part])
    }
    for (const part of ["tune", "holdout"] as const) if (parts[part].records > 0) byFile.push({ file: f.name, part, tally: parts[part] })
  }
  return { byFile, byPart }
}

export const share = ([ok, n]: [number, number]): number | null => (n === 0 ? null : ok / n)

const pct = (v: number | null): string => (v === null ? "-" : `${(v * 100).toFixed(1)}%`)

function table(ev: Evaluation): string {
  const head = ["corpus", "part", "records", ...FIELDS]
  const rows: string[][] = ev.byFile.map(({ file, part, tally }) => [file, part, String(tally.records), ...FIELDS.map((f) => pct(share(tally.fields[f])))])
  for (const part of ["tune", "holdout"] as const) {
    const t = ev.byPart[part]
    rows.push([`ALL`, part, String(t.records), ...FIELDS.map((f) => pct(share(t.fields[f])))])
  }
  rows.push(["goal", "holdout", "", ...FIELDS.map((f) => (GOALS[f] === undefined ? "" : `>= ${GOALS[f]! * 100}%`))])
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
  const line = (r: string[]) => r.map((c, i) => c.padEnd(widths[i]!)).join("  ").trimEnd()
  return [line(head), ...rows.map(line)].join("\n")
}

function missLines(misses: ReadonlyArray<Miss>): string[] {
  return misses.map((m) => `  ${m.id.padEnd(10)} ${m.field.padEnd(9)} expected ${JSON.stringify(m.expected)}, got ${JSON.stringify(m.got)}`)
}

export function main(argv: ReadonlyArray<string>): void {
  const ev = evaluate(loadCorpus())
  if (argv.includes("--json")) {
    const figures = (t: Tally) => Object.fromEntries(FIELDS.map((f) => [f, share(t.fields[f])]))
    console.log(JSON.stringify({ tune: figures(ev.byPart.tune), holdout: figures(ev.byPart.holdout), files: ev.byFile.map((b) => ({ file: b.file, part: b.part, records: b.tally.records, ...figures(b.tally) })) }, null, 2))
    return
  }
  console.log(table(ev))
  console.log(`\nmisses in the tune part (${ev.byPart.tune.misses.length}):`)
  console.log(missLines(ev.byPart.tune.misses).join("\n"))
  if (argv.includes("--holdout-misses")) {
    console.log(`\nmisses in the holdout part (${ev.byPart.holdout.misses.length}):`)
    console.log(missLines(ev.byPart.holdout.misses).join("\n"))
  } else {
    console.log(`\nmisses in the holdout part: ${ev.byPart.holdout.misses.length} (not listed: --holdout-misses lists them)`)
  }
}

if (isMain(import.meta.url)) main(process.argv.slice(2))
