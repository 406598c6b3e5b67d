/**
 * LM Studio's local server (OpenAI-compatible `/v1/*` on :1234 by default, native `/api/v1/*`).
 * Errors are `{"error": "<message>"}` (a bare string) or `{"error": {"message", ...}}`; an unknown
 * path is answered with HTTP 200 and `{"error": "Unexpected endpoint or method. (POST /x)"}`.
 * Server-side logs carry `[LM STUDIO SERVER]`, the app's main.log `[LMSInternal]`.
 * https://lmstudio.ai/docs/app/api
 */
import type { ProviderFamily } from "../types.js"

export default {
  id: "lmstudio",
  name: "LM Studio",
  hosts: [],
  markers: [/\[LM STUDIO SERVER\]/, /\[LMSInternal\]/, /Unexpected endpoint or method\. \(/, /\blms load\b/],
  weakMarkers: [/\bLM ?Studio\b/i, /:1234\/(?:v1|api)\b/],
  entries: [
    {
      id: "lmstudio.unexpected-endpoint",
      // the path is wrong (e.g. no /v1): LM Studio answers 200 with this error body
      match: { message: /unexpected endpoint or method\. \((?:GET|POST|PUT|DELETE) /i },
      category: "invalid_request",
      identifies: true,
      samples: ["shs-041"]
    },
    {
      id: "lmstudio.invalid-json",
      // "[LM STUDIO SERVER] Received request for /api/v1/chat with invalid JSON: ..."
      match: { message: /received request for [^\n]{1,80} with invalid json/i },
      category: "invalid_request",
      identifies: true,
      samples: ["shs-044"]
    },
    {
      id: "lmstudio.prompt-template",
      // the model's jinja chat template failed on the request ("Error rendering prompt with jinja
      // template: …", then "This is usually an issue with the model's prompt template."): the
      // call fails whatever the client does, and no status says why
      match: { message: /error rendering prompt with jinja template/i },
      category: "unknown",
      identifies: true,
      samples: ["w6c-017", "w6c-018", "w6d-011"]
    },
    {
      id: "lmstudio.model-unloaded",
      // the model was unloaded (failed load, eviction) while requests still reference it
      match: { message: /error: model is unloaded\./i },
      category: "server_error",
      identifies: true,
      samples: ["shs-045"]
    }
  ]
} satisfies ProviderFamily
