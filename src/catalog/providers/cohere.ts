/**
 * Cohere (api.cohere.com, formerly api.cohere.ai). Body `{"message": "…"}` (v1/v2, no code);
 * cohere-python ≥5 raises `cohere.errors.<name>_error.<Name>Error` / `cohere.core.api_error.ApiError`
 * as `status_code: N, body: {...}`; older clients raise `CohereError: <message>`.
 * https://docs.cohere.com/reference/errors
 * Documented statuses outside the contract table: 498 (blocked unsafe request) and 499 (request
 * cancelled by the user); 402 is the billing limit, 429 covers both the per-minute limits and the
 * trial key's monthly call cap.
 */
import type { ProviderFamily } from "../types.js"

export default {
  id: "cohere",
  name: "Cohere",
  hosts: ["cohere.com", "cohere.ai"],
  markers: [/\bcohere\.(?:errors|core)\./, /\bCohereError\b/, /CohereException/, /CohereAPIError/],
  weakMarkers: [/\bCohere\b/],
  entries: [
    {
      id: "cohere.invalid-api-token",
      // 401 {"message": "invalid api token"}
      match: { message: /\binvalid api token\b/i },
      category: "auth_key",
      samples: ["wst-010", "wst-012"],
      doc: "https://docs.cohere.com/reference/errors"
    }
  ]
} satisfies ProviderFamily
