/**
 * Mistral AI (api.mistral.ai, codestral.mistral.ai). Body `{"object": "error", "message", "type",
 * "param", "code"}` where `code` is a numeric string (`"1300"` rate limited, `"3505"` service tier
 * capacity, `"1000"`, `"1100"`, `"3000"`, `"3001"`) and newer bodies add `raw_status_code`;
 * validation failures (422) put a pydantic `detail` list in `message`; auth failures are FastAPI's
 * `{"detail": "Unauthorized"}` or `{"message": "Unauthorized", "request_id"}`.
 * Clients: mistralai (Python ≥1 / TS, Speakeasy `SDKError: API error occurred: Status N … Body`),
 * legacy `MistralAPIStatusException`, `@ai-sdk/mistral`, Dart `MistralAIClientException`.
 * https://docs.mistral.ai/resources/error-glossary
 * Statuses as in the contract table (429 includes the shared-pool "service tier capacity").
 */
import type { ProviderFamily } from "../types.js"

export default {
  id: "mistral",
  name: "Mistral AI",
  hosts: ["mistral.ai"],
  markers: [
    /MistralAPIStatusException/,
    /MistralAIClientException/,
    /MistralException/,
    /MistralChatLanguageModel/,
    /\bmistralai\.(?:models|exceptions|client)\b/,
    /@mistralai\//,
    // fields of Mistral's own envelope: `raw_status_code`, and a pydantic `detail` list wrapped in
    // `message` (vLLM's bare `{"object": "error", …}` has neither)
    /["']raw_status_code["']\s?:/,
    /["']object["']:\s?["']error["'],\s?["']message["']:\s?\{["']detail["']/
  ],
  // the Speakeasy-generated SDKs (mistralai Python ≥1 and TS) print `SDKError: API error occurred: Status N`
  weakMarkers: [/\bMistral API\b/, /\bSDKError: API error occurred: Status \d{3}/],
  entries: [
    {
      id: "mistral.service-tier-capacity",
      // 429 (code 3505 in newer bodies): the shared capacity of the free / service tier for the model
      // is used up; retry later or use another tier.
      match: { message: /Service tier capacity exceeded for this model/i },
      category: "rate_limit",
      identifies: true,
      samples: ["wst-004"],
      doc: "https://docs.mistral.ai/resources/error-glossary"
    },
    {
      id: "mistral.rate-limited-1300",
      // 429 {"object":"error","message":"Rate limit exceeded","type":"rate_limited","code":"1300"}
      match: { code: 1300 },
      category: "rate_limit",
      onlyForProvider: true,
      samples: ["wst-005"],
      doc: "https://docs.mistral.ai/resources/error-glossary"
    }
  ]
} satisfies ProviderFamily
