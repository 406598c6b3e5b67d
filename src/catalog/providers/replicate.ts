/**
 * Replicate (api.replicate.com/v1). Errors are problem+json `{"title", "detail", "status"}`
 * ("Unauthenticated" 401, "Invalid version or not permitted" 422, throttling 429 with
 * `retry_after`). Clients: replicate-python (`replicate.exceptions.ReplicateError`,
 * `ModelError` for a failed prediction), replicate-javascript (`ApiError: Request to <url> failed
 * with status N …`, old versions `Error: API request failed: <reason phrase>`), LiteLLM
 * (`ReplicateException`).
 * https://replicate.com/docs/topics/predictions/rate-limits
 * Accounts with less than $5 of credit are throttled to 6 predictions per minute (burst 1): a rate
 * limit, not exhausted credit.
 */
import type { ProviderFamily } from "../types.js"

export default {
  id: "replicate",
  name: "Replicate",
  hosts: ["replicate.com"],
  markers: [
    /\breplicate\.exceptions\./,
    /\bReplicateError\b/,
    /ReplicateException/,
    /node_modules\/replicate\//,
    // Replicate's own wording for its throttle ("predictions" is its word for a model run)
    /rate limit for creating predictions/i
  ],
  weakMarkers: [/\bReplicate\b/],
  entries: [
    {
      id: "replicate.low-credit-throttle",
      // 429 "Request was throttled. Your rate limit for creating predictions is reduced to 6 requests
      // per minute with a burst of 1 requests while you have less than $5.0 in credit."
      match: { message: /rate limit for creating predictions is\s{1,4}reduced to/i },
      category: "rate_limit",
      identifies: true,
      samples: ["wst-053"],
      doc: "https://replicate.com/docs/topics/predictions/rate-limits"
    },
    {
      id: "replicate.unauthenticated",
      // 401 {"title":"Unauthenticated","detail":"You did not pass an authentication token","status":401}
      match: { message: /You did not pass (?:a valid |an )authentication token/i },
      category: "auth_key",
      identifies: true,
      samples: ["wst-054", "wst-055"]
    }
  ]
} satisfies ProviderFamily
