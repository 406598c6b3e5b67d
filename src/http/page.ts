/**
 * The HTML pages for people on call, rendered on the server with no external assets (and no
 * script), every value HTML-escaped:
 *
 * - `GET /`: totals, a timeline by category (inline SVG), breakdowns, top incidents with their
 *   action, firing alerts (labels as chips) and open tickets, a window selector; refreshes itself.
 *   Each top incident links to `incidents/<fingerprint>`, each ticket to `tickets/<id>`.
 * - `GET /incidents/<fingerprint>`: the incident and its most recent events.
 * - `GET /tickets/<id>`: the ticket, its diagnosis and the curl commands that reproduce it.
 *
 * Links are relative, so the pages also work behind a proxy that serves them under a prefix.
 * The routes of the detail pages are in pageRoutes.ts.
 */
import type { Category, FailureEvent } from "../classify/Event.js"
import { type Incident, percent, type Report } from "../store/EventStore.js"
import type { Ticket } from "../ticket/Ticket.js"

export interface PageExtras {
  readonly windowLabel: string
  /** The last failure of each model (ISO), for the model health table. */
  readonly lastFailure?: ReadonlyMap<string | null, string>
  readonly firingAlerts: ReadonlyArray<{ rule: string; labels: Record<string, unknown>; count: number; severity: string; startsAt: string; action: string }>
  readonly openTickets: ReadonlyArray<{ id: string; state: string; count: number; model: string | null; message: string | null; lastSeen: string }>
  readonly generatedAt: string
}

export const pageWindows = ["15m", "1h", "24h", "7d"] as const

/**
 * The paths of the HTML pages: the ones a browser opens, so they take the api token as the
 * password of HTTP Basic auth too (Server.ts) and challenge for it.
 */
export const isPagePath = (path: string): boolean => path === "/" || /^\/(incidents|tickets)\/[^/]+$/.test(path)

/** A window of the report page, or null (the detail pages carry it for their link back). */
export const pageWindowOf = (asked: string | null): (typeof pageWindows)[number] | null =>
  (pageWindows as ReadonlyArray<string>).includes(asked ?? "") ? (asked as (typeof pageWindows)[number]) : null

const esc = (v: unknown): string =>
  String(v ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!)

/** A path segment of a link, escaped for the attribute too. */
const seg = (v: string): string => esc(encodeURIComponent(v))

/** `key=value` chips for label sets; null (and undefined) values are left out. */
export const labelChips = (labels: Readonly<Record<string, unknown>>): string => {
  const chips = Object.entries(labels)
    .filter(([, v]) => v !== null && v !== undefined)
    .map(([k, v]) => `<span class="chip">${esc(k)}=${esc(typeof v === "object" ? JSON.stringify(v) : v)}</span>`)
  return chips.length === 0 ? `<span class="muted">no labels</span>` : chips.join(" ")
}

const colors: Record<Category, string> = {
  rate_limit: "#e8a33d",
  quota: "#c2410c",
  overload: "#8b5cf6",
  server_error: "#dc2626",
  transport: "#0ea5e9",
  auth_key: "#b91c1c",
  auth_realname: "#db2777",
  permission: "#9d174d",
  model_not_found: "#65a30d",
  invalid_request: "#64748b",
  unknown: "#94a3b8"
}

const timelineSvg = (timeline: Report["timeline"]): string => {
  const W = 900
  const H = 180
  const pad = 28
  if (timeline.length === 0) return `<p class="muted">No data in this window.</p>`
  const totals = timeline.map((b) => Object.values(b.byCategory as Record<string, number>).reduce((a, n) => a + n, 0))
  const max = Math.max(1, ...totals)
  const bw = (W - pad) / timeline.length
  const bars: string[] = []
  timeline.forEach((b, i) => {
    let y = H - pad
    for (const [cat, n] of Object.entries(b.byCategory as Record<string, number>)) {
      if (!n) continue
      const h = ((H - 2 * pad) * n) / max
      y -= h
      bars.push(
        `<rect x="${(pad + i * bw).toFixed(1)}" y="${y.toFixed(1)}" width="${Math.max(1, bw - 1).toFixed(1)}" height="${h.toFixed(1)}" fill="${colors[cat as Category] ?? "#999"}"><title>${esc(b.start)} ${esc(cat)}: ${n}</title></rect>`
      )
    }
  })
  // the failure ratio of each bucket with calls, as a line on its own scale (0-100% at the right)
  const points: string[] = []
  timeline.forEach((b, i) => {
    if (b.calls <= 0) return
    const ratio = Math.min(1, totals[i]! / b.calls)
    const x = pad + i * bw + bw / 2
    const y = H - pad - (H - 2 * pad) * ratio
    points.push(`${x.toFixed(1)},${y.toFixed(1)}`)
    bars.push(`<circle cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" r="2" fill="#111827"><title>${esc(b.start)} failure ratio ${pct(ratio)} (${totals[i]} of ${b.calls} calls)</title></circle>`)
  })
  const ratioLine =
    points.length === 0
      ? ""
      : `<polyline id="ratio-line" points="${points.join(" ")}" fill="none" stroke="#111827" stroke-width="1.5"/>
  <text x="${W}" y="${pad}" font-size="11" fill="#111827" text-anchor="end">100% failed</text>`
  const first = timeline[0]!.start
  const last = timeline[timeline.length - 1]!.start
  return `<svg class="timeline" viewBox="0 0 ${W} ${H}" role="img" aria-label="failures over time by category, and the failure ratio">
  <line x1="${pad}" y1="${H - pad}" x2="${W}" y2="${H - pad}" stroke="#888"/>
  <text x="0" y="${pad}" font-size="11" fill="#666">${max}</text>
  ${ratioLine}
  <text x="${pad}" y="${H - 8}" font-size="11" fill="#666">${esc(first.slice(0, 16).replace("T", " "))}</text>
  <text x="${W}" y="${H - 8}" font-size="11" fill="#666" text-anchor="end">${esc(last.slice(0, 16).replace("T", " "))}</text>
  ${bars.join("\n  ")}
</svg>`
}

/** A ratio as the page writes it: "12.5%", "–" where no call was counted. */
const pct = (r: number | null): string => (r === null ? "–" : percent(r, true))

/** The category with the most failures of a model in the window. */
const worstCategory = (byCategory: Partial<Record<Category, number>>): Category | null => {
  let worst: Category | null = null
  for (const [c, n] of Object.entries(byCategory) as Array<[Category, number]>) if (n > 0 && (worst === null || n > byCategory[worst]!)) worst = c
  return worst
}

/** Per model: calls, failures, ratio, the worst category in the window and the last failure. */
const modelHealth = (r: Report, lastFailure: ReadonlyMap<string | null, string>): string => `<table id="model-health"><thead><tr><th>model</th><th class="num">calls</th><th class="num">failures</th><th class="num">failure ratio</th><th>worst category</th><th>last failure</th></tr></thead><tbody>
${
  r.byModel.length === 0
    ? `<tr><td colspan="6" class="muted">no calls and no failures in this window</td></tr>`
    : [...r.byModel]
        .sort((a, b) => (b.failureRatio ?? -1) - (a.failureRatio ?? -1) || b.total - a.total || (a.model ?? "").localeCompare(b.model ?? ""))
        .map((m) => {
          const worst = worstCategory(m.byCategory)
          return `<tr data-model="${esc(m.model ?? "")}"><td>${esc(m.model ?? "(none)")}</td><td class="num">${m.calls === 0 ? `<span class="muted">–</span>` : m.calls}</td><td class="num">${m.total}</td><td class="num${(m.failureRatio ?? 0) >= 0.05 ? " critical" : ""}">${pct(m.failureRatio)}</td><td>${worst === null ? `<span class="muted">–</span>` : `<span class="dot" style="background:${colors[worst]}"></span>${esc(worst)}`}</td><td>${esc(lastFailure.get(m.model) ?? "")}</td></tr>`
        })
        .join("\n")
}
</tbody></table>`

const STYLE = `<style>
  body { font: 14px/1.4 system-ui, sans-serif; margin: 0 auto; max-width: 1100px; padding: 16px; color: #1f2937; }
  header { display: flex; align-items: baseline; justify-content: space-between; flex-wrap: wrap; gap: 8px; }
  h1 { font-size: 20px; margin: 0; } h2 { font-size: 15px; margin: 18px 0 6px; }
  nav a { margin-left: 8px; padding: 2px 8px; border-radius: 4px; text-decoration: none; color: #1f2937; border: 1px solid #d1d5db; }
  nav a.on { background: #1f2937; color: #fff; }
  .cards { display: flex; gap: 12px; flex-wrap: wrap; margin: 12px 0; }
  .card { border: 1px solid #e5e7eb; border-radius: 6px; padding: 8px 14px; min-width: 120px; }
  .card b { display: block; font-size: 24px; }
  .grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(240px, 1fr)); gap: 0 20px; }
  table { border-collapse: collapse; width: 100%; } td, th { padding: 3px 6px; border-bottom: 1px solid #f1f5f9; text-align: left; vertical-align: top; }
  .num { text-align: right; font-variant-numeric: tabular-nums; } .muted { color: #6b7280; }
  .dot { display: inline-block; width: 9px; height: 9px; border-radius: 50%; margin-right: 6px; }
  .timeline { width: 100%; height: auto; border: 1px solid #e5e7eb; border-radius: 6px; }
  .critical { color: #b91c1c; font-weight: 600; } code { font-size: 12px; }
  .chip { display: inline-block; margin: 1px 4px 1px 0; padding: 0 7px; border: 1px solid #d1d5db; border-radius: 10px; background: #f9fafb; font: 12px/1.6 ui-monospace, monospace; white-space: nowrap; }
  tr.link:hover td { background: #f3f4f6; } tr.link td { position: relative; } tr.link td > a { display: block; color: inherit; text-decoration: none; }
  tr.link td > a::after { content: ""; position: absolute; inset: 0; } tr.link td > a:focus-visible { outline: 2px solid #2563eb; }
  a.back { color: #1f2937; } pre { background: #f8fafc; border: 1px solid #e5e7eb; border-radius: 6px; padding: 8px; overflow-x: auto; white-space: pre-wrap; word-break: break-all; font-size: 12px; }
  dl.fields { display: grid; grid-template-columns: max-content 1fr; gap: 2px 14px; margin: 8px 0; } dl.fields dt { color: #6b7280; } dl.fields dd { margin: 0; }
</style>`

const kv = (title: string, id: string, m: Record<string, number>): string => {
  const rows = Object.entries(m).sort((a, b) => b[1] - a[1])
  return `<section><h2>${esc(title)}</h2><table id="${id}"><tbody>${
    rows.length === 0
      ? `<tr><td class="muted">none</td></tr>`
      : rows.map(([k, v]) => `<tr><td>${k in colors ? `<span class="dot" style="background:${colors[k as Category]}"></span>` : ""}${esc(k)}</td><td class="num" data-key="${esc(k)}">${v}</td></tr>`).join("")
  }</tbody></table></section>`
}

/**
 * A table row that is a link as a whole, with no script: every cell holds the same (already
 * escaped) href, stretched over the whole cell; only the first is in the tab order and seen by
 * screen readers, so the row is one link for them.
 */
const linkedRow = (href: string, attrs: string, cells: ReadonlyArray<readonly [unknown, string?]>): string =>
  `<tr class="link" ${attrs}>${cells
    .map(
      ([v, cls], i) =>
        `<td${cls === "num" ? ` class="num"` : ""}><a href="${href}"${i === 0 ? "" : ` tabindex="-1" aria-hidden="true"`}>${cls === "id" ? `<code>${esc(v)}</code>` : esc(v)}</a></td>`
    )
    .join("")}</tr>`

export const renderPage = (r: Report, x: PageExtras): string => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="refresh" content="30">
<title>faultline — ${r.total} failures in ${esc(x.windowLabel)}</title>
${STYLE}
</head>
<body>
<header>
  <h1>faultline report</h1>
  <nav>window:${pageWindows.map((w) => `<a href="?window=${w}" class="${w === x.windowLabel ? "on" : ""}">${w}</a>`).join("")}</nav>
</header>
<p class="muted">${esc(r.window.since)} → ${esc(r.window.until)} · generated ${esc(x.generatedAt)} · refreshes every 30 s</p>
<div class="cards">
  <div class="card">failures<b id="total">${r.total}</b></div>
  <div class="card">calls<b id="calls">${r.calls}</b></div>
  <div class="card">failure ratio<b id="failure-ratio">${pct(r.failureRatio)}</b></div>
  <div class="card">alerts firing<b id="alerts-firing">${r.alerts.firing}</b></div>
  <div class="card">tickets open<b id="tickets-open">${r.tickets.open}</b></div>
  <div class="card">lines read<b id="lines-read">${r.ingest.linesRead}</b></div>
</div>
<h2>Timeline</h2>
${timelineSvg(r.timeline)}
<h2>Model health</h2>
${modelHealth(r, x.lastFailure ?? new Map())}
<div class="grid">
  ${kv("By category", "by-category", r.byCategory as Record<string, number>)}
  ${kv("By rate-limit kind", "by-kind", r.byRateLimitKind as Record<string, number>)}
  ${kv("By status", "by-status", r.byStatus as Record<string, number>)}
  ${kv("By provider", "by-provider", r.byProvider)}
  ${kv("By model", "by-model", Object.fromEntries(r.byModel.map((m) => [m.model ?? "(none)", m.total])))}
</div>
<h2>Top incidents</h2>
<table id="top"><thead><tr><th>count</th><th>category</th><th>kind</th><th>status</th><th>model</th><th>message</th><th>action</th><th>last seen</th></tr></thead><tbody>
${r.top.length === 0 ? `<tr><td colspan="8" class="muted">none</td></tr>` : r.top.map((t) => linkedRow(`incidents/${seg(t.fingerprint)}?window=${esc(x.windowLabel)}`, `data-fingerprint="${esc(t.fingerprint)}"`, [
  [t.count, "num"], [t.category], [t.rateLimitKind ?? ""], [t.status ?? ""], [t.model ?? ""], [(t.message ?? "").slice(0, 160)], [t.action], [t.lastSeen]
])).join("\n")}
</tbody></table>
<h2>Firing alerts</h2>
<table id="alerts"><tbody>
${x.firingAlerts.length === 0 ? `<tr><td class="muted">none</td></tr>` : x.firingAlerts.map((a) => `<tr><td class="${a.severity === "critical" ? "critical" : ""}">${esc(a.rule)}</td><td class="labels">${labelChips(a.labels)}</td><td class="num">${a.count}</td><td>${esc(a.startsAt)}</td><td>${esc(a.action)}</td></tr>`).join("\n")}
</tbody></table>
<h2>Open tickets</h2>
<table id="tickets"><tbody>
${x.openTickets.length === 0 ? `<tr><td class="muted">none</td></tr>` : x.openTickets.map((t) => linkedRow(`tickets/${seg(t.id)}?window=${esc(x.windowLabel)}`, `data-ticket="${esc(t.id)}"`, [
  [t.id, "id"], [t.state], [t.count, "num"], [t.model ?? ""], [(t.message ?? "").slice(0, 160)], [t.lastSeen]
])).join("\n")}
</tbody></table>
</body>
</html>
`

// ---------------------------------------------------------------------------------------------
// detail pages

/** Where the detail pages link back to: the report, in the window the reader came from. */
const backLink = (window: string | null, up: number): string =>
  `<a class="back" id="back" href="${"../".repeat(up)}${window === null ? "" : `?window=${esc(window)}`}">← report${window === null ? "" : ` (${esc(window)})`}</a>`

const detailPage = (title: string, body: string): string => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
${STYLE}
</head>
<body>
${body}
</body>
</html>
`

const fields = (id: string, rows: ReadonlyArray<readonly [string, unknown]>): string =>
  `<dl class="fields" id="${id}">${rows.map(([k, v]) => `<dt>${esc(k)}</dt><dd data-field="${esc(k)}">${v === null || v === undefined || v === "" ? `<span class="muted">–</span>` : esc(v)}</dd>`).join("")}</dl>`

export interface IncidentPageInput {
  readonly incident: Incident
  /** Its most recent events, newest first. */
  readonly events: ReadonlyArray<FailureEvent>
  /** How many events were asked for: when `events` holds that many, there may be older ones. */
  readonly limit: number
  /** The report's window the reader came from (for the link back), or null. */
  readonly window: string | null
}

/** `GET /incidents/<fingerprint>`: one incident (all time) and its most recent events. */
export const renderIncidentPage = ({ incident: i, events, limit, window }: IncidentPageInput): string =>
  detailPage(
    `faultline — incident ${i.fingerprint}`,
    `<header><h1>Incident <code>${esc(i.fingerprint)}</code></h1>${backLink(window, 1)}</header>
<p><span class="dot" style="background:${colors[i.category] ?? "#999"}"></span><b id="category">${esc(i.category)}</b>${i.rateLimitKind === null ? "" : ` · <b id="kind">${esc(i.rateLimitKind)}</b>`} · ${esc(i.state)} · <span id="count">${i.count}</span> occurrences, all time</p>
<p><b>Action:</b> <span id="action">${esc(i.action)}</span></p>
${fields("incident", [
  ["severity", i.severity],
  ["retryable", i.retryable ? "yes" : "no"],
  ["status", i.status],
  ["code", i.code],
  ["model", i.model],
  ["service", i.service],
  ["message", i.message],
  ["first seen", i.firstSeen],
  ["last seen", i.lastSeen]
])}
<h2>Recent events</h2>
<table id="events"><thead><tr><th>occurred at</th><th>source</th><th>status</th><th>model</th><th>service</th><th>provider</th><th>request id</th><th>message</th></tr></thead><tbody>
${
  events.length === 0
    ? `<tr><td colspan="8" class="muted">none stored (events past the retention are pruned; the incident's counts are kept)</td></tr>`
    : events
        .map(
          (e) =>
            `<tr data-event="${esc(e.id)}"><td>${esc(e.occurredAt)}</td><td>${esc(e.source)}${e.line === null ? "" : `:${e.line}`}</td><td>${esc(e.status ?? "")}</td><td>${esc(e.model ?? "")}</td><td>${esc(e.service ?? "")}</td><td>${esc(e.provider ?? "")}</td><td><code>${esc(e.requestId ?? "")}</code></td><td>${esc((e.message ?? "").slice(0, 200))}</td></tr>`
        )
        .join("\n")
}
</tbody></table>
${events.length >= limit ? `<p class="muted">The ${limit} most recent events; <code>GET /v1/events</code> pages through the rest.</p>` : ""}
<h2>Latest sample</h2>
<pre id="sample">${esc(i.sample)}</pre>`
  )

/**
 * `GET /tickets/<id>`: the ticket, its diagnosis and the curl commands that reproduce it.
 * `incident` is the fingerprint of the ticket's diagnosed event (a ticket's own fingerprint
 * groups a server error across models, so it names no incident), null when that event is gone.
 */
export const renderTicketPage = (t: Ticket, incident: string | null, window: string | null): string => {
  const d = t.diagnosis
  const w = window === null ? "" : `?window=${esc(window)}`
  return detailPage(
    `faultline — ticket ${t.id}`,
    `<header><h1>Ticket <code>${esc(t.id)}</code></h1>${backLink(window, 1)}</header>
<p><b id="state">${esc(t.state)}</b> · <span id="count">${t.count}</span> occurrences${
      incident === null ? "" : ` · <a id="incident-link" href="../incidents/${seg(incident)}${w}">the incident of its diagnosed event</a>`
    }</p>
${fields("ticket", [
  ["model", t.model],
  ["service", t.service],
  ["status", t.status],
  ["code", t.code],
  ["message", t.message],
  ["first seen", t.firstSeen],
  ["last seen", t.lastSeen],
  ["opened", t.openedAt],
  ["acknowledged", t.acknowledgedAt],
  ["resolved", t.resolvedAt],
  ["reopened", t.reopenedCount],
  ["event", t.eventId]
])}
<h2>Diagnosis</h2>
<p id="summary">${esc(d.summary)}</p>
<ul id="hints">${d.hints.map((h) => `<li>${esc(h)}</li>`).join("")}</ul>
<p>Other models with the same failure: <span id="other-models">${d.otherModelsAffected.length === 0 ? "none seen" : d.otherModelsAffected.map((m) => `<span class="chip">${esc(m)}</span>`).join(" ")}</span></p>
<h2>Reproduce the request</h2>
<p class="muted">Prints the response headers; set <code>&lt;API_KEY&gt;</code> (and <code>&lt;BASE_URL&gt;</code> when shown).</p>
<pre id="curl">${esc(d.curl)}</pre>
<h2>The same request with another model</h2>
<pre id="curl-other">${esc(d.curlOtherModel)}</pre>
<h2>Sample</h2>
<pre id="sample">${esc(t.sample)}</pre>`
  )
}

/** A 404 for a browser: what was not found, and the way back. */
export const renderMissingPage = (what: string, window: string | null): string =>
  detailPage(`faultline — ${what} not found`, `<header><h1>Not found</h1>${backLink(window, 1)}</header>\n<p id="missing">${esc(what)} not found.</p>`)
