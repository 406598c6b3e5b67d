/**
 * DeepSeek API (api.deepseek.com, also `/anthropic` for Anthropic-compatible clients).
 * OpenAI-style body `{"error": {"message", "type", "param", "code"}}` where `code` is nearly always
 * `invalid_request_error` whatever happened, so the status and the message carry the meaning:
 * 400 Invalid Format, 401 Authentication Fails, 402 Insufficient Balance, 422 Invalid Parameters
 * (`Failed to deserialize the JSON body into the target type: …`), 429 Rate Limit Reached,
 * 500 Server Error, 503 Server Overloaded. Clients: openai SDKs, LiteLLM (`DeepseekException`),
 * deepseek4j (Java).
 * https://api-docs.deepseek.com/quick_start/error_codes
 * https://api-docs.deepseek.com/zh-cn/quick_start/error_codes
 */
import type { ProviderFamily } from "../types.js"

const DOC = "https://api-docs.deepseek.com/quick_start/error_codes"

export default {
  id: "deepseek",
  name: "DeepSeek",
  hosts: ["api.deepseek.com", "platform.deepseek.com"],
  markers: [
    /\bDeepseekException\b/,
    // deepseek4j (`io.github.pigmesh.ai.deepseek.core.OpenAiHttpException`)
    /\bio\.github\.pigmesh\.ai\.deepseek\b/,
    /api-docs\.deepseek\.com/i,
    // the API's name in clients' messages ("DeepSeek API request failed", "DeepSeek API error")
    /\bDeepSeek API\b/
  ],
  entries: [
    {
      id: "deepseek.insufficient-balance",
      // 402 "Insufficient Balance" (LiteLLM re-raises it as BadRequestError with the same body)
      // (does not tell DeepSeek: MiniMax's `status_msg` is "insufficient balance" too)
      match: { message: /^(?:402 )?insufficient balance\b/i },
      category: "quota",
      samples: ["cnz-048", "cnz-049"],
      doc: DOC
    },
    {
      id: "deepseek.authentication-fails-401",
      match: { status: 401, message: /authentication fails(?:, your api key| \()/i },
      category: "auth_key",
      identifies: true,
      samples: ["cnz-050", "cnz-053"],
      doc: DOC
    },
    {
      id: "deepseek.authentication-fails",
      // 401 "Authentication Fails, Your api key: ****abcd is invalid", "Authentication Fails (no such user)",
      // "Authentication Fails (auth header format should be Bearer sk-...)"
      match: { message: /authentication fails(?:, your api key| \()/i },
      category: "auth_key",
      identifies: true,
      samples: ["cnz-050", "cnz-053"],
      doc: DOC
    },
    {
      id: "deepseek.auth-zh",
      // the Chinese docs' 401 text, which Chinese clients show: "API key 错误，认证失败"
      match: { message: /API key 错误，认证失败/i },
      category: "auth_key",
      identifies: true,
      samples: ["cnz-051"],
      doc: "https://api-docs.deepseek.com/zh-cn/quick_start/error_codes"
    },
    {
      id: "deepseek.invalid-parameters",
      // 422 Invalid Parameters (sometimes 400): the body failed to deserialize
      match: { message: /failed to deserialize the json body into the target type/i },
      category: "invalid_request",
      identifies: true,
      samples: ["cnz-061", "cnz-063", "cnz-062"],
      doc: DOC
    },
    {
      id: "deepseek.max-tokens-range",
      // 400 "Invalid max_tokens value, the valid range of max_tokens is [1, 8192]"
      match: { message: /invalid max_tokens value, the valid range of max_tokens is/i },
      category: "invalid_request",
      identifies: true,
      samples: ["cnz-056"],
      doc: DOC
    }
  ]
} satisfies ProviderFamily
