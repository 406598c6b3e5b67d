/**
 * The HTML report (`GET /`, CONTRACT section 6) in a real browser: the built CLI runs `serve` in
 * a temp folder on an ephemeral loopback port, Debian's chromium (driven by playwright-core)
 * opens the page, and what it shows is compared with what `GET /v1/report`, `/v1/alerts` and
 * `/v1/tickets` answer: firing alerts' labels as chips, a click on a top incident opening its
 * events, a click on a ticket opening its diagnosis. Also the Basic-auth challenge of the pages
 * when `http.apiToken` is set, and that what the pages show is escaped, never markup.
 *
 * Skipped with a message when /usr/bin/chromium is missing, except under CI, where a missing
 * browser fails the tests.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { type Browser, chromium, type Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Daemon, startDaemon, tempDir, waitFor } from "../support/daemon.js"

const CHROMIUM = "/usr/bin/chromium"
const present = fs.existsSync(CHROMIUM)
const skip = !present && !process.env.CI
if (skip) console.warn(`page.test.ts: skipped: ${CHROMIUM} is missing (apt-get install -y chromium); under CI this fails instead`)

const SCREENSHOT_COPY = "/tmp/faultline-page.png"
const MIN = 60_000
const HOUR = 60 * MIN

const launch = (): Promise<Browser> => {
  if (!present) throw new Error(`${CHROMIUM} is missing: the page tests need Debian's chromium (apt-get install -y chromium)`)
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"],
    timeout: 45_000
  })
}

const svc = (code: number, message: string) => ({ code, message, data: null })
const M1 = "Qwen/Qwen2.5-7B-Instruct"
const M2 = "deepseek-ai/DeepSeek-V3"
const M3 = "Kwai-Kolors/Kolors"

/**
 * Failures of several categories: some in the last minute (so `api-key-invalid` and
 * `server-errors` fire: their windows are 5m of event time), some 10–40 minutes ago (inside the
 * 1h window), some 2–6 hours ago (inside 24h, outside 1h). Nothing near a window's edge.
 */
const seeds = (now: number) => [
  { id: "p-rl-1", occurredAt: now - 12 * MIN, status: 429, model: M1, service: "chat-api", body: svc(50603, "Request was rejected due to rate limiting. Details: TPM limit reached.") },
  { id: "p-rl-2", occurredAt: now - 22 * MIN, status: 429, model: M1, service: "chat-api", body: svc(50603, "Request was rejected due to rate limiting. Details: TPM limit reached.") },
  { id: "p-rl-3", occurredAt: now - 32 * MIN, status: 429, model: M2, service: "chat-api", body: svc(50603, "Request was rejected due to rate limiting. Details: RPM limit reached.") },
  { id: "p-ov-1", occurredAt: now - 17 * MIN, status: 503, model: M2, service: "chat-api", body: svc(50508, "System is too busy now. Please try again later.") },
  { id: "p-ov-2", occurredAt: now - 38 * MIN, status: 503, model: M2, service: "chat-api", body: svc(50508, "System is too busy now. Please try again later.") },
  { id: "p-mnf-1", occurredAt: now - 25 * MIN, status: 400, model: M3, service: "image-api", body: svc(20012, "Model does not exist. Please check it carefully.") },
  { id: "p-ak-1", occurredAt: now - 30_000, status: 401, model: M1, service: "batch-worker", body: svc(401, "Invalid token") },
  { id: "p-se-1", occurredAt: now - 20_000, status: 500, model: M2, service: "batch-worker", body: svc(50500, "The server had an error while processing your request.") },
  { id: "p-rl-old", occurredAt: now - 2 * HOUR, status: 429, model: M1, service: "chat-api", body: svc(50603, "Request was rejected due to rate limiting. Details: TPD limit reached.") },
  { id: "p-q-old", occurredAt: now - 4 * HOUR, status: 402, model: M1, service: "chat-api", body: svc(30001, "Sorry, your account balance is insufficient") },
  { id: "p-ov-old", occurredAt: now - 6 * HOUR, status: 503, model: M2, service: "chat-api", body: svc(50508, "System is too busy now. Please try again later.") }
].map((s) => ({ ...s, occurredAt: new Date(s.occurredAt).toISOString() }))

const seed = async (d: Daemon, token?: string): Promise<number> => {
  const records = seeds(Date.now())
  const r = await d.fetch("/v1/events", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(records), ...(token ? { token } : {}) })
  const text = await r.text()
  expect(r.status, text).toBe(202)
  expect(JSON.parse(text)).toMatchObject({ accepted: records.length, duplicates: 0, rejected: [] })
  // and the application's own call counts: the successes beside those failures
  const minute = new Date(Math.floor(Date.now() / MIN) * MIN - 20 * MIN).toISOString()
  const calls = { calls: [{ minute, service: "chat-api", model: M1, ok: 96, failed: 0 }, { minute, service: "chat-api", model: M2, ok: 45, failed: 0 }] }
  const c = await d.fetch("/v1/events", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(calls), ...(token ? { token } : {}) })
  expect(c.status).toBe(202)
  return records.length
}

/** What the page shows, read in one go right after it loaded (it refreshes itself every 30 s). */
interface Shown {
  readonly title: string
  readonly total: number
  readonly alertsFiring: number
  readonly ticketsOpen: number
  readonly byCategory: Record<string, number>
  readonly bars: Record<string, number>
  readonly activeWindow: string
  readonly windowLinks: Array<{ text: string; href: string | null }>
  readonly alertRows: string[]
  readonly ticketRows: string[]
}

const num = async (page: Page, selector: string): Promise<number> => {
  const t = (await page.locator(selector).textContent())?.trim() ?? ""
  expect(t, `${selector} should hold a number`).toMatch(/^\d+$/)
  return Number(t)
}

const read = async (page: Page): Promise<Shown> => {
  const byCategory: Record<string, number> = {}
  for (const cell of await page.locator("#by-category td[data-key]").all()) {
    byCategory[(await cell.getAttribute("data-key"))!] = Number((await cell.textContent())!.trim())
  }
  // each bar is one (bucket, category) with its count in its <title>: "<start> <category>: <n>"
  const bars: Record<string, number> = {}
  for (const title of await page.locator("svg.timeline rect title").allTextContents()) {
    const m = /^(\S+) (\S+): (\d+)$/.exec(title.trim())
    expect(m, `bar title ${JSON.stringify(title)}`).not.toBeNull()
    bars[`${m![1]} ${m![2]}`] = Number(m![3])
  }
  const windowLinks: Array<{ text: string; href: string | null }> = []
  for (const a of await page.locator("nav a").all()) windowLinks.push({ text: (await a.textContent())!.trim(), href: await a.getAttribute("href") })
  return {
    title: await page.title(),
    total: await num(page, "#total"),
    alertsFiring: await num(page, "#alerts-firing"),
    ticketsOpen: await num(page, "#tickets-open"),
    byCategory,
    bars,
    activeWindow: ((await page.locator("nav a.on").textContent()) ?? "").trim(),
    windowLinks,
    alertRows: (await page.locator("#alerts tr").allTextContents()).map((t) => t.replace(/\s+/g, " ").trim()),
    ticketRows: (await page.locator("#tickets tr").allTextContents()).map((t) => t.replace(/\s+/g, " ").trim())
  }
}

/** The bars the report's timeline calls for: one per (bucket, category) with a count. */
const expectedBars = (timeline: Array<{ start: string; byCategory: Record<string, number> }>): Record<string, number> => {
  const out: Record<string, number> = {}
  for (const b of timeline) for (const [cat, n] of Object.entries(b.byCategory)) if (n > 0) out[`${b.start} ${cat}`] = n
  return out
}

describe.skipIf(skip)("GET / in a real browser", { timeout: 90_000 }, () => {
  let d: Daemon
  let browser: Browser
  let seeded = 0

  beforeAll(async () => {
    d = await startDaemon()
    seeded = await seed(d)
    // the recent 401 and 500 fire their rules and open a ticket as they are stored
    await waitFor("api-key-invalid and server-errors to fire and a ticket to open", async () => {
      const a = await d.json<{ alerts: Array<{ rule: string }> }>("/v1/alerts?state=firing")
      const t = await d.json<{ tickets: unknown[] }>("/v1/tickets?state=open")
      const rules = a.alerts.map((x) => x.rule).sort()
      return rules.join(",") === "api-key-invalid,server-errors" && t.tickets.length === 1
    }, 30_000)
    browser = await launch()
  }, 120_000)
  afterAll(async () => {
    await browser?.close()
    if (d !== undefined) await d.stop("SIGTERM")
  })

  it("shows the numbers GET /v1/report answers, a timeline with bars, firing alerts and open tickets", async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } })
    try {
      const res = await page.goto(d.url + "/", { waitUntil: "load", timeout: 30_000 })
      expect(res?.status()).toBe(200)
      expect(res?.headers()["content-type"]).toMatch(/^text\/html/)
      const shown = await read(page)
      const report = await d.json("/v1/report")
      const firing = (await d.json("/v1/alerts?state=firing")).alerts as Array<{ rule: string; count: number }>
      const open = (await d.json("/v1/tickets?state=open")).tickets as Array<{ id: string; model: string; count: number }>

      expect(report.total).toBe(seeded)
      expect(shown.total).toBe(report.total)
      expect(shown.alertsFiring).toBe(report.alerts.firing)
      expect(shown.alertsFiring).toBe(2)
      expect(shown.ticketsOpen).toBe(report.tickets.open)
      expect(shown.ticketsOpen).toBe(1)
      expect(shown.byCategory).toEqual(report.byCategory)
      expect(shown.byCategory).toMatchObject({ rate_limit: 4, overload: 3, model_not_found: 1, auth_key: 1, server_error: 1, quota: 1 })
      expect(shown.title).toBe(`faultline — ${report.total} failures in 24h`)
      expect(shown.activeWindow).toBe("24h")

      // the timeline: one bar per (bucket, category) of the report's timeline, same counts
      expect(Object.keys(shown.bars).length).toBeGreaterThanOrEqual(6)
      expect(shown.bars).toEqual(expectedBars(report.timeline))
      expect(await page.locator("svg.timeline rect").count()).toBe(Object.keys(shown.bars).length)
      const box = await page.locator("svg.timeline").boundingBox()
      expect(box!.width).toBeGreaterThan(300)
      expect(box!.height).toBeGreaterThan(30)

      // firing alerts and the open ticket have their rows
      expect(firing.map((a) => a.rule).sort()).toEqual(["api-key-invalid", "server-errors"])
      for (const a of firing) expect(shown.alertRows.some((row) => row.startsWith(a.rule))).toBe(true)
      expect(shown.alertRows).toHaveLength(firing.length)
      expect(open).toHaveLength(1)
      expect(shown.ticketRows).toHaveLength(1)
      expect(shown.ticketRows[0]).toContain(open[0]!.id)
      expect(shown.ticketRows[0]).toContain("open")
      expect(shown.ticketRows[0]).toContain(M2)
      expect(await page.locator("#alerts td.critical").count()).toBe(2)

      // calls, the failure ratio and the model health table agree with the report
      expect(await num(page, "#calls")).toBe(report.calls)
      expect(report.calls).toBe(report.total + 96 + 45)
      expect((await page.locator("#failure-ratio").textContent())!.trim()).toBe(`${(Math.round(report.failureRatio * 1000) / 10).toFixed(1)}%`)
      const health: Record<string, { calls: string; failures: string }> = {}
      for (const row of await page.locator("#model-health tr[data-model]").all()) {
        const cells = (await row.locator("td").allTextContents()).map((t) => t.trim())
        health[(await row.getAttribute("data-model"))!] = { calls: cells[1]!, failures: cells[2]! }
      }
      expect(health).toEqual(Object.fromEntries(report.byModel.map((m: any) => [m.model, { calls: String(m.calls), failures: String(m.total) }])))
      expect(await page.locator("#ratio-line").count()).toBe(1)
    } finally {
      await page.close()
    }
  })

  it("has window links that work: clicking 1h shows the 1h window", async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } })
    try {
      await page.goto(d.url + "/", { waitUntil: "load", timeout: 30_000 })
      const before = await read(page)
      expect(before.windowLinks).toEqual(["15m", "1h", "24h", "7d"].map((w) => ({ text: w, href: `?window=${w}` })))

      await Promise.all([page.waitForURL(/\?window=1h$/, { timeout: 30_000 }), page.locator("nav a", { hasText: /^1h$/ }).click()])
      await page.waitForLoadState("load")
      const shown = await read(page)
      const report = await d.json("/v1/report?since=1h")
      expect(shown.activeWindow).toBe("1h")
      expect(shown.title).toBe(`faultline — ${report.total} failures in 1h`)
      // the 1h window holds the 8 recent seeds, not the 3 of 2–6 hours ago
      expect(report.total).toBe(8)
      expect(shown.total).toBe(report.total)
      expect(shown.total).toBeLessThan(before.total)
      expect(shown.byCategory).toEqual(report.byCategory)
      expect(shown.byCategory.quota).toBe(0)
      expect(shown.bars).toEqual(expectedBars(report.timeline))
      // alerts and tickets are "now", whatever the window
      expect(shown.alertsFiring).toBe(2)
      expect(shown.ticketsOpen).toBe(1)

      for (const w of ["15m", "7d"] as const) {
        const res = await page.goto(`${d.url}/?window=${w}`, { waitUntil: "load", timeout: 30_000 })
        expect(res?.status()).toBe(200)
        const s = await read(page)
        const r = await d.json(`/v1/report?since=${w}`)
        expect(s.activeWindow, w).toBe(w)
        expect(s.total, w).toBe(r.total)
        expect(s.byCategory, w).toEqual(r.byCategory)
      }
      // 15m: only the two of the last minute and the one of 12 minutes ago
      expect((await d.json("/v1/report?since=15m")).total).toBe(3)
    } finally {
      await page.close()
    }
  })

  it("shows firing alerts' labels as key=value chips, not JSON", async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } })
    try {
      await page.goto(d.url + "/", { waitUntil: "load", timeout: 30_000 })
      const firing = (await d.json("/v1/alerts?state=firing")).alerts as Array<{ rule: string; labels: Record<string, string | null> }>
      expect(firing).toHaveLength(2)
      const rows = await page.locator("#alerts tr").all()
      expect(rows).toHaveLength(firing.length)
      for (const row of rows) {
        const rule = ((await row.locator("td").first().textContent()) ?? "").trim()
        const alert = firing.find((a) => a.rule === rule)
        expect(alert, `a row for ${rule}`).toBeDefined()
        const chips = (await row.locator(".chip").allTextContents()).map((t) => t.trim())
        // one chip per label with a value, in the alert's order; null labels are left out
        expect(chips).toEqual(Object.entries(alert!.labels).filter(([, v]) => v !== null).map(([k, v]) => `${k}=${v}`))
        expect(chips).toEqual(expect.arrayContaining([`alertname=${rule}`, "severity=critical"]))
        expect(await row.locator("td.labels").textContent()).not.toMatch(/[{}"]/)
      }
      // laid out as chips: bordered inline boxes side by side, not one line of text
      const chips = page.locator("#alerts tr").first().locator(".chip")
      const [a, b] = [await chips.nth(0).boundingBox(), await chips.nth(1).boundingBox()]
      expect(a!.height).toBeGreaterThan(10)
      expect(b!.x).toBeGreaterThan(a!.x + a!.width)
      expect(await chips.nth(0).evaluate((el) => (globalThis as any).getComputedStyle(el).borderTopStyle)).toBe("solid")
    } finally {
      await page.close()
    }
  })

  it("opens a top incident's events when its row is clicked, and goes back to the report", async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } })
    try {
      await page.goto(d.url + "/?window=1h", { waitUntil: "load", timeout: 30_000 })
      const report = await d.json("/v1/report?since=1h")
      // every top incident's row links to its page
      expect(await page.locator("#top tbody tr[data-fingerprint]").count()).toBe(report.top.length)
      const top = (report.top as Array<{ fingerprint: string; category: string; rateLimitKind: string | null; model: string; count: number }>).find(
        (t) => t.category === "rate_limit" && t.rateLimitKind === "TPM"
      )!
      expect(top).toMatchObject({ model: M1, count: 2 })

      // a click on the row (its message) opens the incident
      const row = page.locator(`#top tr[data-fingerprint="${top.fingerprint}"]`)
      await Promise.all([page.waitForURL(new RegExp(`/incidents/${top.fingerprint}\\?window=1h$`), { timeout: 30_000 }), row.locator("td").nth(5).click()])
      await page.waitForLoadState("load")
      expect(await page.title()).toBe(`faultline — incident ${top.fingerprint}`)
      expect(await page.locator("#category").textContent()).toBe("rate_limit")
      expect(await page.locator("#kind").textContent()).toBe("TPM")
      expect(await page.locator('#incident dd[data-field="model"]').textContent()).toBe(M1)

      // its events, newest first: the ones GET /v1/events holds with this fingerprint
      const stored = ((await d.json(`/v1/events?since=7d&category=rate_limit&model=${encodeURIComponent(M1)}`)).events as Array<{ id: string; fingerprint: string }>)
        .filter((e) => e.fingerprint === top.fingerprint)
        .map((e) => e.id)
      const shown = await page.locator("#events tbody tr").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-event")))
      expect(shown).toEqual(stored)
      expect(shown).toEqual(["p-rl-1", "p-rl-2"])
      const firstRow = ((await page.locator("#events tbody tr").first().textContent()) ?? "").replace(/\s+/g, " ")
      expect(firstRow).toContain("chat-api")
      expect(firstRow).toContain("TPM limit reached")

      // back to the report, in the window it came from
      await Promise.all([page.waitForURL(/\/\?window=1h$/, { timeout: 30_000 }), page.locator("#back").click()])
      await page.waitForLoadState("load")
      expect((await read(page)).activeWindow).toBe("1h")

      // an unknown incident is a page that says so
      const missing = await page.goto(d.url + "/incidents/0123456789abcdef", { waitUntil: "load", timeout: 30_000 })
      expect(missing?.status()).toBe(404)
      expect(await page.locator("#missing").textContent()).toContain("0123456789abcdef")
    } finally {
      await page.close()
    }
  })

  it("opens an open ticket with its diagnosis and curl commands when its row is clicked", async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } })
    try {
      await page.goto(d.url + "/", { waitUntil: "load", timeout: 30_000 })
      const [ticket] = (await d.json("/v1/tickets?state=open")).tickets as Array<{
        id: string
        eventId: string
        diagnosis: { summary: string; curl: string; curlOtherModel: string; hints: string[] }
      }>
      const row = page.locator(`#tickets tr[data-ticket="${ticket!.id}"]`)
      await Promise.all([page.waitForURL(new RegExp(`/tickets/${ticket!.id}\\?window=24h$`), { timeout: 30_000 }), row.locator("td").nth(1).click()])
      await page.waitForLoadState("load")
      expect(await page.locator("#state").textContent()).toBe("open")
      expect(await page.locator("#summary").textContent()).toBe(ticket!.diagnosis.summary)
      expect(await page.locator("#hints li").allTextContents()).toEqual(ticket!.diagnosis.hints)
      // the commands as text, ready to copy: quotes and <API_KEY> as written
      expect(await page.locator("#curl").textContent()).toBe(ticket!.diagnosis.curl)
      expect(await page.locator("#curl-other").textContent()).toBe(ticket!.diagnosis.curlOtherModel)
      expect(ticket!.diagnosis.curl).toContain("authorization: Bearer <API_KEY>")
      expect(ticket!.diagnosis.curl).toContain(M2)

      // and on to the incident of its diagnosed event
      await Promise.all([page.waitForURL(/\/incidents\/[0-9a-f]{16}\?window=24h$/, { timeout: 30_000 }), page.locator("#incident-link").click()])
      await page.waitForLoadState("load")
      expect(await page.locator("#category").textContent()).toBe("server_error")
      expect(await page.locator("#events tbody tr").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-event")))).toEqual([ticket!.eventId])
    } finally {
      await page.close()
    }
  })

  it("renders to a non-blank screenshot", async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } })
    try {
      await page.goto(d.url + "/", { waitUntil: "load", timeout: 30_000 })
      const file = path.join(tempDir("faultline-page-"), "page.png")
      await page.screenshot({ path: file, fullPage: true, timeout: 30_000 })
      const png = fs.readFileSync(file)
      expect(png.subarray(0, 8).toString("hex")).toBe("89504e470d0a1a0a")
      expect(png.length).toBeGreaterThan(10 * 1024)
      fs.copyFileSync(file, SCREENSHOT_COPY)
      // rendered text, as the browser lays it out
      const text = String(await page.evaluate("document.body.innerText"))
      expect(text).toContain("faultline report")
      expect(text).toContain("Top incidents")
      expect(text).toContain("server-errors")
      const height = Number(await page.evaluate("document.documentElement.scrollHeight"))
      expect(height).toBeGreaterThan(600)
    } finally {
      await page.close()
    }
  })
})

describe.skipIf(skip)("GET / with http.apiToken set", { timeout: 90_000 }, () => {
  const TOKEN = "page-token-7f3a9c"
  let d: Daemon
  let browser: Browser

  beforeAll(async () => {
    d = await startDaemon({ config: { http: { apiToken: TOKEN } }, apiToken: TOKEN })
    await seed(d, TOKEN)
    browser = await launch()
  }, 120_000)
  afterAll(async () => {
    await browser?.close()
    if (d !== undefined) await d.stop("SIGTERM")
  })

  it("challenges with Basic auth, refuses a wrong password and opens with the token as password", async () => {
    const anonymous = await browser.newContext()
    const wrong = await browser.newContext({ httpCredentials: { username: "oncall", password: "not-the-token" } })
    const right = await browser.newContext({ httpCredentials: { username: "anyone", password: TOKEN } })
    try {
      // without credentials: a Basic challenge (the browser gives up on it: no credentials to offer)
      const r0 = await anonymous.request.get(d.url + "/", { timeout: 30_000 })
      expect(r0.status()).toBe(401)
      expect(r0.headers()["www-authenticate"]).toBe('Basic realm="faultline"')
      expect(await r0.text()).not.toContain('id="total"')
      const p0 = await anonymous.newPage()
      await expect(p0.goto(d.url + "/", { timeout: 30_000 })).rejects.toThrow(/ERR_INVALID_AUTH_CREDENTIALS/)

      // a wrong password: challenged again, never the page
      const r1 = await wrong.request.get(d.url + "/", { timeout: 30_000 })
      expect(r1.status()).toBe(401)
      expect(r1.headers()["www-authenticate"]).toBe('Basic realm="faultline"')
      const p1 = await wrong.newPage()
      const g1 = await p1.goto(d.url + "/", { timeout: 30_000 }).catch((e: Error) => e)
      if (g1 instanceof Error) expect(g1.message).toMatch(/ERR_INVALID_AUTH_CREDENTIALS/)
      else expect(g1?.status()).toBe(401)
      expect(await p1.locator("#total").count()).toBe(0)

      const p2 = await right.newPage()
      const r2 = await p2.goto(d.url + "/?window=1h", { waitUntil: "load", timeout: 30_000 })
      expect(r2?.status()).toBe(200)
      const shown = await read(p2)
      const report = await d.json("/v1/report?since=1h")
      expect(shown.activeWindow).toBe("1h")
      expect(shown.total).toBe(report.total)
      expect(shown.total).toBe(8)
      expect(shown.byCategory).toEqual(report.byCategory)
      // the window links keep working with the same credentials
      await Promise.all([p2.waitForURL(/\?window=24h$/, { timeout: 30_000 }), p2.locator("nav a", { hasText: /^24h$/ }).click()])
      await p2.waitForLoadState("load")
      expect(await num(p2, "#total")).toBe((await d.json("/v1/report")).total)
    } finally {
      await Promise.all([anonymous.close(), wrong.close(), right.close()])
    }
  })

  it("guards the incident and ticket pages the same way, and their links open with the same credentials", async () => {
    const anonymous = await browser.newContext()
    const right = await browser.newContext({ httpCredentials: { username: "anyone", password: TOKEN } })
    try {
      const report = await d.json("/v1/report")
      const fp = report.top[0].fingerprint as string
      const [ticket] = (await d.json("/v1/tickets")).tickets as Array<{ id: string }>
      for (const p of [`/incidents/${fp}`, `/tickets/${ticket!.id}`, "/incidents/0123456789abcdef"]) {
        const r = await anonymous.request.get(d.url + p, { timeout: 30_000 })
        expect(r.status(), p).toBe(401)
        expect(r.headers()["www-authenticate"], p).toBe('Basic realm="faultline"')
        expect(await r.text(), p).not.toContain("<table")
        // a bearer token opens them too, as it opens GET /
        expect((await d.fetch(p)).status, p).toBe(p.endsWith("abcdef") ? 404 : 200)
      }

      const page = await right.newPage()
      await page.goto(d.url + "/", { waitUntil: "load", timeout: 30_000 })
      await Promise.all([page.waitForURL(new RegExp(`/incidents/${fp}\\?window=24h$`), { timeout: 30_000 }), page.locator(`#top tr[data-fingerprint="${fp}"] td`).first().click()])
      await page.waitForLoadState("load")
      expect(await page.locator("#events tbody tr[data-event]").count()).toBeGreaterThan(0)
      await Promise.all([page.waitForURL(/\/\?window=24h$/, { timeout: 30_000 }), page.locator("#back").click()])
      await Promise.all([page.waitForURL(new RegExp(`/tickets/${ticket!.id}\\?window=24h$`), { timeout: 30_000 }), page.locator(`#tickets tr[data-ticket="${ticket!.id}"] td`).first().click()])
      await page.waitForLoadState("load")
      expect((await page.locator("#curl").textContent()) ?? "").toContain("curl -i")
    } finally {
      await Promise.all([anonymous.close(), right.close()])
    }
  })
})

/**
 * Values that come from the logs (model, service, message, sample) are markup-free on every
 * page: a model named like an <img> tag with an onerror handler, a message with a <script>.
 */
describe.skipIf(skip)("what the pages show is escaped", { timeout: 90_000 }, () => {
  const MODEL = `<img src=x onerror="window.__pwned='model'">`
  const SERVICE = `svc"><svg onload="window.__pwned='service'">`
  const MESSAGE = `Internal error <script>window.__pwned='message'</script> & 'more'`
  let d: Daemon
  let browser: Browser

  beforeAll(async () => {
    d = await startDaemon()
    const now = Date.now()
    const records = [1, 2].map((i) => ({
      id: `x-se-${i}`,
      occurredAt: new Date(now - i * 60_000).toISOString(),
      status: 500,
      model: MODEL,
      service: SERVICE,
      body: { code: 50500, message: MESSAGE }
    }))
    const r = await d.fetch("/v1/events", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(records) })
    expect(r.status, await r.text()).toBe(202)
    await waitFor("a ticket to open", async () => (await d.json<{ tickets: unknown[] }>("/v1/tickets?state=open")).tickets.length === 1, 30_000)
    browser = await launch()
  }, 120_000)
  afterAll(async () => {
    await browser?.close()
    if (d !== undefined) await d.stop("SIGTERM")
  })

  it("shows markup as text on the report, the incident and the ticket pages", async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } })
    try {
      const injected = async () => ({
        pwned: await page.evaluate("window.__pwned ?? null"),
        elements: await page.locator("body img, body script, body svg:not(.timeline):not(.timeline *)").count()
      })
      await page.goto(d.url + "/", { waitUntil: "load", timeout: 30_000 })
      expect(await injected()).toEqual({ pwned: null, elements: 0 })
      const row = page.locator("#top tbody tr[data-fingerprint]").first()
      expect(((await row.textContent()) ?? "").replace(/\s+/g, " ")).toContain(MODEL)
      expect(await row.textContent()).toContain(MESSAGE)

      await Promise.all([page.waitForURL(/\/incidents\/[0-9a-f]{16}/, { timeout: 30_000 }), row.locator("td").first().click()])
      await page.waitForLoadState("load")
      expect(await injected()).toEqual({ pwned: null, elements: 0 })
      expect(await page.locator('#incident dd[data-field="model"]').textContent()).toBe(MODEL)
      expect(await page.locator('#incident dd[data-field="service"]').textContent()).toBe(SERVICE)
      expect(await page.locator("#events tbody tr").count()).toBe(2)
      expect(await page.locator("#sample").textContent()).toContain(MESSAGE)

      await page.goto(d.url + "/", { waitUntil: "load", timeout: 30_000 })
      await Promise.all([page.waitForURL(/\/tickets\//, { timeout: 30_000 }), page.locator("#tickets tr[data-ticket] td").first().click()])
      await page.waitForLoadState("load")
      expect(await injected()).toEqual({ pwned: null, elements: 0 })
      expect(await page.locator('#ticket dd[data-field="model"]').textContent()).toBe(MODEL)
      expect(await page.locator('#ticket dd[data-field="message"]').textContent()).toBe(MESSAGE)
      expect(await page.locator("#curl").textContent()).toContain(JSON.stringify(MODEL).slice(1, -1).replace(/'/g, "'\\''"))
    } finally {
      await page.close()
    }
  })
})
