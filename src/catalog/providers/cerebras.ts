/**
 * Cerebras Inference (api.cerebras.ai/v1). Flat body `{"message", "type", "param", "code"}`
 * (`not_found_error` / `model_not_found`, `too_many_requests_error` with per-minute, per-hour and
 * per-day wordings such as "Tokens per minute limit exceeded - too many tokens processed.").
 * Python SDK: `cerebras.cloud.sdk` (`APIConnectionError`, `APIStatusError`, `RateLimitError`…).
 * https://inference-docs.cerebras.ai/support/error
 * Statuses as in the contract table (402 PaymentRequired, 503 ServiceUnavailable). The rate-limit
 * code `request_quota_exceeded` says "quota" but is a per-minute request limit: it stays a rate
 * limit (the kind is read from the message). No entry is written for it yet: the only samples are
 * in the holdout part.
 */
import type { ProviderFamily } from "../types.js"

export default {
  id: "cerebras",
  name: "Cerebras Inference",
  hosts: ["cerebras.ai"],
  markers: [/cerebras\.cloud\.sdk/, /CerebrasException/],
  weakMarkers: [/\bCerebras\b/],
  entries: [
    {
      id: "cerebras.model-does-not-exist",
      // 404 {"message":"Model does not exist or you do not have access to it.","type":"not_found_error",
      // "param":"model","code":"model_not_found"} (OpenAI's wording starts "The model `x` …")
      match: { message: /^Model does not exist or you do not have access to it\.?$/i },
      category: "model_not_found",
      identifies: true,
      samples: ["wst-040"],
      doc: "https://inference-docs.cerebras.ai/support/error"
    }
  ]
} satisfies ProviderFamily
