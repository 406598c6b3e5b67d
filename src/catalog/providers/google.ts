/**
 * Google Gemini API (generativelanguage.googleapis.com, AI Studio keys) and Vertex AI
 * (aiplatform.googleapis.com, `<region>-aiplatform.googleapis.com`, OAuth2 credentials), and the
 * Gemini CLI / Code Assist backend (cloudcode-pa.googleapis.com) that answers in the same envelope.
 *
 * Envelope (google.rpc.Status over HTTP): `{"error": {"code": <HTTP status>, "message",
 * "status": "<gRPC status name>", "details": [ErrorInfo {reason}, QuotaFailure {violations:
 * [{quotaMetric, quotaId}]}, RetryInfo {retryDelay}, Help, LocalizedMessage]}}`; Vertex AI and
 * Code Assist sometimes answer an array of it with `errors[].reason` (`rateLimitExceeded`).
 * gRPC clients (google-api-core in Python, gax in Java, google-cloud-rust) show the status name
 * (`StatusCode.RESOURCE_EXHAUSTED`, `RESOURCE_EXHAUSTED:`) instead of, or next to, the HTTP code;
 * the gRPC names themselves are in `common.ts`.
 *
 * Client libraries and their texts:
 * - google-genai (Python): `google.genai.errors.ClientError: 429 RESOURCE_EXHAUSTED. {...}`,
 *   `ServerError: 503 UNAVAILABLE. {...}`; logger `google_genai.*`.
 * - @google/genai (JS): `ApiError` / older `ClientError`/`ServerError`: `got status: 429 Too Many
 *   Requests. {json}`; Go google.golang.org/genai `APIError`: `Error 429, Message: ..., Status:
 *   RESOURCE_EXHAUSTED, Details: [...]`.
 * - @google/generative-ai (JS, deprecated): `[GoogleGenerativeAI Error]: Error fetching from <url>:
 *   [429 Too Many Requests] <message> [<details>]` (GoogleGenerativeAIFetchError).
 * - google-generativeai / google-cloud-aiplatform (Python, deprecated, gRPC): google.api_core
 *   exceptions `ResourceExhausted: 429 ...`, `InternalServerError: 500 ...`, `DeadlineExceeded: 504`.
 * - Wrappers: langchain-google-genai `ChatGoogleGenerativeAIError: Invalid argument provided to
 *   Gemini: 400 ...`, LiteLLM `VertexAIException` / `VertexAIError`.
 *
 * Statuses whose meaning differs from the contract table:
 * - 400 INVALID_ARGUMENT + `API key not valid` / `API key expired` (reason API_KEY_INVALID): a
 *   broken key, not a bad request => auth_key.
 * - 400 FAILED_PRECONDITION `User location is not supported for the API use` (free tier not
 *   available in the region, no billing): nothing in the request is wrong => permission.
 * - 429 RESOURCE_EXHAUSTED is a rate limit (RPM, TPM, RPD per project and model) even where the
 *   Gemini API words it like OpenAI's exhausted balance (`You exceeded your current quota, please
 *   check your plan and billing details`) or as `Quota exceeded for metric ... per minute`.
 * https://ai.google.dev/gemini-api/docs/troubleshooting
 * https://ai.google.dev/gemini-api/docs/rate-limits
 * https://cloud.google.com/vertex-ai/generative-ai/docs/error-code-429
 */
import type { ProviderFamily } from "../types.js"

const TROUBLESHOOTING = "https://ai.google.dev/gemini-api/docs/troubleshooting"
const RATE_LIMITS = "https://ai.google.dev/gemini-api/docs/rate-limits"
const VERTEX_429 = "https://cloud.google.com/vertex-ai/generative-ai/docs/error-code-429"

export default {
  id: "google",
  name: "Google Gemini API and Vertex AI",
  hosts: ["generativelanguage.googleapis.com", "aiplatform.googleapis.com", "cloudcode-pa.googleapis.com"],
  markers: [
    // regional Vertex AI endpoints (`us-central1-aiplatform.googleapis.com`): the host suffix
    // match stops at the `-`
    /\b[a-z]{2,12}-[a-z]{2,12}\d{1,2}-aiplatform\.googleapis\.com/,
    // the envelope's typed details (google.rpc.ErrorInfo, QuotaFailure, RetryInfo, Help)
    /type\.googleapis\.com\/google\.rpc\.[A-Z]/,
    // the envelope's `status` (a gRPC status name, in JSON, escaped JSON or a Python dict):
    // `"status": "RESOURCE_EXHAUSTED"`, `\"status\": \"UNAVAILABLE\"`, `'status': 'INTERNAL'`
    /["']status\\{0,3}["']:\s{0,2}\\{0,3}["'](?:RESOURCE_EXHAUSTED|INVALID_ARGUMENT|FAILED_PRECONDITION|PERMISSION_DENIED|UNAUTHENTICATED|NOT_FOUND|UNAVAILABLE|INTERNAL|DEADLINE_EXCEEDED)\\{0,3}["']/,
    // clients that only talk to Google's endpoints (gRPC, Vertex AI SDKs, LiteLLM's upstream name)
    /\bgoogle\.generativeai\b/,
    /\bgoogle\.ai\.generativelanguage/,
    /\bgoogle\.cloud\.aiplatform/,
    /\bcom\.google\.cloud\.vertexai\b/,
    /\bgoogle\.api_core\.exceptions\b/,
    // a Vertex AI model named as its resource (`publishers/google/models/gemini-1.5-pro`)
    /\bpublishers\/google\/models\//,
    /\bVertexAIException\b/,
    /\bVertexAIError\b/,
    // links in Google's own messages
    /ai\.google\.dev\/gemini-api\/docs/,
    /developers\.generativeai\.google\/guide/,
    /cloud\.google\.com\/vertex-ai\/(?:generative-ai\/)?docs/,
    // Google's own wordings
    /API key not valid\. Please pass a valid API key/,
    /API key expired\. Please renew the API key/,
    /Resource has been exhausted \(e\.g\. check quota\)/,
    /Exceeded the Provisioned Throughput/
  ],
  // the Gemini SDKs and their wrappers also call relays (a base URL away): they tell Google only
  // when nothing else names the API
  weakMarkers: [
    /\bgoogle\.genai\.errors\b/,
    // Go clients: google.golang.org/api's googleapi.Error (`googleapi: Error 429: …`), google.golang.org/genai's
    // APIError (`Error 429, Message: …, Status: RESOURCE_EXHAUSTED, Details: […]`)
    /\bgoogleapi: Error \d{3}\b/,
    /\bError \d{3}, Message: [^\n]{0,2000}?, Status: [A-Z_]{3,40}, Details: /,
    /\bgoogle_genai\.[a-z]/,
    /@google\/genai\b/,
    /@google\/generative-ai\b/,
    /\[GoogleGenerativeAI Error\]/,
    /\bGoogleGenerativeAI(?:Fetch|Response|RequestInput|Abort)?Error\b/,
    /\bgenai\.APIError\b/,
    /\blangchain_google_(?:genai|vertexai)\b/,
    /\bChatGoogleGenerativeAI(?:Error)?\b/,
    /\bGeminiDotNET\b/,
    /\bGemini API\b/,
    /\bVertex AI\b/,
    /\bGoogle AI Studio\b/
  ],
  entries: [
    // --- rate-limit kinds named by the QuotaFailure quotaId / quota metric (before the kind-less
    // rate-limit wordings: only the first matching wording of a category is looked at)
    {
      id: "google.quota-requests-per-minute",
      // quotaId GenerateRequestsPerMinutePerProjectPerModel(-FreeTier), quota_limit
      // GenerateContentRequestsPerMinutePerProjectPerRegion, Vertex
      // generate_content_requests_per_minute_per_project_per_base_model
      match: {
        message:
          /GenerateRequestsPerMinutePerProjectPerModel|GenerateContentRequestsPerMinutePerProject|generate_content_requests_per_minute|Generate Content API requests per minute/i
      },
      category: "rate_limit",
      rateLimitKind: "RPM",
      identifies: true,
      samples: ["ggl-004", "ggl-006", "ggl-019"],
      doc: RATE_LIMITS
    },
    {
      id: "google.quota-requests-per-day",
      match: { message: /GenerateRequestsPerDayPerProjectPerModel|generate_content_requests_per_day/i },
      category: "rate_limit",
      rateLimitKind: "RPD",
      identifies: true,
      samples: ["ggl-060"],
      doc: RATE_LIMITS
    },
    {
      id: "google.quota-input-tokens-per-minute",
      // Gemini API quotaId GenerateContentInputTokensPerModelPerMinute(-FreeTier); Vertex
      // `..._input_tokens_per_minute_per_base_model`
      match: { message: /GenerateContentInputTokensPerModelPerMinute|_input_tokens_per_minute_per/i },
      category: "rate_limit",
      rateLimitKind: "TPM",
      identifies: true,
      samples: ["ggl-047"],
      doc: RATE_LIMITS
    },
    // --- 429 RESOURCE_EXHAUSTED wordings: a rate limit, whatever the words say about quota
    {
      id: "google.429-exceeded-current-quota",
      // "You exceeded your current quota, please check your plan and billing details. For more
      // information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits."
      // (OpenAI's balance wording, sent by the Gemini API for RPM/TPM/RPD limits; OpenAI's own
      // message goes on "read the docs:", Gemini's "head to:")
      match: {
        status: 429,
        message: /you exceeded your current quota, please check your plan and billing details\. for more information on this error, head to:/i
      },
      category: "rate_limit",
      identifies: true,
      samples: ["ggl-001", "ggl-006", "ggl-051", "ggl-060"],
      doc: RATE_LIMITS
    },
    {
      id: "google.429-quota-metric",
      // Gemini API v1: "Quota exceeded for quota metric 'Generate Content API requests per minute'
      // and limit 'GenerateContent request limit per minute for a region' of service ..."
      match: { status: 429, message: /quota exceeded for quota metric '[^'\n]{1,80}'/i },
      category: "rate_limit",
      identifies: true,
      samples: ["ggl-004", "ggl-019"],
      doc: RATE_LIMITS
    },
    {
      id: "google.resource-exhausted-wording",
      // Gemini API "Resource has been exhausted (e.g. check quota)."; Vertex AI pay-as-you-go
      // "Resource exhausted. Please try again later." / "Resource exhausted, please try again later."
      match: { message: /resource has been exhausted \(e\.g\. check quota\)|resource exhausted[.,] please try again later/i },
      category: "rate_limit",
      identifies: true,
      samples: ["ggl-048", "ggl-002", "ggl-020", "ggl-030"],
      doc: VERTEX_429
    },
    {
      id: "google.provisioned-throughput-exceeded",
      match: { message: /too many requests\. exceeded the provisioned throughput/i },
      category: "rate_limit",
      identifies: true,
      samples: ["ggl-052"],
      doc: VERTEX_429
    },
    // --- 400 that is not a bad request
    {
      id: "google.400-api-key-invalid",
      // 400 INVALID_ARGUMENT, reason API_KEY_INVALID
      match: { status: 400, message: /api key not valid\. please pass a valid api key|api key expired\. please renew the api key/i },
      category: "auth_key",
      identifies: true,
      samples: ["ggl-057"],
      doc: TROUBLESHOOTING
    },
    {
      id: "google.api-key-invalid-wording",
      match: { message: /api key not valid\. please pass a valid api key|api key expired\. please renew the api key/i },
      category: "auth_key",
      identifies: true,
      samples: ["ggl-058", "ggl-057"],
      doc: TROUBLESHOOTING
    },
    {
      id: "google.400-user-location-not-supported",
      // 400 FAILED_PRECONDITION: the free tier is not served in the caller's region (and no billing)
      match: { status: 400, message: /user location is not supported for the api use/i },
      category: "permission",
      identifies: true,
      samples: ["ggl-011", "ggl-013"],
      doc: TROUBLESHOOTING
    },
    {
      id: "google.user-location-not-supported-wording",
      match: { message: /user location is not supported for the api use/i },
      category: "permission",
      identifies: true,
      samples: ["ggl-011", "ggl-013"],
      doc: "https://ai.google.dev/gemini-api/docs/available-regions"
    },
    // --- other wordings
    {
      id: "google.model-not-found-for-api-version",
      // 404 NOT_FOUND "models/gemini-pro is not found for API version v1beta, or is not supported
      // for generateContent. Call ListModels to see the list of available models ..."
      match: { message: /is not found for api version v\d[a-z0-9]{0,10}, or is not supported for/i },
      category: "model_not_found",
      identifies: true,
      samples: ["ggl-015"],
      doc: TROUBLESHOOTING
    },
    {
      id: "google.internal-error-wording",
      // 500 INTERNAL "An internal error has occurred. Please retry or report in
      // https://developers.generativeai.google/guide/troubleshooting"
      match: { message: /an internal error has occurred\. please retry or report in https:\/\/developers\.generativeai\.google/i },
      category: "server_error",
      identifies: true,
      samples: ["ggl-027", "ggl-024", "ggl-026"],
      doc: TROUBLESHOOTING
    },
    {
      id: "google.invalid-argument-provided-to-gemini",
      // langchain-google-genai: ChatGoogleGenerativeAIError wrapping google.api_core InvalidArgument
      match: { message: /invalid argument provided to gemini: 400\b/i },
      category: "invalid_request",
      identifies: true,
      samples: ["ggl-032"]
    },
    {
      id: "google.consumer-suspended",
      // 403 PERMISSION_DENIED, reason CONSUMER_SUSPENDED: "Permission denied: Consumer
      // 'api_key:AIza...' has been suspended."
      match: { message: /permission denied: consumer '[^'\n]{1,80}' has been suspended/i },
      category: "permission",
      identifies: true,
      samples: ["ggl-056"],
      doc: TROUBLESHOOTING
    },
    {
      id: "google.vertex-iam-permission-denied",
      // 403 PERMISSION_DENIED "Permission 'aiplatform.endpoints.predict' denied on resource ..."
      match: { message: /permission 'aiplatform\.[a-z.]{1,60}' denied on resource/i },
      category: "permission",
      identifies: true,
      samples: ["ggl-045"],
      doc: "https://cloud.google.com/vertex-ai/docs/general/access-control"
    }
  ]
} satisfies ProviderFamily
