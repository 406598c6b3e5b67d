/**
 * iFlytek Spark (讯飞星火) through its WebSocket and HTTP APIs (spark-api.xf-yun.com,
 * spark-api-open.xf-yun.com). The WebSocket answer carries the failure in its header:
 * `{"header": {"code": 11200, "message": "AppIdNoAuthError:(17:27:05.718) tokens.total",
 * "sid": "…", "status": 2}}`; clients print it as `请求错误: 11200, {…}` or `11200:AppIdNoAuthError:…`.
 * Codes (documented): 10013 / 10014 / 10019 the input or output failed content review; 10907 too
 * many tokens; 11200 the appId has no authorisation for the feature *or* its volume is used up
 * (`tokens.total`: the token allowance); 11201 daily limit; 11202 per-second limit; 11203
 * concurrency limit (entries only for the codes the corpus shows). A handshake refused with
 * `401 Unauthorized` is a bad key or signature.
 * https://www.xfyun.cn/doc/spark/Web.html (错误码)
 */
import type { ProviderFamily } from "../types.js"

const DOC = "https://www.xfyun.cn/doc/spark/Web.html"

export default {
  id: "iflytek",
  name: "iFlytek Spark",
  hosts: ["xf-yun.com", "xfyun.cn"],
  markers: [
    /\bAppIdNoAuthError\b/,
    // the header's message: an error class, then the server's time in parentheses
    // (`ClientMsgError:(23:02:32.721) invalid model domain`)
    /\b[A-Z][A-Za-z]{2,40}Error:\(\d{2}:\d{2}:\d{2}\.\d{3}\)/
  ],
  entries: [
    {
      id: "iflytek.token-allowance-used-up",
      // 11200 with `tokens.total`: the app's token allowance is used up
      match: { code: 11200, message: /tokens\.total/i },
      category: "quota",
      samples: ["j2d-004"],
      doc: DOC
    },
    {
      id: "iflytek.request-format",
      // 10003 用户的消息格式有错误 (the request's message or parameters are malformed, e.g. a
      // `domain` that names no model: `ClientMsgError: invalid model domain`)
      match: { code: 10003 },
      category: "invalid_request",
      onlyForProvider: true,
      samples: ["w4a-021"],
      doc: DOC
    },
    {
      id: "iflytek.no-authorisation",
      // 11200 授权错误：该appId没有相关功能的授权 或者 业务量超过限制
      match: { code: 11200 },
      category: "permission",
      samples: ["j2d-004"],
      doc: DOC
    }
  ]
} satisfies ProviderFamily
