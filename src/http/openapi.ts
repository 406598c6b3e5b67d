/** The OpenAPI document served at /openapi.json: the routes of CONTRACT section 6. */
import { categories, rateLimitKinds } from "../classify/Event.js"
import { version } from "../cli/version.js"

const q = (name: string, description: string, schema: object = { type: "string" }) => ({ name, in: "query", required: false, description, schema })
const windowParams = [
  q("since", "ISO-8601 instant or a duration back from now (15m, 24h, 7d); default 24h"),
  q("until", "ISO-8601 instant or a duration back from now; default now")
]
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })
const ok = (description: string, schema: object) => ({ description, content: { "application/json": { schema } } })
const errors = {
  "400": ok("Bad input", ref("Error")),
  "401": ok("Missing or wrong token", ref("Error")),
  "503": ok("Not ready", ref("Error"))
}
const list = (name: string, item: object) => ({
  type: "object",
  properties: { [name]: { type: "array", items: item }, nextCursor: { type: ["string", "null"] } }
})
const idParam = { name: "id", in: "path", required: true, schema: { type: "string" } }

export const openApiDocument = {
  openapi: "3.1.0",
  info: { title: "faultline", version, description: "Triage of failed calls to an OpenAI-style LLM API." },
  components: {
    securitySchemes: { bearer: { type: "http", scheme: "bearer" }, basic: { type: "http", scheme: "basic" } },
    schemas: {
      Error: { type: "object", properties: { error: { type: "object", properties: { code: { type: "string" }, message: { type: "string" } }, required: ["code", "message"] } } },
      Event: {
        type: "object",
        properties: {
          id: { type: "string" }, occurredAt: { type: "string", format: "date-time" }, ingestedAt: { type: "string", format: "date-time" },
          source: { type: "string" }, line: { type: ["integer", "null"] }, service: { type: ["string", "null"] },
          status: { type: ["integer", "null"] }, code: { type: ["integer", "string", "null"] }, message: { type: ["string", "null"] },
          model: { type: ["string", "null"] }, requestId: { type: ["string", "null"] }, endpoint: { type: ["string", "null"] },
          stream: { type: ["boolean", "null"] }, category: { enum: [...categories] }, rateLimitKind: { enum: [...rateLimitKinds, null] },
          severity: { enum: ["critical", "warning", "info"] }, retryable: { type: "boolean" }, action: { type: "string" },
          fingerprint: { type: "string" }, bodyNotJson: { type: "boolean" }, provider: { type: ["string", "null"] }, sample: { type: "string" }
        }
      },
      IngestRecord: {
        type: "object",
        description: "A structured failure, or a raw record {raw|message|log: string} parsed like a log line.",
        properties: {
          id: { type: "string" }, occurredAt: { type: "string" }, service: { type: "string" }, endpoint: { type: "string" },
          status: { type: "integer" }, body: { type: ["object", "string"] }, code: { type: ["integer", "string"] },
          message: { type: "string" }, model: { type: "string" }, requestId: { type: "string" }, stream: { type: "boolean" },
          error: { type: "string", description: "transport error text" }, raw: { type: "string" }, log: { type: "string" }
        }
      },
      IngestResult: {
        type: "object",
        properties: {
          accepted: { type: "integer" }, duplicates: { type: "integer" }, counted: { type: "integer" }, ignored: { type: "integer" },
          rejected: { type: "array", maxItems: 100, items: { type: "object", properties: { index: { type: "integer" }, error: { type: "string" } } } },
          rejectedCount: { type: "integer" }
        }
      },
      Report: { type: "object", description: "CONTRACT section 6 report" },
      Alert: { type: "object" }, Ticket: { type: "object" }, Notification: { type: "object" }, Silence: { type: "object" }, Incident: { type: "object" }
    }
  },
  security: [{ bearer: [] }],
  paths: {
    "/v1/events": {
      post: {
        summary: "Ingest failed calls (object, array, or NDJSON)",
        requestBody: {
          content: {
            "application/json": { schema: { oneOf: [ref("IngestRecord"), { type: "array", items: ref("IngestRecord") }] } },
            "application/x-ndjson": { schema: { type: "string" } }
          }
        },
        responses: { "202": ok("Accepted", ref("IngestResult")), ...errors, "413": ok("Body too large", ref("Error")), "415": ok("Unreadable content type", ref("Error")) }
      },
      get: {
        summary: "Events, newest first",
        parameters: [
          ...windowParams, q("category", "category", { enum: [...categories] }), q("rateLimitKind", "kind", { enum: [...rateLimitKinds] }),
          q("model", "model"), q("service", "service"), q("provider", "provider slug (openai, anthropic, ...)"), q("status", "HTTP status", { type: "integer" }),
          q("limit", "page size (1-1000, default 100)", { type: "integer" }), q("cursor", "nextCursor of the previous page")
        ],
        responses: { "200": ok("A page of events", list("events", ref("Event"))), ...errors }
      }
    },
    "/v1/report": { get: { summary: "The report", parameters: [...windowParams, q("service", "service"), q("model", "model")], responses: { "200": ok("Report", ref("Report")), ...errors } } },
    "/v1/incidents": { get: { summary: "Failures grouped by fingerprint", parameters: [q("state", "active|quiet", { enum: ["active", "quiet"] }), q("since", "window start"), q("limit", "max rows", { type: "integer" })], responses: { "200": ok("Incidents", list("incidents", ref("Incident"))), ...errors } } },
    "/v1/alerts": { get: { summary: "Alerts with their notification history", parameters: [q("state", "firing|resolved", { enum: ["firing", "resolved"] })], responses: { "200": ok("Alerts", list("alerts", ref("Alert"))), ...errors } } },
    "/v1/tickets": { get: { summary: "Escalation tickets", parameters: [q("state", "open|acknowledged|resolved", { enum: ["open", "acknowledged", "resolved"] })], responses: { "200": ok("Tickets", list("tickets", ref("Ticket"))), ...errors } } },
    "/v1/tickets/{id}/acknowledge": { post: { summary: "Acknowledge a ticket", parameters: [idParam], responses: { "200": ok("The ticket", ref("Ticket")), "404": ok("Unknown ticket", ref("Error")) } } },
    "/v1/tickets/{id}/resolve": { post: { summary: "Resolve a ticket", parameters: [idParam], responses: { "200": ok("The ticket", ref("Ticket")), "404": ok("Unknown ticket", ref("Error")) } } },
    "/v1/notifications": { get: { summary: "The outbox", parameters: [q("state", "pending|delivered|dead", { enum: ["pending", "delivered", "dead"] }), q("receiver", "receiver name")], responses: { "200": ok("Notifications", list("notifications", ref("Notification"))), ...errors } } },
    "/v1/silences": {
      get: { summary: "Silences", responses: { "200": ok("Silences", list("silences", ref("Silence"))) } },
      post: { summary: "Mute matching alerts until endsAt", requestBody: { content: { "application/json": { schema: ref("Silence") } } }, responses: { "201": ok("The silence", ref("Silence")), ...errors } }
    },
    "/v1/silences/{id}": { delete: { summary: "Expire a silence", parameters: [idParam], responses: { "200": ok("Expired", ref("Silence")), "404": ok("Unknown silence", ref("Error")) } } },
    "/metrics": { get: { summary: "Prometheus metrics", security: [], responses: { "200": { description: "text/plain; version=0.0.4" } } } },
    "/healthz": { get: { summary: "Liveness", security: [], responses: { "200": ok("alive", { type: "object" }) } } },
    "/readyz": { get: { summary: "Readiness", security: [], responses: { "200": ok("ready", { type: "object" }), "503": ok("not ready", ref("Error")) } } },
    "/": { get: { summary: "HTML report for people", security: [{ bearer: [] }, { basic: [] }], parameters: [q("window", "15m|1h|24h|7d")], responses: { "200": { description: "text/html" } } } }
  }
} as const
