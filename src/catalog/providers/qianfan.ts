/**
 * Baidu Qianfan / ERNIE (文心, 千帆): the v1 API (aip.baidubce.com/rpc/2.0/ai_custom/v1/wenxinworkshop/…,
 * OAuth access_token from aip.baidubce.com/oauth/2.0/token) answers `{"error_code": <int>,
 * "error_msg", "id"?}` — often with HTTP 200 — and the Python SDK raises
 * `qianfan.errors.APIError: api return error, req_id: … code: <n>, msg: …`. The v2 API
 * (qianfan.baidubce.com/v2, OpenAI-compatible) answers `{"error": {"code": "<string>", "message",
 * "type"}, "id": "as-…"}`. The ERNIE Bot SDK (`erniebot`, AI Studio backend) raises its own
 * Chinese-worded errors.
 * https://cloud.baidu.com/doc/WENXINWORKSHOP/s/tlmyncueh (v1 error codes),
 * https://ai.baidu.com/ai-doc/WENXINWORKSHOP/hlzic283e (rate limits: 336501 RPM, 336502 TPM, sent with HTTP 200),
 * https://ai.baidu.com/ai-doc/WENXINWORKSHOP/Cm2y4d5ha (v2 error codes).
 * v1 codes: 1 unknown error, 2 service temporarily unavailable, 3 unsupported openapi method,
 * 4 cluster request limit, 6 no permission to access data, 14 IAM certification failed,
 * 17 daily request limit, 18 QPS limit, 19 total request limit, 100 invalid parameter,
 * 110 access token invalid, 111 access token expired, 336000 internal error, 336001/336003
 * invalid argument, 336100 try again later, 336103 prompt tokens too long, 336501/336502 RPM/TPM.
 * Small numbers (14, 17, 18, 110…) mean other things at other providers: `onlyForProvider`.
 */
import type { ProviderFamily } from "../types.js"

const DOC = "https://cloud.baidu.com/doc/WENXINWORKSHOP/s/tlmyncueh"

export default {
  id: "qianfan",
  name: "Baidu Qianfan (ERNIE)",
  hosts: ["aip.baidubce.com", "qianfan.baidubce.com", "aistudio.baidu.com"],
  markers: [
    /qianfan/i,
    /\berniebot\b/,
    /wenxinworkshop/i,
    /千帆|文心一言/,
    // the v1/v2 response id: `"id": "as-t2z8xi6mm8"`
    /["']id["']: ?["']as-[a-z0-9]{8,12}["']/
  ],
  entries: [
    {
      id: "qianfan.ak-not-correct",
      // the Python SDK's own check of the key pair: `AK(ALTAK***) is not correct, please check!
      // AK(…) 错误, 请检查！ AK/SK should be obtained from https://console.bce.baidu.com/qianfan/…`
      match: { message: /\bAK\([^)\n]{0,40}\) is not correct\b|\bAK\/SK should be obtain/i },
      category: "auth_key",
      samples: ["w22ac-011", "w19ba-016"]
    },
    {
      id: "qianfan.access-token-invalid",
      // error_code 110 "Access token invalid or no longer valid", 111 "Access token expired"
      match: { message: /access token invalid or no longer valid|access token expired/i },
      category: "auth_key",
      identifies: true,
      samples: ["cnr-029", "cnr-030"],
      doc: DOC
    },
    {
      id: "qianfan.auth-codes",
      // 14 IAM Certification failed, 110 / 111 access token invalid / expired
      match: { code: [14, 110, 111] },
      category: "auth_key",
      onlyForProvider: true,
      samples: ["cnr-032"],
      doc: DOC
    },
    {
      id: "qianfan.iam-certification-failed",
      match: { message: /IAM Certification failed/i },
      category: "auth_key",
      identifies: true,
      samples: ["cnr-032"],
      doc: DOC
    },
    {
      id: "qianfan.oauth-invalid-client",
      // the token endpoint: {"error_description":"unknown client id","error":"invalid_client"} (OAuth 2.0)
      match: { message: /\binvalid_client\b|unknown client id/i },
      category: "auth_key",
      samples: ["cnr-033"]
    },
    {
      id: "qianfan.daily-request-limit",
      // error_code 17 "Open api daily request limit reached" (also when the free quota / the service
      // is not opened)
      match: { message: /open api daily request limit reached/i },
      category: "rate_limit",
      rateLimitKind: "RPD",
      identifies: true,
      samples: ["cnr-039", "cnr-040"],
      doc: DOC
    },
    {
      id: "qianfan.daily-request-limit-code",
      match: { code: 17 },
      category: "rate_limit",
      rateLimitKind: "RPD",
      onlyForProvider: true,
      samples: ["cnr-039"],
      doc: DOC
    },
    {
      id: "qianfan.rpm-tpm-limit",
      // 336501 "Rate limit reached for RPM", 336502 "Rate limit reached for TPM" (HTTP 200)
      match: { code: [336501, 336502] },
      category: "rate_limit",
      identifies: true,
      samples: ["cnr-034"],
      doc: "https://ai.baidu.com/ai-doc/WENXINWORKSHOP/hlzic283e"
    },
    {
      id: "qianfan.invalid-argument",
      // 336001 "Invalid argument", 336003 (the message names the parameter: "message content can not be
      // empty", "function_call's name can't be blank")
      match: { code: [336001, 336003] },
      category: "invalid_request",
      identifies: true,
      samples: ["cnr-031"],
      doc: DOC
    },
    {
      id: "qianfan.v2-invalid-request-codes",
      // v2: 400 invalid_request_error malformed_json / invalid_model / invalid_messages /
      // characters_too_long / tokens_too_long
      match: { code: ["malformed_json", "invalid_model", "invalid_messages", "characters_too_long", "tokens_too_long"] },
      category: "invalid_request",
      identifies: true,
      samples: ["cnr-035"],
      doc: "https://ai.baidu.com/ai-doc/WENXINWORKSHOP/Cm2y4d5ha"
    },
    {
      id: "qianfan.erniebot-too-frequent",
      // ERNIE Bot SDK: "访问过于频繁，请稍候再试" (requests too frequent)
      match: { message: /访问过于频繁/i },
      category: "rate_limit",
      samples: ["cnr-036"],
      doc: "https://github.com/PaddlePaddle/ERNIE-SDK/issues/107"
    },
    {
      id: "qianfan.erniebot-tokens-used-up",
      // ERNIE Bot SDK: "token 已经用完毕，请充值后使用" (tokens used up, recharge)
      match: { message: /token 已经用完毕|请充值后使用/i },
      category: "quota",
      samples: ["cnr-037"],
      doc: "https://github.com/PaddlePaddle/ERNIE-SDK/issues/342"
    },
    {
      id: "qianfan.erniebot-invalid-token",
      // erniebot.errors.InvalidTokenError "暂无权限使用，请在 AI Studio 正确获取访问令牌(access token)使用"
      match: { message: /正确获取访问令牌/i },
      category: "auth_key",
      identifies: true,
      samples: ["cnr-038"],
      doc: "https://github.com/PaddlePaddle/ERNIE-SDK/issues/348"
    },
    {
      id: "qianfan.erniebot-invalid-token-class",
      match: { errorClass: "InvalidTokenError" },
      category: "auth_key",
      samples: ["cnr-038"]
    }
  ]
} satisfies ProviderFamily
