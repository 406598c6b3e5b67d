/**
 * Perplexity (api.perplexity.ai). Body `{"error": {"message", "type", "code": <HTTP status>}}`
 * with types `invalid_model`, `invalid_api_key`; a bad or missing key may instead get an
 * openresty HTML page "401 Authorization Required" (with Cloudflare's challenge script).
 * https://docs.perplexity.ai/guides/model-cards (retired model names answer `invalid_model`)
 */
import type { ProviderFamily } from "../types.js"

export default {
  id: "perplexity",
  name: "Perplexity",
  hosts: ["perplexity.ai"],
  markers: [/PerplexityException/],
  weakMarkers: [/\bPerplexity\b/],
  entries: [
    {
      id: "perplexity.invalid-model",
      // 400 {"error": {"message": "Invalid model 'x'. Permitted models can be found in the
      // documentation at https://docs.perplexity.ai/…", "type": "invalid_model", "code": 400}}
      // (the type alone does not tell Perplexity: Mistral answers `{"object":"error","message":"Invalid
      // model: x","type":"invalid_model","param":null,"code":"1500"}`, tmc/langchaingo#1233; the
      // wording entry below does)
      match: { type: "invalid_model" },
      category: "model_not_found",
      samples: ["wst-036", "wst-037"],
      doc: "https://docs.perplexity.ai/guides/model-cards"
    },
    {
      id: "perplexity.invalid-model-wording",
      match: { message: /Invalid model '[^'\n]{1,80}'\. Permitted models can be found in the documentation/i },
      category: "model_not_found",
      identifies: true,
      samples: ["wst-036", "wst-037"]
    }
  ]
} satisfies ProviderFamily
