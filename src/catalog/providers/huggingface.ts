/**
 * Hugging Face hosted inference: the serverless Inference API (api-inference.huggingface.co,
 * `{"error": "...", "estimated_time": N}`), Inference Providers (router.huggingface.co) and
 * Inference Endpoints (*.endpoints.huggingface.cloud, TGI behind them: see tgi.ts). Clients:
 * huggingface_hub (`HfHubHTTPError: 429 Client Error: Too Many Requests for url: ...`), LangChain
 * HuggingFaceHub, LiteLLM `HuggingfaceException`. A cold model answers 503 "Model x is currently
 * loading"; monthly credits of Inference Providers run out as 402.
 * https://huggingface.co/docs/inference-providers/pricing
 */
import type { ProviderFamily } from "../types.js"

export default {
  id: "huggingface",
  name: "Hugging Face Inference",
  hosts: ["huggingface.co", "hf.co", "huggingface.cloud"],
  markers: [/huggingface_hub\.(?:errors|utils|inference)/, /HfHubHTTPError/, /HuggingfaceException/, /HuggingFace\.API\./, /hugchat\.exceptions/, /Inference Providers/],
  weakMarkers: [/\bhugging ?face\b/i],
  entries: [
    {
      id: "huggingface.model-loading",
      // 503 {"error":"Model bigcode/starcoder is currently loading","estimated_time":20.0}
      match: { message: /model [^\s]{1,120} is currently loading/i },
      category: "overload",
      identifies: true,
      samples: ["shs-053", "shs-055", "shs-054"],
      doc: "https://huggingface.co/docs/api-inference/detailed_parameters"
    },
    {
      id: "huggingface.credits-exceeded",
      // 402 "You have exceeded your monthly included credits for Inference Providers. Subscribe to PRO ..."
      match: { message: /exceeded your monthly included credits/i },
      category: "quota",
      identifies: true,
      samples: ["shs-057"],
      doc: "https://huggingface.co/docs/inference-providers/pricing"
    }
  ]
} satisfies ProviderFamily
