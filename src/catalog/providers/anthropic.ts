/**
 * Anthropic Claude API (api.anthropic.com, Messages API) as answered to the official SDKs
 * (anthropic-python `anthropic.RateLimitError`…, `@anthropic-ai/sdk` `InternalServerError: 529 {…}`,
 * Go, Java) and to the clients built on them (Claude Code `API Error: 529 …`, Continue, Cline,
 * LiteLLM `AnthropicException`). Body `{"type":"error","error":{"type","message"},"request_id"}`.
 * https://docs.anthropic.com/en/api/errors (docs.claude.com/en/api/errors):
 * 400 invalid_request_error, 401 authentication_error, 403 permission_error, 404 not_found_error,
 * 413 request_too_large (32 MB, answered by Cloudflare without the outer `type`), 429
 * rate_limit_error, 500 api_error, 529 overloaded_error (the API is overloaded for everyone: not a
 * rate limit). The SDK classes (`_exceptions.py`) are the OpenAI-style ones (`common.ts`:
 * 529 arrives as `InternalServerError`) plus `RequestTooLargeError` (413), `FailedDependencyError` (424).
 * The envelope is copied by Anthropic-compatible endpoints (MiniMax, Zhipu, relays): weak marker.
 */
import type { ProviderFamily } from "../types.js"

const DOC = "https://docs.anthropic.com/en/api/errors"
const SDK = "https://github.com/anthropics/anthropic-sdk-python/blob/main/src/anthropic/_exceptions.py"

export default {
  id: "anthropic",
  name: "Anthropic (Claude API)",
  hosts: ["api.anthropic.com", "anthropic.com"],
  // Anthropic's own messages link to its docs and sales pages; LiteLLM names the upstream.
  markers: [
    /\bAnthropicException\b/,
    /\bdocs\.(?:anthropic|claude)\.com\/(?:en\/)?(?:api|docs)\/(?:errors|rate-limits)\b/i,
    /\bclaude\.com\/contact-sales\b/i,
    /\[ANTHROPIC\] \d{3} /
  ],
  // the SDKs and the envelope also call / come from Anthropic-compatible relays
  weakMarkers: [
    /\banthropic\.(?:_exceptions\.|api\.)?[A-Z][A-Za-z]{2,40}(?:Error|Exception)\b/,
    /@anthropic-ai\/sdk\b/,
    // anthropic-sdk-java's exceptions (`com.anthropic.errors.RateLimitException: 429: {…}`)
    /\bcom\.anthropic\.errors\.[A-Z]/,
    /\{\s*"type"\s*:\s*"error"\s*,\s*"error"\s*:\s*\{\s*"type"\s*:/,
    /\{'type': 'error', 'error': \{'type': '[a-z_]{3,40}'/,
    /\breq_01[1-9A-HJ-NP-Za-km-z]{22,24}\b/,
    /\bstatus\.claude\.com\b/,
    /\bAnthropic API\b/,
    // 401 authentication_error wording, copied by Anthropic-compatible relays
    /\binvalid x-api-key\b/i
  ],
  entries: [
    {
      id: "anthropic.529-overloaded",
      // 529 overloaded_error "Overloaded" (SDK: InternalServerError; Claude Code:
      // "API Error: 529 Overloaded. This is a server-side issue…"). Contract: overload accepted.
      match: { status: 529, message: /overloaded/i },
      category: "overload",
      samples: ["ab-011", "ab-012", "ab-022", "ab-024"],
      doc: DOC
    },
    {
      id: "anthropic.529",
      // 529 without the word (bodies cut or broken by terminal wraps): Anthropic's 529 is overload
      match: { status: 529 },
      category: "overload",
      onlyForProvider: true,
      samples: ["ab-015"],
      doc: DOC
    },
    {
      id: "anthropic.rate-limit-would-exceed",
      // 429 rate_limit_error "This request would exceed the rate limit for your organization (…) of
      // 40,000 input tokens per minute." / "…your organization's rate limit of 30,000 input tokens
      // per minute (org: …, model: …)" / "…your account's rate limit. Please try again later."
      // (input / output tokens per minute -> TPM, requests per minute -> RPM: read from the text)
      match: { message: /would exceed (?:the rate limit for your organization|your organization's rate limit|your account's rate limit)/i },
      category: "rate_limit",
      identifies: true,
      samples: ["ab-001", "ab-004"],
      doc: "https://docs.anthropic.com/en/api/rate-limits"
    },
    {
      id: "anthropic.rate-limit-concurrent-connections",
      // 2023 wording: "Number of concurrent connections to Claude exceeds your rate limit."
      match: { message: /number of concurrent connections to claude exceeds your rate limit/i },
      category: "rate_limit",
      identifies: true,
      samples: ["ab-019"]
    },
    {
      id: "anthropic.credit-balance-too-low",
      // sent as 400 invalid_request_error: "Your credit balance is too low to access the Anthropic
      // API. Please go to Plans & Billing to upgrade or purchase credits."
      match: { message: /credit balance is too low to access the (?:anthropic|claude) api/i },
      category: "quota",
      identifies: true,
      samples: ["ab-006", "ab-007"],
      doc: DOC
    },
    {
      id: "anthropic.invalid-x-api-key",
      // 401 authentication_error "invalid x-api-key"
      match: { message: /\binvalid x-api-key\b/i },
      category: "auth_key",
      identifies: true,
      samples: ["ab-009"],
      doc: DOC
    },
    {
      id: "anthropic.not-found-model",
      // 404 not_found_error whose message is "model: <id>": the model does not exist
      match: { type: "not_found_error", message: /\bmodel: [^\s"']{1,100}/i },
      category: "model_not_found",
      samples: ["ab-030", "ab-031"],
      doc: DOC
    },
    {
      id: "anthropic.request-too-large",
      // 413 request_too_large "Request exceeds the maximum size" (32 MB Messages, 256 MB Batches,
      // 500 MB Files); the contract leaves 413 unknown, this only tells it is a failed call
      match: { type: "request_too_large" },
      category: "unknown",
      samples: ["ab-013", "ab-014"],
      doc: DOC
    },
    {
      id: "anthropic.request-too-large-class",
      match: { errorClass: "RequestTooLargeError" },
      category: "unknown",
      samples: ["ab-013"],
      doc: SDK
    }
  ]
} satisfies ProviderFamily
