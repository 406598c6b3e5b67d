/**
 * one-api (songquanpeng/one-api) and new-api (QuantumNous/new-api) and their forks: self-hosted
 * OpenAI-compatible relays, very common in China (public "中转站" run them under their own names, so
 * `error.type` is `one_api_error`, `new_api_error` or `<site>_api_error`: `shell_api_error`,
 * `rix_api_error`, `yunwu_api_error`, `v_api_error`…). Body `{"error": {"message": "… (request id:
 * <date-digits + letters>)", "type", "param", "code"}}`; the relay's own messages are in Chinese.
 * Codes (new-api types/error.go): insufficient_user_quota, pre_consume_token_quota_failed,
 * get_channel_failed, do_request_failed, bad_response_status_code (carries the upstream status),
 * bad_response_body, read_response_body_failed, channel:no_available_key…
 * https://github.com/QuantumNous/new-api/blob/main/types/error.go
 * https://github.com/songquanpeng/one-api/blob/main/model/token.go (token messages)
 * https://github.com/songquanpeng/one-api/blob/main/middleware/distributor.go (no channel: 503)
 * Statuses: 401 invalid / disabled / expired token, 403 quota (user or token) and disabled
 * channel, 429 upstream saturated (rewritten from an upstream 429), 503 no available channel,
 * 500 do_request_failed (the relay could not reach the upstream).
 * No hosts: every instance has its own.
 */
import type { ProviderFamily } from "../types.js"

const NEW_API_ERRORS = "https://github.com/QuantumNous/new-api/blob/main/types/error.go"
const ONE_API_AUTH = "https://github.com/songquanpeng/one-api/blob/main/model/token.go"

export default {
  id: "one-api",
  name: "one-api / new-api relays",
  hosts: [],
  markers: [
    /\b(?:one|new|shell|rix|yunwu|v)_api_error\b/,
    /songquanpeng\/one-api|QuantumNous\/new-api/,
    // the relay's request id suffix: `(request id: 2025082215093026624875464905761)`
    /\(request id: ?\d{17}/,
    // the relay's own log lines: `[ERR] 2026/02/14 - 22:55:28 | 20260214145427566007998Fzvjk1Hd | relay error (channel #3): …`
    /\[(?:ERR|ERROR|INFO|WARN|SYS)\] \d{4}\/\d\d\/\d\d - \d\d:\d\d:\d\d \| \d{20,}[A-Za-z0-9]{0,16} \|/,
    /relay error \(channel|channel error \(channel #/
  ],
  entries: [
    {
      id: "one-api.no-available-channel",
      // 503 "当前分组 %s 下对于模型 %s 无可用渠道" / new-api "…无可用渠道（distributor）": no channel of the
      // user's group serves the (mapped) model — a configuration error more than an outage
      match: { message: /当前分组 ?[^\n]{0,40}?下对于模型[^\n]{0,100}?无可用渠道|无可用渠道（distributor）|no available channel for model/i },
      category: "model_not_found",
      identifies: true,
      samples: ["cnr-041", "cnr-042", "cnr-057"],
      doc: "https://github.com/songquanpeng/one-api/blob/main/middleware/distributor.go"
    },
    {
      id: "one-api.upstream-saturated",
      // 429 "当前分组上游负载已饱和，请稍后再试": an upstream 429 rewritten by the relay
      match: { message: /当前(?:分组)?上游负载已饱和/i },
      category: "rate_limit",
      identifies: true,
      samples: ["cnr-054", "cnr-056"],
      doc: "https://github.com/songquanpeng/one-api/blob/main/controller/relay.go"
    },
    {
      id: "one-api.quota-not-enough",
      // 403 "用户额度不足" / "user quota is not enough" / new-api "token quota is not enough, token remain
      // quota: …" / "该令牌额度已用尽" / "chat pre-consumed quota failed, user quota: …, need quota: …"
      match: {
        message:
          /用户额度不足|该令牌额度已用尽|令牌额度不足|(?:user|token) quota is not enough|pre-?consumed? ?quota failed|preConsumedQuota ?\[[^\n]{0,20}\] ?is not enough/i
      },
      category: "quota",
      identifies: true,
      samples: ["cnr-045", "cnr-047"],
      doc: NEW_API_ERRORS
    },
    {
      id: "one-api.quota-codes",
      match: { code: ["insufficient_user_quota", "pre_consume_token_quota_failed"] },
      category: "quota",
      identifies: true,
      samples: ["cnr-045"],
      doc: NEW_API_ERRORS
    },
    {
      id: "one-api.invalid-token",
      // 401 "无效的令牌" / "该令牌状态不可用" / "该令牌已过期" / "令牌验证失败"
      match: { message: /无效的令牌|该令牌状态不可用|该令牌已过期|令牌验证失败/i },
      category: "auth_key",
      identifies: true,
      samples: ["cnr-050", "cnr-052"],
      doc: ONE_API_AUTH
    },
    {
      id: "one-api.channel-disabled",
      // 403 new-api channel affinity: "This channel has been disabled" /
      // "渠道亲和性命中的渠道已被禁用，已按规则停止重试，请联系管理员处理"
      match: { message: /this channel has been disabled|命中的渠道已被禁用/i },
      category: "permission",
      identifies: true,
      samples: ["cnr-048", "cnr-049"],
      doc: "https://github.com/QuantumNous/new-api/issues/4544"
    },
    {
      id: "one-api.do-request-failed",
      // the relay could not reach the upstream ("do request failed: Post …: EOF"), answered as 500
      match: { message: /upstream error: do request failed/i },
      category: "transport",
      identifies: true,
      samples: ["cnr-058"],
      doc: NEW_API_ERRORS
    },
    {
      id: "one-api.do-request-failed-code",
      match: { code: "do_request_failed" },
      category: "transport",
      identifies: true,
      samples: ["cnr-058"],
      doc: NEW_API_ERRORS
    }
  ]
} satisfies ProviderFamily
