/**
 * OpenRouter (openrouter.ai/api/v1): an OpenAI-compatible router in front of many upstream
 * providers. Body `{"error": {"code": <int = HTTP status>, "message", "metadata"?}}`; upstream
 * failures come as `"message": "Provider returned error"` with `metadata.raw` (the upstream body)
 * and `metadata.provider_name`. Errors after streaming started arrive with HTTP 200 in the stream.
 * https://openrouter.ai/docs/api/reference/errors-and-debugging
 * Documented statuses: 400 bad request, 401 invalid credentials, 402 insufficient credits,
 * 403 moderation/guardrail, 408 timeout, 429 rate limited, 502 model down / invalid upstream
 * response, 503 no provider meets the routing requirements (all as in the contract table).
 */
import type { ProviderFamily } from "../types.js"

export default {
  id: "openrouter",
  name: "OpenRouter",
  hosts: ["openrouter.ai"],
  markers: [/OpenRouter/i, /Provider returned error/, /OpenrouterException/],
  entries: [
    {
      id: "openrouter.insufficient-credits",
      // 402: "This request requires more credits, or fewer max_tokens. You requested up to N tokens,
      // but can only afford M" / "Insufficient credits. …" / "More credits are required to run this request"
      match: { message: /requires more credits, or fewer max_tokens|insufficient credits\. |more credits are required to run this request/i },
      category: "quota",
      identifies: true,
      samples: ["oag-031", "oag-032", "oag-034"],
      doc: "https://openrouter.ai/docs/api/reference/errors-and-debugging"
    },
    {
      id: "openrouter.credits-limit-source",
      match: { message: /limit_source[^\n]{0,6}openrouter_credits/i },
      category: "quota",
      identifies: true,
      samples: ["oag-033"]
    },
    {
      id: "openrouter.free-models-per-day",
      // 429 "Rate limit exceeded: free-models-per-day. Add 10 credits to unlock 1000 free model requests per day"
      match: { message: /rate limit exceeded: free-models-per-day/i },
      category: "rate_limit",
      rateLimitKind: "RPD",
      identifies: true,
      samples: ["oag-085", "oag-086"],
      doc: "https://openrouter.ai/docs/api/reference/limits"
    },
    {
      id: "openrouter.upstream-rate-limited",
      // 429 Provider returned error, metadata.raw "… is temporarily rate-limited upstream"
      match: { message: /temporarily rate-limited upstream/i },
      category: "rate_limit",
      samples: ["oag-012"]
    },
    {
      id: "openrouter.no-endpoints-for-model",
      // 404 "No endpoints found for <model>." / "No endpoints found for this model." (model delisted)
      match: { message: /no endpoints found for [^\s]/i },
      category: "model_not_found",
      identifies: true,
      samples: ["oag-037", "oag-038", "oag-039"]
    },
    {
      id: "openrouter.no-endpoints-support",
      // 404 "No endpoints found that support tool use." — the model exists, the request asks for a
      // feature none of its providers offers: change the request (or the model)
      match: { message: /no endpoints found that support/i },
      category: "invalid_request",
      identifies: true,
      samples: ["oag-036"],
      doc: "https://openrouter.ai/docs/features/provider-routing"
    },
    {
      id: "openrouter.auth",
      // 401 "No auth credentials found" (no key reached it) / "User not found." (unknown key)
      match: { message: /no auth credentials found|user not found\./i },
      category: "auth_key",
      identifies: true,
      samples: ["oag-104", "oag-105"],
      doc: "https://openrouter.ai/docs/api/reference/errors-and-debugging"
    }
  ]
} satisfies ProviderFamily
