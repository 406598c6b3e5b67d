/**
 * NVIDIA NIM / API Catalog (integrate.api.nvidia.com/v1, ai.api.nvidia.com, NVCF
 * api.nvcf.nvidia.com). Errors are RFC 7807 problem+json `{"status", "title", "detail"}`
 * (`{"status":429,"title":"Too Many Requests"}`); a model that is not (or no longer) served for
 * the account answers 404 "Function '<uuid>': Not found for account '<id>'". Free-tier limits are
 * per minute (~40 RPM) but not named in the 429. Clients: openai-python, LangChain
 * `langchain_nvidia_ai_endpoints` (`ChatNVIDIA`, "[401] Unauthorized" + WWW-Authenticate lines),
 * LiteLLM `Nvidia_nimException`.
 * https://docs.api.nvidia.com/nim/reference/api-errors
 */
import type { ProviderFamily } from "../types.js"

export default {
  id: "nvidia",
  name: "NVIDIA NIM (API Catalog)",
  hosts: ["api.nvidia.com", "nvcf.nvidia.com"],
  markers: [/langchain_nvidia_ai_endpoints/, /\bChatNVIDIA\b/, /Nvidia_nimException/i, /provider NIM returned/],
  weakMarkers: [/\bNVIDIA NIM\b/i],
  entries: [
    {
      id: "nvidia.function-not-found-for-account",
      // 404 {"status":404,"title":"Not Found","detail":"Function '<uuid>': Not found for account '<id>'"}:
      // the model's cloud function is not available to the account (retired, or not free).
      match: { message: /Function '[0-9a-f-]{36}': Not found for account/i },
      category: "model_not_found",
      identifies: true,
      samples: ["wst-044", "wst-045"]
    }
  ]
} satisfies ProviderFamily
