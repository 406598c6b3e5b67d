/**
 * Moonshot AI / Kimi Open Platform (api.moonshot.cn, api.moonshot.ai) and the Kimi Code endpoint
 * (api.kimi.com/coding, also Anthropic-compatible). OpenAI-style body without a code:
 * `{"error": {"type": "<snake_case>_error", "message"}}`; the `type` names are Moonshot's own
 * (`exceeded_current_quota_error`, `rate_limit_reached_error`, `engine_overloaded_error`,
 * `invalid_authentication_error`, `resource_not_found_error`, `content_filter`). Note: both a
 * spent balance (`exceeded_current_quota_error`) and an overloaded engine
 * (`engine_overloaded_error`) are sent as 429.
 * https://platform.moonshot.cn/docs/api/chat (error section)
 * https://platform.kimi.com/docs/api/errors
 * https://www.kimi.com/code/docs/en/kimi-code/error-reference.html
 */
import type { ProviderFamily } from "../types.js"

const DOC = "https://platform.kimi.com/docs/api/errors"
const CODE_DOC = "https://www.kimi.com/code/docs/en/kimi-code/error-reference.html"

export default {
  id: "moonshot",
  name: "Moonshot AI / Kimi",
  hosts: ["moonshot.cn", "moonshot.ai", "api.kimi.com"],
  markers: [
    // Moonshot's own error types (envelope markers; no other API uses these names)
    /\b(?:exceeded_current_quota_error|rate_limit_reached_error|engine_overloaded_error|invalid_authentication_error|access_terminated_error)\b/,
    /\bMoonshotException\b/,
    // Moonshot's first-party clients (kimi-cli, kimi-code) and their provider names
    /\bkimi-?code\b/i,
    /\bkimi-cli\b/i
  ],
  entries: [
    {
      id: "moonshot.exceeded-current-quota",
      // 429 exceeded_current_quota_error: "Your account {org} <{ak}> is suspended due to insufficient
      // balance, please recharge your account or check your plan and billing details"
      match: { type: "exceeded_current_quota_error" },
      category: "quota",
      identifies: true,
      samples: ["cnz-035", "cnz-047"],
      doc: DOC
    },
    {
      id: "moonshot.suspended-insufficient-balance",
      match: { message: /is suspended due to insufficient balance/i },
      category: "quota",
      identifies: true,
      samples: ["cnz-035", "cnz-047"],
      doc: DOC
    },
    {
      id: "moonshot.rate-limit-reached",
      // 429 rate_limit_reached_error: "Your account … request reached max request: 3, please try again
      // after 1 seconds", "… request reached project TPM rate limit, current: 1410, limit: 100"
      match: { type: "rate_limit_reached_error" },
      category: "rate_limit",
      identifies: true,
      samples: ["cnz-034"],
      doc: DOC
    },
    {
      id: "moonshot.rate-limit-reached-wording",
      match: { message: /request reached (?:project |organization )?(?:max request|max concurrency|max organization|[A-Z]{3} rate limit)/i },
      category: "rate_limit",
      identifies: true,
      samples: ["cnz-034"],
      doc: DOC
    },
    {
      id: "moonshot.engine-overloaded",
      // engine_overloaded_error "The engine is currently overloaded, please try again later", sent
      // as 429 (the status then decides rate_limit); without a status the type says overload
      match: { type: "engine_overloaded_error" },
      category: "overload",
      identifies: true,
      samples: ["cnz-039", "cnz-041"],
      doc: DOC
    },
    {
      id: "moonshot.engine-overloaded-wording",
      match: { message: /the engine is currently overloaded/i },
      category: "overload",
      identifies: true,
      samples: ["cnz-039", "cnz-041"],
      doc: CODE_DOC
    },
    {
      id: "moonshot.invalid-authentication",
      // 401 invalid_authentication_error "Invalid Authentication", incorrect_api_key_error
      match: { type: ["invalid_authentication_error", "incorrect_api_key_error"] },
      category: "auth_key",
      identifies: true,
      samples: ["cnz-037"],
      doc: DOC
    },
    {
      id: "moonshot.resource-not-found-model",
      // 404 resource_not_found_error "Not found the model {model} or Permission denied"
      match: { type: "resource_not_found_error", message: /\bmodel\b/i },
      category: "model_not_found",
      identifies: true,
      samples: ["cnz-038"],
      doc: DOC
    },
    {
      id: "moonshot.model-not-found-wording",
      match: { message: /not found the model [^\n]{1,80} or permission denied/i },
      category: "model_not_found",
      identifies: true,
      samples: ["cnz-038"],
      doc: DOC
    },
    {
      id: "moonshot.content-filter-400",
      match: { status: 400, message: /the request was rejected because it was considered high\s{1,3}risk/i },
      category: "invalid_request",
      identifies: true,
      samples: ["cnz-045", "cnz-044"],
      doc: DOC
    },
    {
      id: "moonshot.content-filter-wording",
      // 400 content_filter "The request was rejected because it was considered high risk"
      match: { message: /the request was rejected because it was considered high\s{1,3}risk/i },
      category: "invalid_request",
      identifies: true,
      samples: ["cnz-045", "cnz-044"],
      doc: DOC
    },
    {
      id: "moonshot.token-limit-400",
      match: { status: 400, message: /your request exceeded model token limit|input token length too long/i },
      category: "invalid_request",
      identifies: true,
      samples: ["cnz-043"],
      doc: DOC
    },
    {
      id: "moonshot.token-limit-wording",
      // 400 invalid_request_error "Your request exceeded model token limit: {max_model_length}",
      // "Input token length too long"
      match: { message: /your request exceeded model token limit|input token length too long/i },
      category: "invalid_request",
      identifies: true,
      samples: ["cnz-043"],
      doc: DOC
    },
    {
      id: "moonshot.access-terminated",
      // Kimi Code 403 access_terminated_error "Access terminated. Review our Community Guidelines …"
      match: { type: "access_terminated_error" },
      category: "permission",
      identifies: true,
      samples: ["cnz-046"],
      doc: CODE_DOC
    }
  ]
} satisfies ProviderFamily
