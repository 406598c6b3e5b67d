/**
 * Groq (api.groq.com/openai/v1): OpenAI-compatible body `{"error": {"message", "type", "code"}}`
 * with Groq's own codes (`model_decommissioned`, `organization_restricted`, `tool_use_failed`,
 * `json_validate_failed`) and rate-limit `type`s (`tokens`, `requests`). Rate-limit messages name
 * the limit ("on tokens per minute (TPM)", "requests per day (RPD)", "tokens per day (TPD)").
 * Clients: groq-python / groq-sdk (classes like openai's), LiteLLM (`GroqException`).
 * https://console.groq.com/docs/errors
 * Documented statuses outside the contract table: 413 request too large (also sent with code
 * `rate_limit_exceeded` when a request exceeds the TPM limit), 424 failed dependency (remote
 * MCP), 498 flex tier capacity exceeded, 499 request cancelled.
 */
import type { ProviderFamily } from "../types.js"

export default {
  id: "groq",
  name: "Groq",
  hosts: ["groq.com"],
  markers: [/GroqException/, /\bgroq\._base_client\b/, /\bgroq\.[A-Z][A-Za-z]*Error\b/, /x-groq-region/i],
  weakMarkers: [/\bGroq\b/],
  entries: [
    {
      id: "groq.model-decommissioned",
      // 400 invalid_request_error, code model_decommissioned: "The model `x` has been decommissioned
      // and is no longer supported. Please refer to https://console.groq.com/docs/deprecations …"
      match: { code: "model_decommissioned" },
      category: "model_not_found",
      identifies: true,
      samples: ["wst-013", "wst-014", "wst-015"],
      doc: "https://console.groq.com/docs/deprecations"
    },
    {
      id: "groq.model-decommissioned-wording",
      match: { message: /has been decommissioned and is no longer supported/i },
      category: "model_not_found",
      samples: ["wst-013", "wst-014"],
      doc: "https://console.groq.com/docs/deprecations"
    },
    {
      id: "groq.request-too-large-for-limit",
      // 413 (type `tokens`, code `rate_limit_exceeded`): "Request too large for model `x` in
      // organization `org_…` service tier `on_demand` on tokens per minute (TPM): Limit 6000,
      // Requested 9000, please reduce your message size and try again." A rate limit, whether or
      // not the code is printed (the kind is read from the words)
      match: { status: 413, message: /Request too large for model[^\n]{0,200}? on (?:tokens|requests) per (?:minute|day)/i },
      category: "rate_limit",
      samples: ["j2y-003", "j2y-008"],
      doc: "https://console.groq.com/docs/rate-limits"
    },
    {
      id: "groq.model-blocked-for-org",
      // 403 permissions_error: "The model `x` is blocked at the organization level. Please have the
      // org admin enable this model in the org settings at https://console.groq.com/settings/limits"
      match: { message: /is blocked at the organization level/i },
      category: "permission",
      identifies: true,
      samples: ["wst-018"],
      doc: "https://console.groq.com/docs/errors"
    }
  ]
} satisfies ProviderFamily
