/**
 * MiniMax (api.minimax.chat / api.minimaxi.com in China, api.minimax.io abroad). Native API body:
 * `{"base_resp": {"status_code": <int>, "status_msg"}}`, often with HTTP 200; the OpenAI- and
 * Anthropic-compatible endpoints answer `{"type":"error","error":{"type","message":"… (<code>)",
 * "http_code":"<status>"},"request_id"}`: the MiniMax code in parentheses at the end of the message.
 * https://platform.minimaxi.com/document/error%20code and https://platform.minimax.io/docs/api-reference/errorcode
 * Codes: 1000 unknown error, 1001 request timeout, 1002 rate limit, 1004 not authorized / login fail,
 * 1008 insufficient balance, 1024 internal error, 1026/1027 sensitive input/output, 1039 token limit,
 * 2013 invalid params, 2049 invalid api key. HTTP 529 = overloaded (Anthropic's meaning), also
 * sent with "High traffic detected…".
 * Numeric codes mean other things elsewhere (1002, 1004…): `onlyForProvider`.
 */
import type { ProviderFamily } from "../types.js"

const DOC = "https://platform.minimax.io/docs/api-reference/errorcode"

export default {
  id: "minimax",
  name: "MiniMax",
  hosts: ["minimax.chat", "minimaxi.com", "minimax.io", "minimaxi.chat"],
  markers: [
    /MinimaxException/,
    /\bbase_resp\b/,
    /\[minimax\]/,
    // the compatible endpoints put the MiniMax code at the end of the message: "insufficient balance (1008)"
    /[a-z] \((?:1000|1001|1002|1004|1008|1024|1026|1027|1039|2013|2049)\)(?=["'\s]|$)/,
    /login fail: Please carry the API secret key/
  ],
  entries: [
    {
      id: "minimax.insufficient-balance",
      // 1008 "insufficient balance (1008)", sent as 429 or even 500
      match: { message: /insufficient balance \(1008\)/i },
      category: "quota",
      identifies: true,
      samples: ["cnr-014", "cnr-016"],
      doc: DOC
    },
    {
      id: "minimax.insufficient-balance-code",
      match: { code: 1008 },
      category: "quota",
      onlyForProvider: true,
      samples: ["cnr-014"],
      doc: DOC
    },
    {
      id: "minimax.invalid-params",
      // 2013 "invalid params, invalid chat setting (2013)" / "…, function parameters is empty (2013)"
      match: { message: /invalid params, [^\n]{1,160}?\(2013\)/i },
      category: "invalid_request",
      identifies: true,
      samples: ["cnr-017", "cnr-028"],
      doc: DOC
    },
    {
      id: "minimax.invalid-params-code",
      match: { code: 2013 },
      category: "invalid_request",
      onlyForProvider: true,
      samples: ["cnr-017"],
      doc: DOC
    },
    {
      id: "minimax.login-fail",
      // 1004 "login fail: Please carry the API secret key in the 'Authorization' field of the request header (1004)"
      match: { message: /login fail: please carry the API secret key/i },
      category: "auth_key",
      identifies: true,
      samples: ["cnr-015", "cnr-024"],
      doc: DOC
    },
    {
      id: "minimax.authorized-error",
      // the compatible endpoints' error.type for 1004
      match: { type: "authorized_error" },
      category: "auth_key",
      identifies: true,
      samples: ["cnr-024"],
      doc: DOC
    },
    {
      id: "minimax.not-authorized-code",
      match: { code: [1004, 2049] },
      category: "auth_key",
      onlyForProvider: true,
      samples: ["cnr-019", "cnr-024"],
      doc: DOC
    },
    {
      id: "minimax.rate-limit",
      // 1002 "rate limit" / "1002, trigger rate limit, please contact the sales representative"
      match: { message: /\b1002, trigger rate limit|trigger rate limit, please contact the sales/i },
      category: "rate_limit",
      identifies: true,
      samples: ["cnr-023"],
      doc: DOC
    },
    {
      id: "minimax.rate-limit-code",
      match: { code: 1002 },
      category: "rate_limit",
      onlyForProvider: true,
      samples: ["cnr-023"],
      doc: DOC
    },
    {
      id: "minimax.request-timeout-code",
      // base_resp.status_code 1001 "request timeout, please try again later" (often with HTTP 200):
      // the service timed out on its side; retry later
      match: { code: 1001 },
      category: "overload",
      onlyForProvider: true,
      samples: ["w20ba-010"],
      doc: DOC
    },
    {
      id: "minimax.high-traffic",
      // HTTP 529 "High traffic detected. For a more stable experience, upgrade to our Plus plan"
      match: { message: /high traffic detected\. for a more stable experience/i },
      category: "overload",
      identifies: true,
      samples: ["cnr-027"],
      doc: "https://github.com/openclaw/openclaw/pull/69699"
    }
  ]
} satisfies ProviderFamily
