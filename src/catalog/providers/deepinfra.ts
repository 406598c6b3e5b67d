/**
 * DeepInfra (api.deepinfra.com/v1/openai). OpenAI-compatible body `{"error": {"message", "type",
 * "param", "code"}}`; some answers are `{"error": {"message": "Model busy, retry later"}}` or
 * FastAPI's `{"detail": …}`. LiteLLM wraps it as `DeepinfraException`.
 * https://deepinfra.com/docs/advanced/openai_api
 */
import type { ProviderFamily } from "../types.js"

export default {
  id: "deepinfra",
  name: "DeepInfra",
  hosts: ["deepinfra.com"],
  markers: [/DeepinfraException/i, /received from deepinfra\b/i],
  weakMarkers: [/\bDeepInfra\b/i],
  entries: [
    {
      id: "deepinfra.model-busy",
      // {"error":{"message":"Model busy, retry later"}} (sent as 429): the model's capacity is taken.
      // With a 429 status the status decides (rate_limit); without one it is an overload.
      match: { message: /Model busy, retry later/i },
      category: "overload",
      identifies: true,
      samples: ["wst-042"]
    }
  ]
} satisfies ProviderFamily
