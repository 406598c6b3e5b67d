/**
 * Together AI (api.together.xyz, api.together.ai). OpenAI-compatible body, often with a top-level
 * `id`: `{"id": "…", "error": {"message", "type", "param", "code"}}`. TRAP: `type: "credit_limit"`
 * is sent both with 402 "Credit limit exceeded" and with the free tier's per-minute rate limit
 * ("You have been rate limited. Your rate limit is 60 queries per minute"), so the type alone
 * decides nothing. Codes: `model_not_found`, `model_not_available` (non-serverless model),
 * `dedicated_endpoint_not_running`. LiteLLM wraps it as `Together_aiException`.
 * https://docs.together.ai/docs/error-codes
 * Documented: 402 monthly spending limit, 403 input + max_tokens over the context length (a bad
 * request, not a permission), 503 engine overloaded.
 */
import type { ProviderFamily } from "../types.js"

export default {
  id: "together",
  name: "Together AI",
  hosts: ["together.xyz", "together.ai"],
  markers: [/Together_?aiException/i, /\btogether\.error\b/],
  weakMarkers: [/\bTogether AI\b/],
  entries: [
    {
      id: "together.queries-per-minute",
      // "Your rate limit is 60 queries per minute" (free tier), "The maximum rate limit for this model
      // is 9.0 queries per minute" (model-specific limit)
      match: { message: /(?:Your rate limit is|rate limit for this model is) [0-9.]{1,8} queries per minute/i },
      category: "rate_limit",
      rateLimitKind: "RPM",
      identifies: true,
      samples: ["wst-024", "wst-026"],
      doc: "https://docs.together.ai/docs/rate-limits"
    }
  ]
} satisfies ProviderFamily
