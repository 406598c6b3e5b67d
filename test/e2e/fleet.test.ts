/**
 * Many sidecars (issue 18): the fleet view lives in Prometheus and Alertmanager.
 *
 * The shipped files are checked as they are: deploy/prometheus/rules.yml with `promtool check
 * rules` and with promtool unit tests (a first failure alerts; the burn-rate alert fires on a
 * bad model only, and yields nothing without faultline_calls_total), deploy/grafana/faultline.json
 * as JSON whose every panel queries a faultline metric or one of the recording rules.
 *
 * Then end to end, everything on 127.0.0.1: TWO faultline daemons (the built CLI), a real
 * Alertmanager (Debian's prometheus-alertmanager) that both sidecars' `alertmanager` receivers
 * post to, and a real Prometheus (Debian's prometheus) scraping both every second and
 * evaluating the shipped rules every second, sending its alerts to that Alertmanager. Different
 * failures go to each daemon through POST /v1/events; Prometheus' HTTP API must give the exact
 * fleet-wide sums, and the fleet alerts must fire and reach Alertmanager.
 *
 * The rules Prometheus loads here are a test-only copy of deploy/prometheus/rules.yml in which
 * every `for:` is rewritten to 1s (the shipped ones are 1m-2m); nothing else is changed.
 *
 * Skipped with a message where /usr/bin/prometheus (or the Alertmanager) is missing, except
 * under CI, which installs both (.ci/run): there a missing binary fails the test.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Daemon, repoRoot, startDaemon, tempDir, waitFor } from "../support/daemon.js"
import { AM_BIN, type AmAlert, amSkip, type RunningAlertmanager, startAlertmanager } from "../support/alertmanager.js"
import { PROM_BIN, type PromAlert, promSkip, promtool, type RunningPrometheus, startPrometheus } from "../support/prometheus.js"

const RULES = path.join(repoRoot, "deploy/prometheus/rules.yml")
const DASHBOARD = path.join(repoRoot, "deploy/grafana/faultline.json")
const WAIT = 60_000

if (promSkip) console.warn(`fleet.test.ts: Prometheus tests skipped: ${PROM_BIN} is missing (apt-get install -y prometheus)`)
if (amSkip && !promSkip) console.warn(`fleet.test.ts: end-to-end fleet test skipped: ${AM_BIN} is missing (apt-get install -y prometheus-alertmanager)`)

/** Metric names of CONTRACT section 9 (process metrics aside). */
const CONTRACT_METRICS = [
  "faultline_failures_total",
  "faultline_calls_total",
  "faultline_events_pruned_total",
  "faultline_lines_read_total",
  "faultline_lines_ignored_total",
  "faultline_source_lag_bytes",
  "faultline_alerts_firing",
  "faultline_notifications_total",
  "faultline_outbox_pending",
  "faultline_tickets_open"
]

const rulesText = (): string => fs.readFileSync(RULES, "utf8")
const recordedNames = (): string[] => [...rulesText().matchAll(/^\s*- record:\s*(\S+)\s*$/gm)].map((m) => m[1]!)
const alertNames = (): string[] => [...rulesText().matchAll(/^\s*- alert:\s*(\S+)\s*$/gm)].map((m) => m[1]!)
/** Every faultline metric or recording-rule name an expression mentions. */
const namesIn = (expr: string): string[] => [...expr.matchAll(/\bfaultline(?::[a-zA-Z0-9_:]+|_[a-zA-Z0-9_]+)/g)].map((m) => m[0])
const isKnownName = (n: string, recorded: ReadonlyArray<string>): boolean =>
  CONTRACT_METRICS.includes(n) || recorded.includes(n) || /^faultline_(process|nodejs)_[a-z0-9_]+$/.test(n)

interface Panel {
  readonly id: number
  readonly type: string
  readonly title: string
  readonly datasource?: { type: string; uid: string }
  readonly targets?: ReadonlyArray<{ refId: string; expr?: string; datasource?: { type: string; uid: string } }>
  readonly panels?: ReadonlyArray<Panel>
}
const dashboard = (): { schemaVersion: number; title: string; uid: string; __inputs: Array<{ name: string; type: string; pluginId: string }>; panels: Panel[]; templating: { list: Array<{ name: string; query: unknown; datasource?: { uid: string } }> } } =>
  JSON.parse(fs.readFileSync(DASHBOARD, "utf8"))
const allPanels = (ps: ReadonlyArray<Panel>): Panel[] => ps.flatMap((p) => (p.type === "row" ? allPanels(p.panels ?? []) : [p]))
/** A dashboard expression as Grafana sends it: variables at "All", intervals fixed. */
const grafanaExpr = (expr: string): string =>
  expr
    .replaceAll("$__rate_interval", "1m")
    .replaceAll("$__range", "5m")
    .replace(/\$(service|model|provider)\b/g, ".*")

// ---------------------------------------------------------------------------------------------
// the shipped files

describe("deploy/ files for a fleet of sidecars", () => {
  it("the Grafana dashboard is importable JSON, every panel querying a faultline metric or recording rule", () => {
    const d = dashboard()
    expect(typeof d.schemaVersion).toBe("number")
    expect(d.schemaVersion).toBeGreaterThanOrEqual(36)
    expect(d.uid).toBe("faultline-fleet")
    expect(d.__inputs).toContainEqual(expect.objectContaining({ name: "DS_PROMETHEUS", type: "datasource", pluginId: "prometheus" }))
    const recorded = recordedNames()
    const panels = allPanels(d.panels)
    expect(panels.length).toBeGreaterThanOrEqual(6)
    expect(new Set(panels.map((p) => p.id)).size).toBe(panels.length)
    const used = new Set<string>()
    for (const p of panels) {
      expect(p.datasource?.uid, `panel "${p.title}" uses the imported datasource`).toBe("${DS_PROMETHEUS}")
      const targets = p.targets ?? []
      expect(targets.length, `panel "${p.title}" has targets`).toBeGreaterThan(0)
      expect(new Set(targets.map((t) => t.refId)).size, `panel "${p.title}" refIds`).toBe(targets.length)
      const names = targets.flatMap((t) => namesIn(t.expr ?? ""))
      expect(names.length, `panel "${p.title}" queries a faultline metric or recording rule`).toBeGreaterThan(0)
      for (const n of names) {
        expect(isKnownName(n, recorded), `panel "${p.title}": ${n} is neither a contract metric nor recorded in rules.yml`).toBe(true)
        used.add(n)
      }
    }
    // the panels the fleet view needs
    for (const n of ["faultline_failures_total", "faultline:failures:increase5m", "faultline_calls_total", "faultline_alerts_firing", "faultline_source_lag_bytes"]) expect([...used]).toContain(n)
    const exprs = panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr ?? ""))
    expect(exprs.some((e) => /by \(rate_limit_kind, model\)/.test(e))).toBe(true)
    expect(exprs.some((e) => /^topk\(/.test(e))).toBe(true)
    // variables query the datasource of the import too
    for (const v of d.templating.list) expect(v.datasource?.uid, `variable ${v.name}`).toBe("${DS_PROMETHEUS}")
  })

  it.skipIf(promSkip)("promtool check rules passes on deploy/prometheus/rules.yml", async () => {
    const r = await promtool(["check", "rules", RULES])
    expect(r.code, r.out).toBe(0)
    expect(r.out).toMatch(/SUCCESS: \d+ rules found/)
    expect(alertNames()).toEqual(
      expect.arrayContaining(["FaultlineApiKeyInvalid", "FaultlineDailyLimitReached", "FaultlineServerErrorBurst", "FaultlineFailureRatioBurnRate"])
    )
  })

  it.skipIf(promSkip)("promtool unit tests: a first failure alerts fleet-wide; the burn rate fires for a bad model only", async () => {
    const dir = tempDir("faultline-promtool-")
    const labels = (l: Record<string, string>) => `{${Object.entries(l).map(([k, v]) => `${k}="${v}"`).join(",")}}`
    const failure = (l: Record<string, string>) =>
      `faultline_failures_total${labels({ rate_limit_kind: "none", status: "401", service: "chat-api", provider: "p", job: "faultline", ...l })}`
    const calls = (model: string, outcome: string, instance = "a:1") => `faultline_calls_total${labels({ model, service: "chat-api", provider: "p", outcome, instance })}`
    const series = (s: string, values: string) => `      - series: '${s}'\n        values: '${values}'`
    const file = path.join(dir, "rules.test.yml")
    fs.writeFileSync(
      file,
      [
        `rule_files: [${JSON.stringify(RULES)}]`,
        "evaluation_interval: 1m",
        "tests:",
        // two pods each see their first invalid-key failures at 11m: new series, born at 1 and 3
        "  - interval: 1m",
        "    input_series:",
        series(failure({ category: "auth_key", model: "m1", instance: "a:1" }), "_x10 1x30"),
        series(failure({ category: "auth_key", model: "m2", instance: "b:1" }), "_x10 3x30"),
        series(failure({ category: "rate_limit", rate_limit_kind: "TPM", status: "429", model: "m1", instance: "a:1" }), "0+2x40"),
        "    promql_expr_test:",
        "      - expr: sum by (category) (faultline:failures:increase5m)",
        "        eval_time: 12m",
        "        exp_samples:",
        "          - labels: '{category=\"auth_key\"}'",
        "            value: 4",
        "          - labels: '{category=\"rate_limit\"}'",
        "            value: 10",
        "    alert_rule_test:",
        "      - alertname: FaultlineApiKeyInvalid",
        "        eval_time: 13m",
        "        exp_alerts:",
        "          - exp_labels: {severity: critical, category: auth_key, scope: fleet, service: chat-api, provider: p}",
        "            exp_annotations:",
        "              summary: '4 API key failures (401) in 5m across the fleet (service=chat-api, provider=p)'",
        "              action: 'Fix the API key: it is missing or not set correctly.'",
        "              description: 'Retrying will not help. Each sidecar lists the failures at GET /v1/events?category=auth_key.'",
        // long over: no alert
        "      - alertname: FaultlineApiKeyInvalid",
        "        eval_time: 30m",
        "        exp_alerts: []",
        // no faultline_calls_total at all: the burn-rate rule yields nothing
        "      - alertname: FaultlineFailureRatioBurnRate",
        "        eval_time: 13m",
        "        exp_alerts: []",
        // failure ratios: bad 40 % over two pods, good 1 %, rare 100 % but 6 calls an hour
        "  - interval: 1m",
        "    input_series:",
        series(calls("bad", "ok"), "0+60x100"),
        series(calls("bad", "failed"), "0+20x100"),
        series(calls("bad", "failed", "b:1"), "0+20x100"),
        series(calls("good", "ok"), "0+100x100"),
        series(calls("good", "failed"), "0+1x100"),
        series(calls("rare", "failed"), "0+0.1x100"),
        "    alert_rule_test:",
        "      - alertname: FaultlineFailureRatioBurnRate",
        "        eval_time: 70m",
        "        exp_alerts:",
        "          - exp_labels: {severity: critical, scope: fleet, model: bad, service: chat-api, provider: p}",
        "            exp_annotations:",
        "              summary: 'Failure ratio of bad (service=chat-api, provider=p) is 40%: the 1 % error budget is burning too fast'",
        `              action: 'Look at which categories fail for this model (dashboard "Failures by category", or faultline report --since 1h on a sidecar) and follow their actions.'`,
        ""
      ].join("\n")
    )
    try {
      const r = await promtool(["test", "rules", file])
      expect(r.code, r.out).toBe(0)
      expect(r.out).toContain("SUCCESS")
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})

// ---------------------------------------------------------------------------------------------
// two sidecars, one Prometheus, one Alertmanager

const M1 = "Qwen/Qwen2.5-7B-Instruct"
const M2 = "deepseek-ai/DeepSeek-V3"
const SERVICE = "chat-api"
const svc = (code: number, message: string) => ({ code, message, data: null })
const invalidKey = (id: string, model: string) => ({ id, status: 401, model, service: SERVICE, body: svc(401, "Invalid token") })
const limited = (id: string, model: string, kind: "TPM" | "TPD") => ({
  id,
  status: 429,
  model,
  service: SERVICE,
  body: svc(50603, `Request was rejected due to rate limiting. Details: ${kind} limit reached.`)
})
const times = <A>(n: number, f: (i: number) => A): A[] => Array.from({ length: n }, (_, i) => f(i))

/** What each sidecar is sent: A 3 invalid keys (M1) and 2 TPM (M2); B 2 invalid keys (M2) and 4 TPD (M1). */
const FED = {
  a: [...times(3, (i) => invalidKey(`fleet-a-key-${i}`, M1)), ...times(2, (i) => limited(`fleet-a-tpm-${i}`, M2, "TPM"))],
  b: [...times(2, (i) => invalidKey(`fleet-b-key-${i}`, M2)), ...times(4, (i) => limited(`fleet-b-tpd-${i}`, M1, "TPD"))]
}

/** `{label value: value}` of a query's answer; the values summed where one label value repeats. */
const byLabel = (samples: ReadonlyArray<{ metric: Record<string, string>; value: number }>, label: string): Record<string, number> => {
  const out: Record<string, number> = {}
  for (const s of samples) out[s.metric[label] ?? ""] = (out[s.metric[label] ?? ""] ?? 0) + s.value
  return out
}

describe.skipIf(promSkip || amSkip)("two sidecars, one Prometheus with the shipped rules, one Alertmanager", () => {
  let am: RunningAlertmanager | undefined
  let prom: RunningPrometheus | undefined
  const daemons: Daemon[] = []
  let a: Daemon
  let b: Daemon
  let testRules: string

  beforeAll(async () => {
    am = await startAlertmanager()
    const sidecar = () =>
      startDaemon({
        config: {
          // every sidecar posts its own alerts to the one Alertmanager, too
          receivers: [{ name: "am", type: "alertmanager", url: am!.url }],
          defaultReceivers: ["am"],
          delivery: { initialBackoff: "200ms", maxBackoff: "1s" }
        }
      })
    const started = await Promise.allSettled([sidecar(), sidecar()])
    for (const r of started) if (r.status === "fulfilled") daemons.push(r.value)
    for (const r of started) if (r.status === "rejected") throw r.reason
    a = daemons[0]!
    b = daemons[1]!

    // test-only copy of the shipped rules: `for:` rewritten to 1s, nothing else
    const dir = tempDir("faultline-fleet-rules-")
    testRules = path.join(dir, "rules.yml")
    const shipped = rulesText()
    const copy = shipped.replace(/^(\s+for:\s*)\S+[ \t]*$/gm, (_m, head: string) => `${head}1s`)
    expect(copy.match(/^\s+for: 1s$/gm)?.length).toBe(alertNames().length)
    fs.writeFileSync(testRules, copy)

    prom = await startPrometheus({ targets: [`127.0.0.1:${a.port}`, `127.0.0.1:${b.port}`], ruleFiles: [testRules], alertmanager: am.url, interval: "1s" })
    // both sidecars scraped (their failure series do not exist yet) before anything fails;
    // Prometheus applies new scrape targets on a 5 s tick, so this takes a few seconds
    await waitFor("Prometheus to scrape both sidecars", async () => {
      const up = await prom!.query('up{job="faultline"} == 1')
      return up.length === 2
    }, WAIT, 200)
  }, 120_000)

  afterAll(async () => {
    await prom?.stop().catch(() => undefined)
    for (const d of daemons) if (d.proc.exitCode === null && d.proc.signalCode === null) await d.kill9().catch(() => undefined)
    am?.stop()
    if (testRules !== undefined) fs.rmSync(path.dirname(testRules), { recursive: true, force: true })
  })

  const post = async (d: Daemon, records: unknown[]): Promise<void> => {
    const r = await d.fetch("/v1/events", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(records) })
    const text = await r.text()
    expect(r.status, text).toBe(202)
    expect(JSON.parse(text)).toMatchObject({ accepted: records.length, duplicates: 0 })
  }

  it("Prometheus' fleet-wide sums equal what was written to each sidecar", async () => {
    await post(a, FED.a)
    await post(b, FED.b)
    const total = FED.a.length + FED.b.length
    await waitFor(`sum(faultline_failures_total) to reach ${total}`, async () => {
      const s = await prom!.query("sum(faultline_failures_total)")
      return s[0]?.value === total
    }, WAIT, 200)

    expect(byLabel(await prom!.query("sum by (category) (faultline_failures_total)"), "category")).toEqual({ auth_key: 5, rate_limit: 6 })
    expect(byLabel(await prom!.query('sum by (rate_limit_kind) (faultline_failures_total{category="rate_limit"})'), "rate_limit_kind")).toEqual({ TPM: 2, TPD: 4 })
    expect(byLabel(await prom!.query("sum by (model) (faultline_failures_total)"), "model")).toEqual({ [M1]: 7, [M2]: 4 })
    expect(byLabel(await prom!.query("sum by (service) (faultline_failures_total)"), "service")).toEqual({ [SERVICE]: 11 })
    expect(byLabel(await prom!.query("sum by (instance) (faultline_failures_total)"), "instance")).toEqual({
      [`127.0.0.1:${a.port}`]: 5,
      [`127.0.0.1:${b.port}`]: 6
    })
    // each sidecar's own /metrics says the same as Prometheus
    for (const [d, n] of [[a, 5], [b, 6]] as const) {
      const text = await (await d.fetch("/metrics")).text()
      const sum = [...text.matchAll(/^faultline_failures_total\{[^}]*\} (\S+)$/gm)].reduce((acc, m) => acc + Number(m[1]), 0)
      expect(sum).toBe(n)
    }
    // two sidecars report
    expect((await prom!.query("count(faultline_process_start_time_seconds)"))[0]?.value).toBe(2)
  })

  it("the recording rules give the same fleet-wide figures, by category, kind, model and provider", async () => {
    // rules commit one by one: wait until every recording rule has seen all 11 failures
    const total = async (expr: string) => (await prom!.query(expr))[0]?.value ?? 0
    await waitFor("every recording rule to count the 11 failures", async () => {
      const seen = [
        await total("sum(faultline:failures:increase5m)"),
        ...(await Promise.all(
          [
            "faultline:failures:rate5m",
            "faultline:failures_by_rate_limit_kind:rate5m",
            "faultline:failures_by_model:rate5m",
            "faultline:failures_by_provider:rate5m",
            "faultline:failures_by_service:rate5m"
          ].map((r) => total(`sum(${r}) * 300`))
        ))
      ].map(Math.round)
      if (seen.join() !== "11,11,6,11,11,11") throw new Error(`recorded totals so far: ${seen.join()}`)
      return true
    }, WAIT, 200)
    // a series born at its first value counts whole (see the rules' header), so these are exact
    expect(byLabel(await prom!.query("sum by (category) (faultline:failures:increase5m)"), "category")).toEqual({ auth_key: 5, rate_limit: 6 })
    const perSecond = byLabel(await prom!.query("faultline:failures:rate5m"), "category")
    expect(Object.keys(perSecond).sort()).toEqual(["auth_key", "rate_limit"])
    expect(perSecond.auth_key! * 300).toBeCloseTo(5, 9)
    expect(perSecond.rate_limit! * 300).toBeCloseTo(6, 9)
    const kinds = await prom!.query("faultline:failures_by_rate_limit_kind:rate5m")
    expect(kinds.map((s) => [s.metric.rate_limit_kind, s.metric.model, Math.round(s.value * 300)]).sort()).toEqual([
      ["TPD", M1, 4],
      ["TPM", M2, 2]
    ])
    const models = await prom!.query("sum by (model) (faultline:failures_by_model:rate5m) * 300")
    expect(Object.fromEntries(Object.entries(byLabel(models, "model")).map(([k, v]) => [k, Math.round(v)]))).toEqual({ [M1]: 7, [M2]: 4 })
    const providers = await prom!.query("sum(faultline:failures_by_provider:rate5m) * 300")
    expect(Math.round(providers[0]!.value)).toBe(11)
    // no faultline_calls_total yet: the ratio rules yield nothing (and do not fail)
    if ((await prom!.query("faultline_calls_total")).length === 0) expect(await prom!.query("faultline:failure_ratio:rate5m")).toEqual([])
  })

  it("the fleet key-failure alert fires, sums both sidecars and reaches Alertmanager, next to each sidecar's own alert", async () => {
    const promAlerts = () => prom!.api<{ alerts: PromAlert[] }>("/api/v1/alerts").then((d) => d.alerts)
    const amAlerts = () => fetch(`${am!.url}/api/v2/alerts`).then((r) => r.json() as Promise<AmAlert[]>)

    // the value is the sum over both sidecars: 3 + 2 (the alerts group may first see one of them)
    const firing = await waitFor("FaultlineApiKeyInvalid firing in Prometheus with the value 5", async () => {
      const x = (await promAlerts()).find((x) => x.labels.alertname === "FaultlineApiKeyInvalid")
      if (x === undefined || x.state !== "firing" || Number(x.value) !== 5) throw new Error(`seen: ${JSON.stringify(x)}`)
      return x
    }, WAIT, 200)
    expect(firing.annotations.action).toBe("Fix the API key: it is missing or not set correctly.")

    const inAm = await waitFor("FaultlineApiKeyInvalid in Alertmanager, summing 5 failures", async () => {
      const x = (await amAlerts()).find((x) => x.labels.alertname === "FaultlineApiKeyInvalid")
      if (x === undefined || !x.annotations.summary?.startsWith("5 ")) throw new Error(`seen: ${JSON.stringify(x)}`)
      return x
    }, WAIT, 200)
    expect(inAm.labels).toMatchObject({ alertname: "FaultlineApiKeyInvalid", severity: "critical", category: "auth_key", scope: "fleet", service: SERVICE })
    expect(inAm.labels.instance, "a fleet alert belongs to no single sidecar").toBeUndefined()
    expect(inAm.annotations.summary).toMatch(new RegExp(`^5 API key failures \\(401\\) in 5m across the fleet \\(service=${SERVICE}, provider=`))
    expect(inAm.annotations.action).toBe("Fix the API key: it is missing or not set correctly.")
    expect(inAm.status.state).toBe("active")
    expect(inAm.generatorURL).toContain(prom!.url.replace("http://", ""))

    // the daily limit (TPD, only on sidecar B) too
    const daily = await waitFor("FaultlineDailyLimitReached in Alertmanager", async () => (await amAlerts()).find((x) => x.labels.alertname === "FaultlineDailyLimitReached"), WAIT, 200)
    expect(daily.labels).toMatchObject({ rate_limit_kind: "TPD", model: M1, service: SERVICE, severity: "critical" })
    expect(daily.annotations.summary).toMatch(/^TPD limit reached for Qwen\/Qwen2\.5-7B-Instruct: 4 rejections in 5m/)
    expect(daily.annotations.action).toContain("wait for the daily reset")

    // both sidecars' own `api-key-invalid` alerts, one per instance, in the same Alertmanager
    const own = await waitFor("each sidecar's api-key-invalid in Alertmanager", async () => {
      const list = (await amAlerts()).filter((x) => x.labels.alertname === "api-key-invalid")
      return list.length === 2 ? list : undefined
    }, WAIT, 200)
    expect(own.map((x) => x.labels.instance).sort()).toEqual([`127.0.0.1:${a.port}`, `127.0.0.1:${b.port}`].sort())
    // ... which faultline_alerts_firing shows through Prometheus
    await waitFor("faultline_alerts_firing{rule=api-key-invalid} on both sidecars", async () => {
      const s = await prom!.query('faultline_alerts_firing{rule="api-key-invalid"} > 0')
      return s.length === 2
    }, WAIT, 200)

    // no rule of the shipped file failed to evaluate
    const groups = await prom!.api<{ groups: Array<{ name: string; rules: Array<{ name: string; health: string; lastError?: string }> }> }>("/api/v1/rules")
    const rules = groups.groups.flatMap((g) => g.rules)
    expect(rules.map((r) => r.name).sort()).toEqual([...recordedNames(), ...alertNames()].sort())
    for (const r of rules) expect(r.lastError ?? "", `${r.name}: ${r.health}`).toBe("")
    expect(rules.filter((r) => r.health === "err")).toEqual([])
  })

  it("every query of the Grafana dashboard runs against this Prometheus; the top-failures table sums to what was written", async () => {
    const panels = allPanels(dashboard().panels)
    for (const p of panels) {
      for (const t of p.targets ?? []) {
        const expr = grafanaExpr(t.expr ?? "")
        await expect(prom!.query(expr), `panel "${p.title}" ${t.refId}: ${expr}`).resolves.toBeDefined()
      }
    }
    const top = panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr ?? "")).find((e) => e.startsWith("topk("))!
    const rows = await prom!.query(grafanaExpr(top))
    expect(rows.map((r) => [r.metric.category, r.metric.rate_limit_kind, r.metric.model, r.value]).sort()).toEqual(
      [
        ["auth_key", "none", M1, 3],
        ["auth_key", "none", M2, 2],
        ["rate_limit", "TPD", M1, 4],
        ["rate_limit", "TPM", M2, 2]
      ].sort()
    )
    const byCategory = panels.find((p) => p.title.startsWith("Failures by category"))!
    const series = await prom!.query(grafanaExpr(byCategory.targets![0]!.expr!))
    expect(series.map((s) => s.metric.category).sort()).toEqual(["auth_key", "rate_limit"])
  })
})
