/**
 * Hugging Face Text Generation Inference (TGI, self-hosted `ghcr.io/huggingface/text-generation-inference`,
 * also behind HF Inference Endpoints and HuggingChat). Errors are `{"error": "<message>",
 * "error_type": "validation" | "generation" | "overloaded" | "incomplete_generation"}`:
 * validation 422 ("Input validation error: `inputs` tokens + `max_new_tokens` must be <= N"),
 * generation 424, overloaded 429 ("Model is overloaded": the request queue is full — server
 * back-pressure, not an account limit), incomplete_generation 500. The `text_generation` client
 * maps them to ValidationError, GenerationError, OverloadedError, IncompleteGenerationError.
 * https://github.com/huggingface/text-generation-inference/blob/main/clients/python/text_generation/errors.py
 */
import type { ProviderFamily } from "../types.js"

export default {
  id: "tgi",
  name: "Text Generation Inference",
  hosts: [],
  markers: [
    /text_generation_router/,
    /text_generation_launcher/,
    /text-generation-inference/,
    /text_generation\.errors/,
    /"error_type":\s?"(?:validation|generation|overloaded|incomplete_generation)"/
  ],
  entries: [
    {
      id: "tgi.input-validation",
      // 422 error_type validation: "Input validation error: `inputs` must have less than 1024 tokens. Given: 1872"
      match: { message: /input validation error: /i },
      category: "invalid_request",
      identifies: true,
      samples: ["shs-047", "shs-048", "shs-049"],
      doc: "https://github.com/huggingface/text-generation-inference/blob/main/clients/python/text_generation/errors.py"
    },
    {
      id: "tgi.token-budget",
      // the router's own log line carries the check without the "Input validation error:" prefix
      match: { message: /`inputs` tokens \+ `max_new_tokens` must be <= \d{1,9}/i },
      category: "invalid_request",
      identifies: true,
      samples: ["shs-047", "shs-050"]
    },
    {
      id: "tgi.overloaded-429",
      // TGI's 429 means its queue is full (error_type overloaded): retry later, no account limit involved
      match: { status: 429, message: /model is overloaded/i },
      category: "overload",
      samples: ["shs-051"],
      doc: "https://github.com/huggingface/text-generation-inference/blob/main/clients/python/text_generation/errors.py"
    },
    {
      id: "tgi.overloaded",
      match: { message: /\bmodel is overloaded\b/i },
      category: "overload",
      samples: ["shs-051"]
    }
  ]
} satisfies ProviderFamily
