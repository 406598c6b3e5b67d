/**
 * The Vercel AI SDK (`ai`, `@ai-sdk/openai`, `@ai-sdk/azure`, …): a client library, not a service.
 * Its errors are classes named `AI_<Name>` (`APICallError [AI_APICallError]: …` in Node output):
 * `AI_APICallError` carries `url`, `statusCode`, `responseBody`, `isRetryable`; `AI_RetryError`
 * wraps the attempts (`reason: 'maxRetriesExceeded'`, `lastError`, `errors`). The status and body
 * inside decide the category; the entries here cover what the class alone makes clear.
 * No hosts and no markers: the provider is the API in `url` / the body, never the SDK.
 * https://ai-sdk.dev/docs/reference/ai-sdk-errors
 */
import type { ProviderFamily } from "../types.js"

export default {
  id: "vercel-ai",
  name: "Vercel AI SDK (client library)",
  hosts: [],
  markers: [],
  entries: [
    {
      id: "vercel-ai.load-api-key",
      // client-side: "OpenAI API key is missing. Pass it using the 'apiKey' parameter or the
      // OPENAI_API_KEY environment variable." — no request was sent; fix the key
      match: { errorClass: ["AI_LoadAPIKeyError", "LoadAPIKeyError"] },
      category: "auth_key",
      samples: ["oag-055", "oag-056"],
      doc: "https://ai-sdk.dev/docs/reference/ai-sdk-errors/ai-load-api-key-error"
    },
    {
      id: "vercel-ai.api-call-cannot-connect",
      // AI_APICallError without a status: "Cannot connect to API: <cause>" (connect timeout,
      // ECONNRESET, …) — the request never got an answer
      match: { errorClass: ["AI_APICallError", "APICallError"], message: /cannot connect to api/i },
      category: "transport",
      samples: ["oag-024", "oag-074"],
      doc: "https://ai-sdk.dev/docs/reference/ai-sdk-errors/ai-api-call-error"
    },
    {
      id: "vercel-ai.retry-cannot-connect",
      // AI_RetryError whose last attempt could not connect
      match: { errorClass: ["AI_RetryError", "RetryError"], message: /last error: cannot connect to api/i },
      category: "transport",
      samples: ["oag-074"],
      doc: "https://ai-sdk.dev/docs/reference/ai-sdk-errors/ai-retry-error"
    }
  ]
} satisfies ProviderFamily
