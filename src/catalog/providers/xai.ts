/**
 * xAI / Grok (api.x.ai; the Grok CLI's cli-chat-proxy.grok.com). OpenAI-compatible body
 * `{"error": {"message", "type", "code"}}`, but some answers are a bare JSON string
 * (`429 "Your team … has either used all available credits …"`) or a gRPC-gateway body
 * `{"code": "<gRPC status text>", "error": "<message>"}`.
 * https://docs.x.ai/docs/key-information/debugging
 * Documented statuses that differ from the contract table: 400 is also sent for an incorrect API
 * key; exhausted credits / the monthly spending limit come as 429 (API) or 403 (Grok CLI).
 */
import type { ProviderFamily } from "../types.js"

export default {
  id: "xai",
  name: "xAI (Grok API)",
  hosts: ["x.ai", "grok.com"],
  markers: [/XaiException/, /\bxai-sdk\b/],
  weakMarkers: [/\bxAI\b/],
  entries: [
    {
      id: "xai.credits-or-spending-limit",
      // 429 (API) / 403 permission-denied (Grok CLI): "Your team <uuid> has either used all available
      // credits or reached its monthly spending limit. To continue making API requests, please
      // purchase more credits or raise your spending limit."
      match: { message: /has either used all available credits or reached its monthly spending limit/i },
      category: "quota",
      identifies: true,
      samples: ["wst-001", "wst-002"]
    },
    {
      id: "xai.out-of-credits",
      // 403 "You have run out of credits or need a Grok subscription."
      match: { message: /run out of credits or need a Grok subscription/i },
      category: "quota",
      identifies: true,
      samples: ["wst-003"]
    },
    {
      id: "xai.incorrect-api-key-400",
      // xAI answers a wrong key with 400 "Incorrect API key provided: xa***yz. You can obtain an API
      // key from https://console.x.ai." (documented under 400); the fix is the key.
      match: { status: 400, message: /Incorrect API\s{1,8}key provided:[^\n]{0,60}console\.x\.ai/i },
      category: "auth_key",
      identifies: true,
      samples: ["wst-020", "wst-021"],
      doc: "https://docs.x.ai/docs/key-information/debugging"
    }
  ]
} satisfies ProviderFamily
