/**
 * `GET /`: the report for people on call, rendered on the server with no external assets:
 * totals, a timeline by category (inline SVG), breakdowns, top incidents with their action,
 * firing alerts and open tickets, a window selector; refreshes itself.
 */
import type { Category } from "../classify/Event.js"
import type { Report } from "../store/EventStore.js"

export interface PageExtras {
  readonly windowLabel: string
  readonly firingAlerts: ReadonlyArray<{ rule: string; labels: Record<string, unknown>; count: number; severity: string; startsAt: string; action: string }>
  readonly openTickets: ReadonlyArray<{ id: string; state: string; count: number; model: string | null; message: string | null; lastSeen: string }>
  readonly generatedAt: string
}

export const pageWindows = ["15m", "1h", "24h", "7d"] as const

const esc = (v: unknown): string =>
  String(v ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!)

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
  const first = timeline[0]!.start
  const last = timeline[timeline.length - 1]!.start
  return `<svg class="timeline" viewBox="0 0 ${W} ${H}" role="img" aria-label="failures over time by category">
  <line x1="${pad}" y1="${H - pad}" x2="${W}" y2="${H - pad}" stroke="#888"/>
  <text x="0" y="${pad}" font-size="11" fill="#666">${max}</text>
  <text x="${pad}" y="${H - 8}" font-size="11" fill="#666">${esc(first.slice(0, 16).replace("T", " "))}</text>
  <text x="${W}" y="${H - 8}" font-size="11" fill="#666" text-anchor="end">${esc(last.slice(0, 16).replace("T", " "))}</text>
  ${bars.join("\n  ")}
</svg>`
}

const kv = (title: string, id: string, m: Record<string, number>): string => {
  const rows = Object.entries(m).sort((a, b) => b[1] - a[1])
  return `<section><h2>${esc(title)}</h2><table id="${id}"><tbody>${
    rows.length === 0
      ? `<tr><td class="muted">none</td></tr>`
      : rows.map(([k, v]) => `<tr><td>${k in colors ? `<span class="dot" style="background:${colors[k as Category]}"></span>` : ""}${esc(k)}</td><td class="num" data-key="${esc(k)}">${v}</td></tr>`).join("")
  }</tbody></table></section>`
}

export const renderPage = (r: Report, x: PageExtras): string => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="refresh" content="30">
<title>faultline — ${r.total} failures in ${esc(x.windowLabel)}</title>
<style>
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
</style>
</head>
<body>
<header>
  <h1>faultline report</h1>
  <nav>window:${pageWindows.map((w) => `<a href="?window=${w}" class="${w === x.windowLabel ? "on" : ""}">${w}</a>`).join("")}</nav>
</header>
<p class="muted">${esc(r.window.since)} → ${esc(r.window.until)} · generated ${esc(x.generatedAt)} · refreshes every 30 s</p>
<div class="cards">
  <div class="card">failures<b id="total">${r.total}</b></div>
  <div class="card">alerts firing<b id="alerts-firing">${r.alerts.firing}</b></div>
  <div class="card">tickets open<b id="tickets-open">${r.tickets.open}</b></div>
  <div class="card">lines read<b id="lines-read">${r.ingest.linesRead}</b></div>
</div>
<h2>Timeline</h2>
${timelineSvg(r.timeline)}
<div class="grid">
  ${kv("By category", "by-category", r.byCategory as Record<string, number>)}
  ${kv("By rate-limit kind", "by-kind", r.byRateLimitKind as Record<string, number>)}
  ${kv("By status", "by-status", r.byStatus as Record<string, number>)}
  ${kv("By provider", "by-provider", r.byProvider)}
  ${kv("By model", "by-model", Object.fromEntries(r.byModel.map((m) => [m.model ?? "(none)", m.total])))}
</div>
<h2>Top incidents</h2>
<table id="top"><thead><tr><th>count</th><th>category</th><th>kind</th><th>status</th><th>model</th><th>message</th><th>action</th><th>last seen</th></tr></thead><tbody>
${r.top.length === 0 ? `<tr><td colspan="8" class="muted">none</td></tr>` : r.top.map((t) => `<tr><td class="num">${t.count}</td><td>${esc(t.category)}</td><td>${esc(t.rateLimitKind ?? "")}</td><td>${esc(t.status ?? "")}</td><td>${esc(t.model ?? "")}</td><td>${esc((t.message ?? "").slice(0, 160))}</td><td>${esc(t.action)}</td><td>${esc(t.lastSeen)}</td></tr>`).join("\n")}
</tbody></table>
<h2>Firing alerts</h2>
<table id="alerts"><tbody>
${x.firingAlerts.length === 0 ? `<tr><td class="muted">none</td></tr>` : x.firingAlerts.map((a) => `<tr><td class="${a.severity === "critical" ? "critical" : ""}">${esc(a.rule)}</td><td><code>${esc(JSON.stringify(a.labels))}</code></td><td class="num">${a.count}</td><td>${esc(a.startsAt)}</td><td>${esc(a.action)}</td></tr>`).join("\n")}
</tbody></table>
<h2>Open tickets</h2>
<table id="tickets"><tbody>
${x.openTickets.length === 0 ? `<tr><td class="muted">none</td></tr>` : x.openTickets.map((t) => `<tr><td><code>${esc(t.id)}</code></td><td>${esc(t.state)}</td><td class="num">${t.count}</td><td>${esc(t.model ?? "")}</td><td>${esc((t.message ?? "").slice(0, 160))}</td><td>${esc(t.lastSeen)}</td></tr>`).join("\n")}
</tbody></table>
</body>
</html>
`
