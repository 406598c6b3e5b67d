/**
 * Zhipu AI / BigModel (open.bigmodel.cn, `/api/paas/v4/…`) and its international twin Z.AI
 * (api.z.ai): GLM models, also behind an Anthropic-compatible endpoint (`/api/anthropic`) used by
 * Claude Code and the GLM Coding Plan. Body `{"error": {"code": "<business code>", "message"}}`
 * (the code is a numeric string, in Chinese on bigmodel.cn and in English on z.ai); the
 * Anthropic-compatible endpoint wraps it as `{"type":"error","error":{"type","code","message"}}`.
 * Clients: the zhipuai / zai Python SDKs (`zhipuai.core._errors`: APIRequestFailedError 400,
 * APIAuthenticationError 401, APIReachLimitError 429, APIInternalError 500,
 * APIServerFlowExceedError 503, text "Error code: 429, with error text {…}"), OpenAI-compatible
 * clients, Claude Code.
 * https://docs.bigmodel.cn/cn/api/api-code
 * https://open.bigmodel.cn/dev/api/error-code/service-error
 * https://docs.z.ai/api-reference/api-code
 */
import type { ProviderFamily } from "../types.js"

const CODES_DOC = "https://docs.bigmodel.cn/cn/api/api-code"
const CODES_DOC_EN = "https://docs.z.ai/api-reference/api-code"
const RATE_DOC = "https://docs.bigmodel.cn/cn/api/rate-limit"
const SDK_ERRORS = "https://github.com/MetaGLM/zhipuai-sdk-python-v4/blob/main/zhipuai/core/_errors.py"

export default {
  id: "zhipu",
  name: "Zhipu AI / BigModel / Z.AI",
  hosts: ["open.bigmodel.cn", "bigmodel.cn", "api.z.ai"],
  markers: [
    // the SDK's module path (`zhipuai.core._errors.APITimeoutError`) and the product names
    /\bzhipuai\b/i,
    /\bZhipu\b/i,
    /智谱/,
    // zhipuai / zai SDK error classes no other SDK uses
    /\b(?:APIReachLimitError|APIServerFlowExceedError|APIRequestFailedError)\b/,
    // documented messages only BigModel sends (relays pass them through unchanged)
    /余额不足或无可用资源包/,
    /Insufficient balance or no resource package/i,
    /您当前使用该\s?API的并发数过高/,
    /模型不存在，请检查模型代码/
  ],
  weakMarkers: [/\bAPIAuthenticationError\b/],
  entries: [
    // --- authentication (1000-1005, HTTP 401). MiniMax uses 1000-1004 for other things.
    {
      id: "zhipu.auth-codes",
      // 1000 身份验证失败, 1001 no Authentication header, 1002 Authorization Token 非法,
      // 1003 Token 已过期, 1004 token verification failed, 1005 二次认证
      match: { code: [1000, 1001, 1002, 1003, 1004, 1005] },
      category: "auth_key",
      onlyForProvider: true,
      samples: ["cnz-011", "cnz-013", "cnz-014"],
      doc: CODES_DOC
    },
    {
      id: "zhipu.auth-wording",
      // "Authorization Token非法，请确认Authorization Token正确传递" / "Authorization Token已过期，请重新生成/获取"
      // (the docs spell it "Authentication Token 非法")
      match: { message: /Auth(?:orization|entication) Token ?(?:非法|已过期)/i },
      category: "auth_key",
      identifies: true,
      samples: ["cnz-011", "cnz-013", "cnz-014"],
      doc: CODES_DOC
    },
    {
      id: "zhipu.sdk-authentication-error",
      match: { errorClass: "APIAuthenticationError" },
      category: "auth_key",
      samples: ["cnz-013"],
      doc: SDK_ERRORS
    },
    // --- balance (1113, HTTP 429)
    {
      id: "zhipu.balance-429",
      // the documented pair: 429 + 1113 (a balance failure sent as 429)
      match: { code: 1113, status: 429 },
      category: "quota",
      identifies: true,
      samples: ["cnz-017", "cnz-016"],
      doc: CODES_DOC
    },
    {
      id: "zhipu.balance",
      match: { code: 1113 },
      category: "quota",
      identifies: true,
      samples: ["cnz-017"],
      doc: CODES_DOC
    },
    {
      id: "zhipu.balance-wording",
      // 1113: "余额不足或无可用资源包,请充值。" (now), "您的账户已欠费，请充值后重试。" (older),
      // z.ai: "Insufficient balance or no resource package. Please recharge."
      match: { message: /余额不足或无可用资源包|您的账户已欠费|insufficient balance or no resource package/i },
      category: "quota",
      identifies: true,
      samples: ["cnz-001", "cnz-015", "cnz-017"],
      doc: CODES_DOC
    },
    // --- request errors (12xx, HTTP 400)
    {
      id: "zhipu.model-not-found",
      // 1211 模型不存在，请检查模型代码
      match: { code: 1211 },
      category: "model_not_found",
      identifies: true,
      samples: ["cnz-010"],
      doc: CODES_DOC
    },
    {
      id: "zhipu.model-not-found-wording",
      match: { message: /模型不存在，?请检查模型代码/i },
      category: "model_not_found",
      identifies: true,
      samples: ["cnz-009", "cnz-010"],
      doc: CODES_DOC
    },
    {
      id: "zhipu.bad-parameter-400",
      // 1210 API 调用参数有误, 1213 未正常接收到 ${field} 参数, 1214 ${field} 参数非法,
      // 1215 ${field1} 与 ${field2} 不能同时设置, 1261 Prompt 超长
      match: { code: [1210, 1213, 1214, 1215, 1261], status: 400 },
      category: "invalid_request",
      identifies: true,
      samples: ["cnz-004", "cnz-006"],
      doc: CODES_DOC
    },
    {
      id: "zhipu.bad-parameter",
      match: { code: [1210, 1213, 1214, 1215, 1261] },
      category: "invalid_request",
      identifies: true,
      samples: ["cnz-004"],
      doc: CODES_DOC
    },
    {
      id: "zhipu.bad-parameter-wording",
      // "API 调用参数有误，请检查文档", "max_tokens参数非法。请检查文档。", "Prompt exceeds max length"
      match: { message: /API 调用参数有误|参数非法。?请检查文档|prompt exceeds max length/i },
      category: "invalid_request",
      identifies: true,
      samples: ["cnz-004", "cnz-005", "cnz-008"],
      doc: CODES_DOC
    },
    // --- rate limits (13xx, HTTP 429)
    {
      id: "zhipu.rate-limit-429",
      // 1302 您当前使用该API的并发数过高 / 您的账户已达到速率限制 (concurrency), 1303 请求频率过高
      match: { code: [1302, 1303], status: 429 },
      category: "rate_limit",
      identifies: true,
      samples: ["cnz-002", "cnz-003"],
      doc: RATE_DOC
    },
    {
      id: "zhipu.rate-limit",
      match: { code: [1302, 1303] },
      category: "rate_limit",
      identifies: true,
      samples: ["cnz-002"],
      doc: RATE_DOC
    },
    {
      id: "zhipu.rate-limit-wording",
      match: { message: /并发数过高，?请降低并发|您的账户已达到速率限制|使用该\s?API的频率过高/i },
      category: "rate_limit",
      identifies: true,
      samples: ["cnz-002", "cnz-003"],
      doc: RATE_DOC
    },
    {
      id: "zhipu.usage-window-429",
      // 1308 已达到 ${number} ${unit} 的使用上限。您的限额将在 ${next_flush_time} 重置 (GLM Coding Plan
      // 5-hour window), 1310 weekly/monthly cap: a 429 that clears at the reset time
      match: { code: [1308, 1310], status: 429 },
      category: "rate_limit",
      identifies: true,
      samples: ["cnz-007"],
      doc: CODES_DOC
    },
    {
      id: "zhipu.usage-window",
      match: { code: [1308, 1310] },
      category: "rate_limit",
      identifies: true,
      samples: ["cnz-007"],
      doc: CODES_DOC
    },
    {
      id: "zhipu.usage-window-wording",
      // z.ai: "Usage limit reached for 5 hour. Your limit will reset at …"
      match: { message: /已达到[^。]{0,20}的使用上限|usage limit reached for [0-9]{1,3} ?(?:hour|day|week|month)/i },
      category: "rate_limit",
      identifies: true,
      samples: ["cnz-007"],
      doc: CODES_DOC_EN
    }
  ]
} satisfies ProviderFamily
