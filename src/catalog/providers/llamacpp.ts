/**
 * llama.cpp's HTTP server (`llama-server`, formerly `server`; also llama-swap in front of it, and
 * llama-cpp-python's `llama_cpp.server`). Errors are `{"error": {"code": <HTTP status>, "message",
 * "type"}}` with the types of `format_error_response`: invalid_request_error 400,
 * authentication_error 401, permission_error 403, not_found_error 404, server_error 500,
 * not_supported_error 501, unavailable_error 503 ("Loading model" while the model loads),
 * exceed_context_size_error 400 (with n_prompt_tokens / n_ctx; sent as 500 when introduced).
 * https://github.com/ggml-org/llama.cpp/tree/master/tools/server
 */
import type { ProviderFamily } from "../types.js"

export default {
  id: "llamacpp",
  name: "llama.cpp server",
  hosts: [],
  markers: [
    /exceed_context_size_error/,
    /\bunavailable_error\b/,
    /llama_cpp[./]server/,
    /\bllama-server\b/,
    /srv +send_error:/,
    /\bn_ctx_slot\b/
  ],
  weakMarkers: [/\bllama\.cpp\b/i, /\bllama-cpp\b/i],
  entries: [
    {
      id: "llamacpp.exceed-context-size",
      match: { type: "exceed_context_size_error" },
      category: "invalid_request",
      samples: ["shs-036", "shs-038"],
      doc: "https://github.com/ggml-org/llama.cpp/pull/15780"
    },
    {
      id: "llamacpp.exceed-context-size-wording",
      // "the request exceeds the available context size. try increasing the context size or enable context shift"
      // and the newer "request (N tokens) exceeds the available context size (M tokens), try increasing it"
      match: { message: /exceeds the available context size/i },
      category: "invalid_request",
      identifies: true,
      samples: ["shs-036", "shs-038"],
      doc: "https://github.com/ggml-org/llama.cpp/pull/15780"
    },
    {
      id: "llamacpp.unavailable",
      // 503 {"error":{"code":503,"message":"Loading model","type":"unavailable_error"}}
      match: { type: "unavailable_error" },
      category: "overload",
      identifies: true,
      samples: ["shs-034"],
      doc: "https://github.com/ggml-org/llama.cpp/tree/master/tools/server"
    },
    {
      id: "llamacpp.loading-model",
      match: { message: /['"]message['"]:\s?['"]Loading model['"]/i },
      category: "overload",
      identifies: true,
      samples: ["shs-034", "shs-035"]
    },
    {
      id: "llamacpp.python-context-window",
      // llama-cpp-python: ValueError(f"Requested tokens ({n}) exceed context window of {n_ctx}")
      match: { message: /requested tokens \(\d{1,9}\) exceed context window of \d{1,9}/i },
      category: "invalid_request",
      identifies: true,
      samples: ["shs-040"],
      doc: "https://github.com/abetlen/llama-cpp-python/blob/main/llama_cpp/llama.py"
    }
  ]
} satisfies ProviderFamily
