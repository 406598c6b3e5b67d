// Report a failed LLM call to faultline from a TypeScript application (Node >= 18, no dependencies).
// Run: FAULTLINE_URL=http://127.0.0.1:8787 node --experimental-strip-types docs/examples/report-failure.ts
//  (or compile it with tsc); FAULTLINE_INGEST_TOKEN if the daemon has http.ingestToken set.

const FAULTLINE_URL = process.env.FAULTLINE_URL ?? "http://127.0.0.1:8787"

export async function reportFailure(call: {
  model: string
  status: number | null
  body: unknown
  requestId?: string | null
  error?: string | null
}): Promise<void> {
  const headers: Record<string, string> = { "content-type": "application/json" }
  if (process.env.FAULTLINE_INGEST_TOKEN) headers.authorization = `Bearer ${process.env.FAULTLINE_INGEST_TOKEN}`
  try {
    await fetch(`${FAULTLINE_URL}/v1/events`, {
      method: "POST",
      headers,
      body: JSON.stringify({
        occurredAt: new Date().toISOString(),
        service: "chat-api",
        endpoint: "/v1/chat/completions",
        ...call
      }),
      signal: AbortSignal.timeout(2_000)
    })
  } catch {
    // triage must never break the application: drop the report if faultline is away
  }
}

// Example: what a caller does when the LLM API answers 429.
const res = { status: 429, body: { code: 50603, message: "Request was rejected due to rate limiting. Details: TPM limit reached.", data: null } }
await reportFailure({ model: "Qwen/Qwen2.5-7B-Instruct", status: res.status, body: res.body, requestId: "req-" + Date.now() })
console.log("reported")
