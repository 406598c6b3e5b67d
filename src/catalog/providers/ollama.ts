/**
 * Ollama (local server on :11434, native `/api/*` and OpenAI-compatible `/v1/*`; Ollama's cloud
 * at ollama.com). Native errors are `{"error": "<message>"}` with the HTTP status (400 bad
 * request, 404 model not found, 429, 500, 502 cloud model unreachable); an error after a stream
 * has started arrives as a last NDJSON line `{"error": ...}` while the status stays 200. The /v1
 * layer wraps the same message as `{"error": {"message", "type": "api_error", ...}}`.
 * Clients: ollama-python `ollama._types.ResponseError` (`<error> (status code: N)`), ollama-js
 * `ResponseError`, LangChain `Ollama call failed with status code N`, LiteLLM `OllamaException`.
 * A full queue (OLLAMA_MAX_QUEUE) answers 503 "server busy, please try again.  maximum pending
 * requests exceeded" (ollama/ollama#4144).
 * https://docs.ollama.com/api/errors
 */
import type { ProviderFamily } from "../types.js"

export default {
  id: "ollama",
  name: "Ollama",
  hosts: ["ollama.com", "ollama.ai"],
  markers: [
    /ollama\._types\./,
    /OllamaException/,
    /OllamaEndpointNotFoundError/,
    /Ollama call failed with status code/,
    /ollama-ai-provider/,
    /AIShell\.Ollama/,
    /registry\.ollama\.ai\//,
    /:11434\b/,
    /\bport=11434\b/,
    /Provider Ollama failed/,
    /\bOllama: \d{3}, message=/,
    /调用Ollama/
  ],
  weakMarkers: [/\bollama\b/i],
  entries: [
    {
      id: "ollama.model-not-pulled",
      // 404 {"error":"model 'llama3' not found, try pulling it first"} (older builds and the /v1 layer)
      match: { message: /not found, try pulling it first/i },
      category: "model_not_found",
      identifies: true,
      samples: ["shs-001", "shs-002", "shs-003"],
      doc: "https://docs.ollama.com/api/errors"
    },
    {
      id: "ollama.continue-model-not-found",
      // Continue's rewording of Ollama's 404: The model "x" was not found. To download it, run `ollama run x`.
      match: { message: /was not found\. to download it, run `ollama (?:run|pull) /i },
      category: "model_not_found",
      identifies: true,
      samples: ["shs-004"]
    },
    {
      id: "ollama.requires-more-memory",
      // 500 "model requires more system memory (5.3 GiB) than is available (4.4 GiB)": the host cannot load the model
      match: { message: /model requires more system memory \([^)\n]{1,20}\) than is available/i },
      category: "server_error",
      identifies: true,
      samples: ["shs-005", "shs-021"]
    },
    {
      id: "ollama.runner-terminated",
      // 500 "llama runner process has terminated: exit status 2" (the model runner crashed)
      match: { message: /llama runner process has terminated|llama runner terminated/i },
      category: "server_error",
      identifies: true,
      samples: ["shs-006"]
    },
    {
      id: "ollama.server-busy",
      // 503 when more than OLLAMA_MAX_QUEUE requests are pending (server/sched.go ErrMaxQueue)
      match: { message: /server busy, please try again\.\s{1,3}maximum pending requests exceeded/i },
      category: "overload",
      identifies: true,
      samples: ["shs-007"],
      doc: "https://github.com/ollama/ollama/pull/4144"
    },
    {
      id: "ollama.capability-unsupported",
      // 400 "llama3.2 does not support generate", "registry.ollama.ai/library/x does not support tools"
      match: { message: /does not support (?:tools|generate|chat|embeddings|thinking|insert|vision)\b/i },
      category: "invalid_request",
      samples: ["shs-014"],
      doc: "https://docs.ollama.com/api/errors"
    },
    {
      id: "ollama.model-run-failed",
      // the documented runtime failures ("the model failed to generate a response"; mid-stream
      // "an error was encountered while running the model")
      match: { message: /the model failed to generate a response|an error was encountered while running the model/i },
      category: "server_error",
      identifies: true,
      samples: ["shs-019"],
      doc: "https://docs.ollama.com/api/errors"
    }
  ]
} satisfies ProviderFamily
