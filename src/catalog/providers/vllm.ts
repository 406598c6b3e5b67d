/**
 * vLLM's OpenAI-compatible server (`vllm serve`, `python -m vllm.entrypoints.openai.api_server`,
 * usually :8000). Errors are `ErrorResponse` bodies: older releases
 * `{"object": "error", "message", "type": "BadRequestError" | "NotFoundError" | ..., "param",
 * "code": <HTTP status>}`, newer ones `{"error": {"message", "type", "param", "code"}}`; the
 * status is the HTTP status of the answer. Typical: 404 "The model `x` does not exist." (name
 * differs from --served-model-name), 400 context length / max_tokens, 400 tool choice without
 * --enable-auto-tool-choice, 401 with --api-key, 500 when the engine died (EngineDeadError /
 * AsyncEngineDeadError "Background loop has errored already").
 * https://docs.vllm.ai/en/latest/serving/openai_compatible_server.html
 */
import type { ProviderFamily } from "../types.js"

export default {
  id: "vllm",
  name: "vLLM",
  hosts: [],
  markers: [
    /vllm\.(?:v1\.)?engine\./,
    /\b(?:Async)?EngineDeadError\b/,
    /\(APIServer pid=\d{1,8}\)/,
    /--enable-auto-tool-choice/,
    /hosted_vllm\//,
    /vllm\.entrypoints/
  ],
  weakMarkers: [/\bvllm\b/i, /['"]object['"]:\s?['"]error['"]/],
  entries: [
    {
      id: "vllm.type-not-found",
      // {"object":"error","message":"The model `x` does not exist.","type":"NotFoundError","code":404}
      match: { type: "NotFoundError" },
      category: "model_not_found",
      onlyForProvider: true,
      samples: ["shs-022"]
    },
    {
      id: "vllm.engine-dead",
      // 500: the engine process died; every later request fails until the server restarts
      match: { message: /EngineDeadError|engine_client\.dead_error|background loop has errored already|failed \(engine dead\)/i },
      category: "server_error",
      identifies: true,
      samples: ["shs-024"]
    },
    {
      id: "vllm.kv-cache-too-small",
      // start-up failure: max_model_len does not fit the KV cache (gpu_memory_utilization too low)
      match: { message: /larger than the maximum number of tokens that can be stored in KV cache/i },
      category: "server_error",
      identifies: true,
      samples: ["shs-031"]
    },
    {
      id: "vllm.context-length-input-tokens",
      // vLLM >= 0.16: "You passed N input tokens and requested M output tokens. However, the model's context length is only K tokens"
      match: { message: /you passed \d{1,9} input tokens and requested \d{1,9} output tokens/i },
      category: "invalid_request",
      identifies: true,
      samples: ["shs-033"]
    },
    {
      id: "vllm.max-tokens-too-large",
      // "'max_tokens' or 'max_completion_tokens' is too large: 8192. This model's maximum context length is ..."
      match: { message: /'max_tokens' or 'max_completion_tokens' is too large/i },
      category: "invalid_request",
      identifies: true,
      samples: ["shs-032"]
    },
    {
      id: "vllm.tool-choice-needs-parser",
      // 400 "\"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set"
      match: { message: /tool choice requires --enable-auto-tool-choice/i },
      category: "invalid_request",
      identifies: true,
      samples: ["shs-029", "shs-028"],
      doc: "https://docs.vllm.ai/en/latest/features/tool_calling.html"
    }
  ]
} satisfies ProviderFamily
