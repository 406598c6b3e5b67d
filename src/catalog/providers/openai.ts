/**
 * OpenAI API (api.openai.com) as answered to the official SDKs (openai-python, openai-node,
 * openai-go, openai-java, openai-dotnet `System.ClientModel.ClientResultException`) and to the
 * wrappers built on them. Body `{"error": {"message", "type", "param", "code"}}`.
 * The SDK class names and OpenAI-style `type`/`code` values are shared by every OpenAI-compatible
 * API and live in `common.ts`; this file holds OpenAI's own wordings and codes.
 * https://platform.openai.com/docs/guides/error-codes
 */
import type { ProviderFamily } from "../types.js"

export default {
  id: "openai",
  name: "OpenAI",
  hosts: ["api.openai.com"],
  // OpenAI's own messages link to these pages; the SDK module names (`openai.`) are not markers:
  // the same SDKs call every OpenAI-compatible relay.
  markers: [/platform\.openai\.com/i, /help\.openai\.com/i, /\bin organization org-[A-Za-z0-9]/],
  // the SDKs' names and the product's name tell OpenAI only when nothing names another API
  weakMarkers: [
    // the `chatgpt` npm package (transitive-bullshit/chatgpt-api): `ChatGPTError: ChatGPT error 429`,
    // `ChatGPTAPI error 429` (its base URL can point elsewhere: weak)
    /\bChatGPT(?:API)? error \d{3}\b/,
    /\bChatGPTError\b/,
    /\bOpenAI API\b/, /\bopenai\.(?:error\.)?[A-Z][A-Za-z]{2,40}(?:Error|Exception)\b/, /\bOpenAIError\b/,
    // openai-java's exceptions (`com.openai.errors.RateLimitException: 429: …`, openai/openai-java:
    // openai-java-core/src/main/kotlin/com/openai/errors/RateLimitException.kt)
    /\bcom\.openai\.errors\.[A-Z]/,
    // openai-node's frames in a stack trace (`at APIError.generate (/app/node_modules/openai/core/error.js:66:20)`)
    /\/node_modules\/openai\//,
    // openai-php/client's exceptions (`OpenAI\Exceptions\ErrorException: …`)
    /\bOpenAI\\Exceptions\\[A-Z]/],
  entries: [
    {
      id: "openai.invalid-request-error-class",
      // openai-python < 1.0 (`openai.error.InvalidRequestError: …`, 400/404 without the status in
      // its text): a bad request, unless the words say which (a model that does not exist)
      match: { errorClass: "InvalidRequestError" },
      category: "invalid_request",
      samples: ["oag-082"]
    },
    {
      id: "openai.rate-limit-reached",
      // "Rate limit reached for gpt-4o in organization org-… on tokens per min (TPM): Limit …"
      // (the kind — TPM, RPM, RPD, TPD — is read from the wording that follows)
      match: { message: /rate limit reached for [^\n]{1,80} in organization [^\n]{1,60} on (tokens|requests)/i },
      category: "rate_limit",
      samples: ["oag-003", "oag-005", "oag-107"],
      doc: "https://platform.openai.com/docs/guides/rate-limits"
    },
    {
      id: "openai.rate-limit-tokens-per-min-legacy",
      // 2022 wording: "Rate limit reached for tokens. Limit: 150000.000000 / min."
      match: { message: /rate limit reached for tokens\. limit: [0-9.]{1,20} \/ min/i },
      category: "rate_limit",
      rateLimitKind: "TPM",
      samples: ["oag-097"]
    },
    {
      id: "openai.insufficient-quota-wording",
      // 429 insufficient_quota: "You exceeded your current quota, please check your plan and billing details"
      match: { message: /you exceeded your current quota, please check your plan and billing/i },
      category: "quota",
      samples: ["oag-046", "oag-047", "oag-114", "oag-115"],
      doc: "https://platform.openai.com/docs/guides/error-codes"
    },
    {
      id: "openai.credit-balance-exhausted",
      match: { code: "credit_balance_exhausted" },
      category: "quota",
      identifies: true,
      samples: ["oag-099"],
      doc: "https://platform.openai.com/docs/guides/error-codes"
    },
    {
      id: "openai.no-credits-remaining",
      match: { message: /you have no credits remaining\. add credits to continue/i },
      category: "quota",
      samples: ["oag-099"]
    },
    {
      id: "openai.model-does-not-exist",
      // "The model `gpt-4o` does not exist or you do not have access to it." (404 model_not_found)
      match: { message: /the model:? [^\n]{1,80} does not exist/i },
      category: "model_not_found",
      samples: ["oag-079", "oag-082"],
      doc: "https://platform.openai.com/docs/guides/error-codes"
    },
    {
      id: "openai.incorrect-api-key",
      match: { message: /incorrect api key provided/i },
      category: "auth_key",
      samples: ["oag-083"],
      doc: "https://platform.openai.com/docs/guides/error-codes"
    },
    {
      id: "openai.no-api-key-client-side",
      // openai-python refuses to build a client without a key (no request sent)
      match: { message: /api_key client option must be set|no api key provided\. you can set your api key/i },
      category: "auth_key",
      samples: ["oag-057", "oag-058"]
    },
    {
      id: "openai.server-overloaded",
      // 503 "The engine is currently overloaded" / "The server is currently overloaded with other
      // requests" (openai-python 0.x raised the latter as RateLimitError)
      match: { message: /(server|engine) is currently overloaded/i },
      category: "overload",
      samples: ["oag-095"],
      doc: "https://platform.openai.com/docs/guides/error-codes"
    },
    {
      id: "openai.context-length",
      match: { message: /this model's maximum context length is [0-9]{1,9} tokens/i },
      category: "invalid_request",
      samples: ["oag-059"]
    },
    {
      id: "openai.python-connection-error",
      // openai-python 0.x APIConnectionError: "Error communicating with OpenAI: …" (printed for any
      // base URL, so it names the client, not the provider)
      match: { message: /error communicating with openai/i },
      category: "transport",
      samples: ["oag-073"]
    }
  ]
} satisfies ProviderFamily
