/**
 * The literal gate in front of the provider markers (src/catalog/literalGate.ts) must answer what
 * one alternation of all the markers answered before it: the same family and the same text, for
 * every record of the corpus and for texts built around each marker's own literal.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { families, providerOfHosts, providerOfMarkers } from "../../src/catalog/index.js"
import { LiteralGate, requiredLiterals } from "../../src/catalog/literalGate.js"
import { gatedWording, wording } from "../../src/catalog/wording.js"

type Markers = ReadonlyArray<readonly [RegExp, string]>

/** The answer of the markers as one case-sensitive and one case-insensitive alternation (the former implementation). */
function alternationFind(markers: Markers, t: string): { provider: string; text: string } | null {
  const combined = (insensitive: boolean): RegExp | null => {
    const sources = markers.filter(([re]) => re.flags.includes("i") === insensitive).map(([re]) => `(?:${re.source})`)
    return sources.length === 0 ? null : new RegExp(sources.join("|"), insensitive ? "i" : "")
  }
  const cs = combined(false)?.exec(t) ?? null
  const ci = combined(true)?.exec(t) ?? null
  const hit = cs === null ? ci : ci === null || cs.index <= ci.index ? cs : ci
  if (hit === null) return null
  for (const [re, id] of markers) {
    const m = re.exec(hit[0])
    if (m !== null && m[0] === hit[0]) return { provider: id, text: hit[0] }
  }
  for (const [re, id] of markers) if (re.test(hit[0])) return { provider: id, text: hit[0] }
  return null
}

function reference(t: string): { provider: string; text: string; weak?: true } | null {
  const strong = alternationFind(families.flatMap((f) => f.markers.map((m) => [m, f.id] as const)), t)
  if (strong !== null) return strong
  const weak = alternationFind(families.flatMap((f) => (f.weakMarkers ?? []).map((m) => [m, f.id] as const)), t)
  return weak === null ? null : { ...weak, weak: true }
}

const actual = (t: string) => {
  const e = providerOfMarkers(t)
  return e === null ? null : { provider: e.provider, text: e.text, ...(e.weak === true ? { weak: true as const } : {}) }
}

function corpusTexts(): string[] {
  const out: string[] = []
  const files = [
    ...fs.readdirSync("fixtures/corpus/collected").map((f) => path.join("fixtures/corpus/collected", f)),
    "fixtures/corpus/public.jsonl",
    "fixtures/corpus/public-2.jsonl"
  ].filter((f) => f.endsWith(".jsonl") && fs.existsSync(f))
  for (const f of files) {
    for (const line of fs.readFileSync(f, "utf8").split("\n")) if (line.trim() !== "") out.push((JSON.parse(line) as { raw: string }).raw)
  }
  return out
}

describe("requiredLiterals", () => {
  it.each([
    ["\\bBedrockException\\b", ["BedrockException"]],
    ["\\{\\s*\"type\"\\s*:\\s*\"error\"", ['"error"']],
    ["aka\\.ms\\/oai\\/quotaincrease", ["aka.ms/oai/quotaincrease"]],
    ["\\bdocs\\.(?:anthropic|claude)\\.com\\/", ["docs."]],
    ["AzureException|AzureChatOpenAI", ["AzureException", "AzureChatOpenAI"]],
    ["colou?r scheme", ["r scheme"]],
    ["x{0,2}yz+abcde", ["abcde"]],
    ["\\u5bc6\\u94a5abcd", ["abcd"]]
  ] as const)("%s -> %j", (source, want) => {
    expect(requiredLiterals(source)).toEqual(want)
  })
  it.each(["(?:a|b)c", "ab|cde", "\\d{3}", "[A-Z][a-z]+"])("%s has none: always run", (source) => {
    expect(requiredLiterals(source)).toBeNull()
  })
})

describe("the provider markers behind the literal gate", () => {
  it("answer as the alternation did on every corpus record", () => {
    const texts = corpusTexts()
    expect(texts.length).toBeGreaterThan(1000)
    let named = 0
    for (const t of texts) {
      const want = reference(t)
      expect(actual(t), t.slice(0, 200)).toEqual(want)
      if (want !== null) named++
    }
    // the comparison means something: many records name a provider by a marker
    expect(named).toBeGreaterThan(200)
  })

  it("answer as the alternation did around each marker's own literal, in any case", () => {
    const all = families.flatMap((f) => [...f.markers, ...(f.weakMarkers ?? [])])
    let checked = 0
    for (const re of all) {
      for (const lit of requiredLiterals(re.source) ?? []) {
        for (const t of [`x ${lit} y`, `${lit.toUpperCase()}: ${lit.toLowerCase()}`, `Error: at\n  ${lit}Exception (${lit})`]) {
          expect(actual(t), t).toEqual(reference(t))
          checked++
        }
      }
    }
    expect(checked).toBeGreaterThan(300)
  })

  it("a pattern is a candidate wherever it matches", () => {
    const patterns = [/\bBedrockException\b/, /invalid x-api-key/i, /(?:a|b)cd/, /Azure OpenAI/]
    const gate = new LiteralGate(patterns)
    expect(gate.candidates("raised BedrockException")).toEqual([0, 2])
    expect(gate.candidates("raised BEDROCKEXCEPTION")).toEqual([2])
    expect(gate.candidates("Invalid X-API-Key given; Azure OpenAI")).toEqual([1, 2, 3])
    expect(gate.candidates("nothing here")).toEqual([2])
  })
})

/** The API hosts as one alternation, longest first (the former implementation of providerOfHosts). */
function alternationHost(t: string): { provider: string; text: string } | null {
  const hostFamily = new Map<string, string>()
  for (const f of families) for (const h of f.hosts) hostFamily.set(h.toLowerCase(), f.id)
  const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
  const re = new RegExp(
    `(?<![A-Za-z0-9-])(${[...hostFamily.keys()].sort((a, b) => b.length - a.length).map(escape).join("|")})(?![A-Za-z0-9-]|\\.[A-Za-z])`,
    "i"
  )
  const m = re.exec(t)
  if (m === null) return null
  const id = hostFamily.get(m[1]!.toLowerCase())
  return id === undefined ? null : { provider: id, text: m[0] }
}

describe("the API hosts behind the literal gate", () => {
  const actualHost = (t: string) => {
    const e = providerOfHosts(t)
    return e === null ? null : { provider: e.provider, text: e.text }
  }
  it("answer as the alternation did on every corpus record", () => {
    let named = 0
    for (const t of corpusTexts()) {
      const want = alternationHost(t)
      expect(actualHost(t), t.slice(0, 200)).toEqual(want)
      if (want !== null) named++
    }
    expect(named).toBeGreaterThan(200)
  })
  it("answer as the alternation did for every host in the contexts a log puts it in", () => {
    const hosts = families.flatMap((f) => f.hosts)
    expect(hosts.length).toBeGreaterThan(30)
    for (const h of hosts) {
      for (const t of [
        `POST https://${h}/v1/chat/completions 429`,
        `attempted address: ${h.toUpperCase()}:443`,
        `https://my-tenant.${h}/openai`,
        `not-${h}`,
        `${h}.evil.example`,
        `see ${h}. Then ${hosts[0]} and ${h}`
      ]) {
        expect(actualHost(t), t).toEqual(alternationHost(t))
      }
    }
  })
})

describe("the wording vocabulary behind literal gates", () => {
  it("answers as each whole alternation does, on every corpus record and on its own phrases", () => {
    const texts = corpusTexts()
    // each phrase of the vocabulary as a text of its own, in a sentence and in upper case
    for (const re of Object.values(wording)) {
      for (const alt of re.source.split("|")) {
        const plain = alt.replace(/\\b|\(\?[:!=<][^)]*\)|[()?*+{}[\]^$\\]/g, "")
        if (plain.length >= 3) texts.push(plain, `Error: ${plain}.`, plain.toUpperCase())
      }
    }
    let matched = 0
    for (const t of texts) {
      for (const [name, re] of Object.entries(wording) as Array<[keyof typeof wording, RegExp]>) {
        const want = re.test(t)
        if (want) matched++
        expect(gatedWording[name].test(t), `${name} on ${JSON.stringify(t.slice(0, 120))}`).toBe(want)
      }
    }
    expect(matched).toBeGreaterThan(1000)
  })
})

