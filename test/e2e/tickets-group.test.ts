/**
 * One incident, one ticket (CONTRACT section 7, issue 18) through the daemon as a user runs it:
 * the built CLI runs `serve` in a temp folder on an ephemeral loopback port, one upstream 500
 * arrives through POST /v1/events as four models and two services see it, and the ticket goes to
 * a real recording HTTP receiver on 127.0.0.1 (alerts to another path of it).
 *
 * "Only one notification" is read off the outbox: once the API shows every occurrence counted,
 * every notification those occurrences decided is in the outbox (same transaction), so waiting
 * for the outbox to drain and comparing with what the receiver got needs no fixed sleep.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { type Daemon, runCli, startDaemon, tempDir, waitFor } from "../support/daemon.js"
import { type Received, type Receiver, startReceiver } from "../support/receiver.js"

const WAIT = 40_000
const MODELS = ["deepseek-ai/DeepSeek-V3", "Qwen/Qwen2.5-72B-Instruct", "THUDM/glm-4-9b-chat", "meta-llama/Llama-3.3-70B-Instruct"]
const SERVICES = ["chat-api", "batch-worker"]

const daemons: Daemon[] = []
const receivers: Receiver[] = []
afterEach(async () => {
  for (const d of daemons.splice(0)) if (d.proc.exitCode === null && d.proc.signalCode === null) await d.kill9()
  for (const r of receivers.splice(0)) await r.close()
})

const setup = async (tickets: Record<string, unknown> = {}): Promise<{ d: Daemon; hook: Receiver }> => {
  const hook = await startReceiver()
  receivers.push(hook)
  const dir = tempDir("faultline-tickets-")
  fs.mkdirSync(path.join(dir, "logs"))
  const d = await startDaemon({
    dir,
    config: {
      tail: [{ path: path.join(dir, "logs/**/*.log"), startAt: "beginning" }],
      receivers: [
        { name: "hook", type: "webhook", url: `${hook.url}/hook`, timeout: "5s" },
        { name: "oncall", type: "webhook", url: `${hook.url}/tickets`, timeout: "5s" }
      ],
      defaultReceivers: ["hook"],
      tickets: { receivers: ["oncall"], ...tickets },
      delivery: { initialBackoff: "200ms", maxBackoff: "1s" }
    }
  })
  daemons.push(d)
  return { d, hook }
}

let n = 0
/** One upstream 500 as one model of one service sees it: its own request id, the same wording. */
const upstream500 = (model: string, service: string) => {
  const requestId = `req_${++n}`
  return { status: 500, model, service, requestId, body: { code: 50500, message: `Unknown error, request id ${requestId}`, data: null } }
}

const post = async (d: Daemon, records: unknown): Promise<void> => {
  const r = await d.fetch("/v1/events", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(records) })
  const text = await r.text()
  expect(r.status, text).toBe(202)
  expect(JSON.parse(text)).toMatchObject({ rejected: [] })
}

const ticketsGot = (r: Receiver): Received[] => r.received.filter((x) => x.path === "/tickets")

/** Every occurrence counted (the API), then the outbox drained: what the receiver got is all it will get. */
const settled = async (d: Daemon, occurrences: number): Promise<any[]> => {
  const tickets = await waitFor(`${occurrences} occurrences counted on tickets`, async () => {
    const l = (await d.json("/v1/tickets")).tickets as any[]
    return l.reduce((s, t) => s + t.count, 0) === occurrences ? l : undefined
  }, WAIT)
  await waitFor("the outbox drained", async () => (await d.json("/v1/notifications?state=pending")).notifications.length === 0, WAIT)
  return tickets
}

describe("one incident, one ticket, through the daemon", { timeout: 120_000 }, () => {
  it("one upstream 500 seen from four models and two services opens one ticket listing them, sent once to the ticket receiver", async () => {
    const { d, hook } = await setup()
    // as the applications report it: each call on its own
    for (const model of MODELS) for (const service of SERVICES) await post(d, upstream500(model, service))

    const tickets = await settled(d, 8)
    expect(tickets).toHaveLength(1)
    const t = tickets[0]
    expect(t).toMatchObject({ state: "open", count: 8, status: 500, code: 50500, reopenedCount: 0, model: MODELS[0], service: "chat-api" })
    expect(t.fingerprint).toMatch(/^[0-9a-f]{16}$/)
    expect(t.models).toHaveLength(4)
    expect(t.models.map((m: any) => m.model).sort()).toEqual([...MODELS].sort())
    expect(t.models.map((m: any) => m.count)).toEqual([2, 2, 2, 2])
    expect(t.services).toHaveLength(2)
    expect(t.services.map((s: any) => s.service).sort()).toEqual([...SERVICES].sort())
    expect(t.services.map((s: any) => s.count)).toEqual([4, 4])
    expect([...t.diagnosis.otherModelsAffected].sort()).toEqual(MODELS.filter((m) => m !== MODELS[0]).sort())
    expect(t.diagnosis.summary).toContain("4 models affected")
    expect(t.diagnosis.curl).toContain(`"model":"${MODELS[0]}"`)

    // one notification to the ticket receiver: one outbox row, one request received
    const outbox = (await d.json("/v1/notifications?receiver=oncall")).notifications as any[]
    expect(outbox.map((x) => [x.kind, x.status, x.state])).toEqual([["ticket", "open", "delivered"]])
    const got = ticketsGot(hook)
    expect(got).toHaveLength(1)
    expect(got[0]!.json()).toMatchObject({ kind: "ticket", status: "open", ticketId: t.id, fingerprint: t.fingerprint })
    // the alert side is unchanged: the server-errors rule still alerts (to the default receivers)
    expect(hook.received.filter((x) => x.path === "/hook").map((x) => x.json().rule)).toContain("server-errors")

    // resolved, then the same failure from yet another model and service: the one ticket reopens
    const r = await d.fetch(`/v1/tickets/${t.id}/resolve`, { method: "POST" })
    expect(r.status).toBe(200)
    const resolvedAt = Date.parse(JSON.parse(await r.text()).resolvedAt)
    await waitFor("the clock to pass the resolution", () => Date.now() > resolvedAt + 5)
    await post(d, { ...upstream500("Pro/moonshotai/Kimi-K2-Instruct", "agent"), occurredAt: new Date().toISOString() })
    const [reopened] = await waitFor("the reopened ticket", async () => {
      const l = (await d.json("/v1/tickets")).tickets as any[]
      return l.length === 1 && l[0].state === "open" && l[0].count === 9 ? l : undefined
    }, WAIT)
    expect(reopened).toMatchObject({ id: t.id, fingerprint: t.fingerprint, reopenedCount: 1 })
    expect(reopened.models).toHaveLength(5)
    expect(reopened.services).toHaveLength(3)
    await waitFor("the reopened notification", () => ticketsGot(hook).some((x) => x.json().status === "reopened"), WAIT)
    expect(ticketsGot(hook).map((x) => x.json().status)).toEqual(["open", "resolved", "reopened"])
  })

  it("with tickets.groupBy [\"model\"] the same storm opens one ticket per model", async () => {
    const { d, hook } = await setup({ groupBy: ["model"] })
    await post(d, MODELS.flatMap((model) => SERVICES.map((service) => upstream500(model, service))))

    const tickets = await settled(d, 8)
    expect(tickets).toHaveLength(4)
    expect(tickets.map((t) => t.model).sort()).toEqual([...MODELS].sort())
    for (const t of tickets) {
      expect(t).toMatchObject({ state: "open", count: 2, models: [{ model: t.model, count: 2 }], group: { model: t.model } })
      expect(t.services.map((s: any) => s.service).sort()).toEqual([...SERVICES].sort())
    }
    const got = ticketsGot(hook).map((x) => x.json())
    expect(got.map((b) => b.status)).toEqual(["open", "open", "open", "open"])
    expect(got.map((b) => b.ticket.model).sort()).toEqual([...MODELS].sort())
  })

  it("refuses a bad tickets.groupBy label at start-up, naming the field", async () => {
    const dir = tempDir("faultline-tickets-")
    const configPath = path.join(dir, "faultline.json")
    fs.writeFileSync(configPath, JSON.stringify({ database: { path: path.join(dir, "faultline.db") }, tickets: { groupBy: ["model", "region"] } }))
    const r = await runCli(["serve", "--config", configPath], { cwd: dir })
    expect(r.code).toBe(2)
    expect(r.stderr).toContain("tickets.groupBy[1]")
    expect(r.stderr).toContain("region")
    expect(r.stderr).not.toMatch(/^\s+at /m)
  })
})
