/**
 * The provider catalogue, loaded from `providers/*` (one module per family; adding a provider is
 * adding a file) and indexed for the classifier: entries by code, by type, by error class, and
 * message entries by category behind one combined pattern each, so a record costs a few Map
 * look-ups and at most one regex test per category that can still change its verdict.
 */
import type { Category } from "../classify/Event.js"
import { loadFamilies } from "./load.js"
import { LiteralGate, escapeRegExp } from "./literalGate.js"
import type { CatalogEntry, EntryMatch, ProviderFamily } from "./types.js"

export type { CatalogEntry, ProviderFamily } from "./types.js"

/** Every family, sorted by id. */
export const families: ReadonlyArray<ProviderFamily> = await loadFamilies()

/** A catalogue entry with the family it belongs to. */
export interface Entry extends CatalogEntry {
  readonly family: string
}

/** What a record offers the catalogue. Strings as read (they are compared case-insensitively). */
export interface CatalogInput {
  readonly status: number | null
  readonly code: number | string | null
  readonly errorType: string | null
  readonly errorClass: string | null
  /** The message (or the record's text when there is none). */
  readonly text: string
  readonly provider: string | null
}

const asArray = <T>(v: T | ReadonlyArray<T> | undefined): ReadonlyArray<T> =>
  v === undefined ? [] : Array.isArray(v) ? (v as ReadonlyArray<T>) : [v as T]

const key = (v: number | string): string => String(v).toLowerCase()

// ---------------------------------------------------------------------------------------------
// The index

const entries: Entry[] = []
const byCode = new Map<string, Entry[]>()
const byType = new Map<string, Entry[]>()
const byClass = new Map<string, Entry[]>()
/** Entries whose only keys are status and/or message, by category. */
const byMessage = new Map<Category, Entry[]>()
/** The message-only entries behind one literal gate (built by `index`), and each one's category. */
let messageEntries: Entry[] = []
let messageGate: LiteralGate | null = null
/** Message entries that also name a status: the provider documents what its status means. */
const byStatusMessage = new Map<number, Entry[]>()
/** Entries that match on status alone. */
const byStatusOnly = new Map<number, Entry[]>()

const push = <K>(m: Map<K, Entry[]>, k: K, e: Entry): void => {
  const list = m.get(k)
  if (list === undefined) m.set(k, [e])
  else list.push(e)
}

export class CatalogError extends Error {}

function index(all: ReadonlyArray<ProviderFamily>): void {
  const ids = new Set<string>()
  const familyIds = new Set<string>()
  for (const fam of all) {
    if (!/^[a-z0-9][a-z0-9-]*$/.test(fam.id)) throw new CatalogError(`catalogue: family id "${fam.id}" is not a lower-case slug`)
    if (familyIds.has(fam.id)) throw new CatalogError(`catalogue: family "${fam.id}" is defined twice`)
    familyIds.add(fam.id)
    for (const raw of fam.entries) {
      const e: Entry = { ...raw, family: fam.id }
      if (ids.has(e.id)) throw new CatalogError(`catalogue: entry id "${e.id}" is used twice`)
      ids.add(e.id)
      if (e.samples.length === 0) throw new CatalogError(`catalogue: entry "${e.id}" names no sample`)
      const m = e.match
      if (m.message !== undefined && (!m.message.flags.includes("i") || m.message.global || m.message.sticky)) {
        throw new CatalogError(`catalogue: entry "${e.id}": message pattern needs the i flag and neither g nor y`)
      }
      entries.push(e)
      if (m.code !== undefined) for (const c of asArray(m.code)) push(byCode, key(c), e)
      else if (m.type !== undefined) for (const t of asArray(m.type)) push(byType, t.toLowerCase(), e)
      else if (m.errorClass !== undefined) for (const c of asArray(m.errorClass)) push(byClass, c, e)
      else if (m.message !== undefined && m.status !== undefined) for (const st of asArray(m.status)) push(byStatusMessage, st, e)
      else if (m.message !== undefined) push(byMessage, e.category, e)
      else if (m.status !== undefined) for (const s of asArray(m.status)) push(byStatusOnly, s, e)
      else throw new CatalogError(`catalogue: entry "${e.id}" matches nothing`)
    }
  }
  messageEntries = [...byMessage.values()].flat()
  messageGate = new LiteralGate(messageEntries.map((e) => e.match.message!))
}

index(families)

/** Every entry of every family (for tests and the eval report). */
export const allEntries: ReadonlyArray<Entry> = entries

/** Every error class the catalogue knows (a record naming one is a failed call of an LLM API). */
export const catalogClasses: ReadonlySet<string> = new Set(byClass.keys())

/**
 * The string codes only one family uses (`identifies`), exactly as documented: an SDK that names
 * its exception after the body's code (`AccountOverdueError: 403 Forbidden`) shows the code.
 */
const identifyingCodes: ReadonlySet<string> = new Set(
  entries.flatMap((e) => (e.identifies === true ? asArray(e.match.code).filter((c): c is string => typeof c === "string") : []))
)

/** `name` (an error class read from the text) when it is a code only one family documents, else null. */
export function codeNamedByClass(name: string): string | null {
  return identifyingCodes.has(name) ? name : null
}

const EVERY_CATEGORY: ReadonlyArray<Category> = [
  "auth_realname", "quota", "model_not_found", "rate_limit", "overload", "auth_key", "permission", "invalid_request", "server_error", "transport", "unknown"
]

/** Whether any catalogue entry (by code, type, class or wording) recognises a record with no status. */
export function recognises(r: Omit<CatalogInput, "status">): boolean {
  return lookup({ ...r, status: null }, EVERY_CATEGORY).length > 0
}

// ---------------------------------------------------------------------------------------------
// Matching

function matches(e: Entry, r: CatalogInput): boolean {
  if (e.onlyForProvider === true && r.provider !== e.family) return false
  const m: EntryMatch = e.match
  if (m.status !== undefined && (r.status === null || !asArray(m.status).includes(r.status))) return false
  if (m.code !== undefined && (r.code === null || !asArray(m.code).some((c) => key(c) === key(r.code!)))) return false
  if (m.type !== undefined && (r.errorType === null || !asArray(m.type).some((t) => t.toLowerCase() === r.errorType!.toLowerCase()))) return false
  if (m.errorClass !== undefined && (r.errorClass === null || !asArray(m.errorClass).includes(r.errorClass))) return false
  if (m.message !== undefined && !m.message.test(r.text)) return false
  return true
}

/** Among candidates, the first that matches; an entry of the record's own provider first. */
function firstMatch(list: ReadonlyArray<Entry> | undefined, r: CatalogInput): Entry | null {
  if (list === undefined) return null
  let found: Entry | null = null
  for (const e of list) {
    if (!matches(e, r)) continue
    if (r.provider === null || e.family === r.provider) return e
    if (found === null) found = e
  }
  return found
}

/** The message entries of `category` among the gate's candidates, in the catalogue's order. */
function candidateEntries(candidates: ReadonlyArray<number>, category: Category): Entry[] | undefined {
  let out: Entry[] | undefined
  for (const k of candidates) {
    const e = messageEntries[k]!
    if (e.category === category) (out ??= []).push(e)
  }
  return out
}

/**
 * The catalogue entries that match a record, most specific key first: code, type, error
 * class, then message entries (by category, in `categoryOrder`), then entries that name the
 * status (with a message, then alone).
 * At most one entry per key kind.
 */
export function lookup(r: CatalogInput, categoryOrder: ReadonlyArray<Category>): Entry[] {
  const found: Entry[] = []
  const add = (e: Entry | null): void => {
    if (e !== null) found.push(e)
  }
  if (r.code !== null) add(firstMatch(byCode.get(key(r.code)), r))
  if (r.errorType !== null) add(firstMatch(byType.get(r.errorType.toLowerCase()), r))
  if (r.errorClass !== null) add(firstMatch(byClass.get(r.errorClass), r))
  if (r.text !== "") {
    // only the entries whose literal is in the text can match it; of those, per category in
    // `categoryOrder`, the first that matches (an entry of the record's own provider first)
    const candidates = messageGate!.candidates(r.text)
    if (candidates.length > 0) {
      for (const c of categoryOrder) add(firstMatch(candidateEntries(candidates, c), r))
    }
  }
  if (r.status !== null) {
    add(firstMatch(byStatusMessage.get(r.status), r))
    add(firstMatch(byStatusOnly.get(r.status), r))
  }
  return found
}

// ---------------------------------------------------------------------------------------------
// Telling the provider

const familyById = new Map(families.map((f) => [f.id, f]))

/**
 * Every API host as a pattern of its own, as a host or the suffix of one (`x.openai.azure.com`),
 * with or without a scheme (`attempted address: api.openai.com:443`), longest first; found
 * through a literal gate (the host is its literal), the leftmost in the text winning.
 */
const hostFamily = new Map<string, string>()
for (const f of families) for (const h of f.hosts) hostFamily.set(h.toLowerCase(), f.id)
const HOSTS: ReadonlyArray<string> = [...hostFamily.keys()].sort((a, b) => b.length - a.length)
const HOST_RES: ReadonlyArray<RegExp> = HOSTS.map((h) => new RegExp(`(?<![A-Za-z0-9-])${escapeRegExp(h)}(?![A-Za-z0-9-]|\\.[A-Za-z])`, "i"))
const hostGate = new LiteralGate(HOST_RES)

type Markers = ReadonlyArray<readonly [RegExp, string]>

/**
 * Markers looked for together: the literal each must contain is found in one pass over the text
 * (`LiteralGate`), and only the markers whose literal is there are run. The first marker in the
 * text wins (case-sensitive ones before case-insensitive ones at the same place, then in the
 * catalogue's order): what one alternation of them all, tried left to right, used to answer.
 */
class MarkerSet {
  private readonly gate: LiteralGate
  private readonly insensitive: ReadonlyArray<boolean>
  constructor(private readonly markers: Markers) {
    this.gate = new LiteralGate(markers.map(([re]) => re))
    this.insensitive = markers.map(([re]) => re.flags.includes("i"))
  }
  /** The family of the first marker in the text, and the text it matched. */
  find(t: string): { readonly provider: string; readonly text: string } | null {
    const found = this.gate.leftmost(t, (k, held) => this.insensitive[held]! && !this.insensitive[k]!)
    if (found === null) return null
    const hit = found.match
    for (const [re, id] of this.markers) {
      const m = re.exec(hit[0])
      if (m !== null && m[0] === hit[0]) return { provider: id, text: hit[0] }
    }
    for (const [re, id] of this.markers) if (re.test(hit[0])) return { provider: id, text: hit[0] }
    return null
  }
}

const strongMarkers = new MarkerSet(families.flatMap((f) => f.markers.map((m) => [m, f.id] as const)))
const weakMarkers = new MarkerSet(families.flatMap((f) => (f.weakMarkers ?? []).map((m) => [m, f.id] as const)))

export interface ProviderEvidence {
  readonly provider: string
  /** `host` (an API host), `marker` (an SDK, envelope or product name). */
  readonly via: "host" | "marker"
  /** The text that told it. */
  readonly text: string
  /** Told only by a weak marker (an SDK's name, which also calls compatible APIs). */
  readonly weak?: true
}

/** The family of an API host (`api.anthropic.com`, `xyz.openai.azure.com`), or null. */
export function providerOfHost(host: string): string | null {
  let h = host.toLowerCase()
  for (;;) {
    const id = hostFamily.get(h)
    if (id !== undefined) return id
    const dot = h.indexOf(".")
    if (dot === -1) return null
    h = h.slice(dot + 1)
  }
}

/**
 * The provider a record's text names: an API host first (the most specific: Azure's host beats
 * the `openai` in its path), then the families' markers, then their weak markers. Null when none.
 */
export function providerOfText(text: string): ProviderEvidence | null {
  const t = text.length > 16384 ? text.slice(0, 16384) : text
  return providerOfHosts(t) ?? providerOfMarkers(t)
}

/** The top-level domains of the catalogue's hosts, lower and upper case: a text without one names no host. */
const TLDS: ReadonlyArray<string> = [...new Set(HOSTS.flatMap((h) => [h.slice(h.lastIndexOf(".")), h.slice(h.lastIndexOf(".")).toUpperCase()]))]

/** The provider of an API host in the text (with or without a scheme), or null. */
export function providerOfHosts(t: string): ProviderEvidence | null {
  // most records name no host at all: one indexOf per top-level domain says so before any scan
  if (!TLDS.some((tld) => t.indexOf(tld) !== -1)) return null
  const found = hostGate.leftmost(t)
  if (found === null) return null
  const id = hostFamily.get(HOSTS[found.pattern]!)
  return id === undefined ? null : { provider: id, via: "host", text: found.match[0] }
}

/**
 * Answers of `providerOfMarkers` for short texts (logger names, module paths, error classes:
 * the same few in every record of a storm), by text. Two scans of every marker cost ~15 % of
 * parsing a storm's records; a look-up here costs a hash of the text.
 */
const markerMemo = new Map<string, ProviderEvidence | null>()
const MARKER_MEMO_MAX = 1024
const MARKER_MEMO_CHARS = 1024

/** The provider the families' markers name in the text (strong ones first), or null. */
export function providerOfMarkers(t: string): ProviderEvidence | null {
  if (t.length > MARKER_MEMO_CHARS) return markersIn(t)
  let found = markerMemo.get(t)
  if (found === undefined) {
    if (markerMemo.size >= MARKER_MEMO_MAX) markerMemo.clear()
    found = markersIn(t)
    markerMemo.set(t, found)
  }
  return found
}

function markersIn(t: string): ProviderEvidence | null {
  const strong = strongMarkers.find(t)
  if (strong !== null) return { ...strong, via: "marker" }
  const weak = weakMarkers.find(t)
  return weak === null ? null : { ...weak, via: "marker", weak: true }
}

/** A family id named as a value (`"provider": "anthropic"`, `"custom_llm_provider": "groq"`), or null. */
export function providerOfName(v: string): string | null {
  const head = v.trim().toLowerCase().split(/[.:/ ]/, 1)[0]!
  return familyById.has(head) && head !== "common" ? head : null
}

/** A family by its id. */
export function familyOf(id: string): ProviderFamily | undefined {
  return familyById.get(id)
}
