/**
 * Extractor: key-value logs (`error_message=... error_code=...`, `message: ...`) and explicit
 * codes in prose (`error code: 1010`, Cloudflare's `error reference number`).
 */
import { type Draft, isNullWord, note, setBodyStatus, setCode, setErrorType, setMessage, setUpstreamStatus } from "../draft.js"
import { codeNamedByClass, providerOfName } from "../../catalog/index.js"

const ERROR_CODE_RE = /\berror[ _-]?code\b["']?[ \t]{0,3}[:=]?[ \t]{0,3}["']?(\d{3,6})\b/i

const REFERENCE_RE = /\berror reference number:?[ \t]{0,3}(\d{3,6})\b/i

/**
 * AWS error codes as the SDKs print them (the corpus labels them as the code): botocore's
 * `An error occurred (ThrottlingException) when calling the InvokeModel operation`, the header
 * `x-amzn-ErrorType: AccessDeniedException:…`, the Go SDK v2's `…, ValidationException: …`, the
 * Bedrock exception names wherever they stand, and an AWS JSON body's `"__type"` or `"Code"`. (A
 * JS SDK v3 exception object's `name` is read by jsonLog, where `$metadata` says it is one.)
 */
const AWS_CODE_RE =
  /An error occurred \(([A-Za-z][A-Za-z]{2,60})\) when calling|\b((?:[Tt]hrottling|[Vv]alidation|[Aa]ccessDenied|[Mm]odelNotReady|[Ss]erviceUnavailable|[Mm]odelTimeout|[Rr]esourceNotFound|[Mm]odelError|[Ss]erviceQuotaExceeded|[Ii]nternalServer|[Mm]odelStreamError|[Ee]xpiredToken|[Uu]nrecognizedClient)Exception)\b|x-amzn-ErrorType:[ \t]{0,3}([A-Z][A-Za-z]{2,60}(?:Exception|Error))|(?:https response error|api error) [^\n]{0,200}?\b([A-Z][A-Za-z]{2,60}Exception):|["'](?:__type|Code)["'][ \t]{0,3}:[ \t]{0,3}["'](?:[\w.]{1,60}#)?([A-Z][A-Za-z]{2,60}Exception)["']/

const STAINLESS_JAVA_PACKAGE_RE = /\bcom\.(?:openai|anthropic)\.errors\.$/

/** `code: 1113`, `code=1302`, `[code 1302]` (a service's own 4-7 digit code; 3 digits are statuses). */
const SERVICE_CODE_TEXT_RE = /(?<![\w-])(?:error_?)?code[ \t]{0,2}[:= ][ \t]{0,2}(\d{4,7})(?![\w.])/i

/** A service code labelled in Chinese: `错误码：1301`, `错误代码: 40001` (statuses are read as statuses). */
const ZH_CODE_RE = /错误(?:码|代码)[ \t]{0,2}[:：][ \t]{0,2}(\d{4,7})(?!\d)/

/** A short code followed by its message, as Baidu's Qianfan SDK prints it: `code: 18, msg: Open api qps request limit reached`. */
const CODE_MSG_RE = /(?<![\w-])(?:error_?)?code:[ \t]?(\d{1,7}), (?:error_)?msg:[ \t]/i

/**
 * A service's numeric code leading the record, then its message: Cloudflare Workers AI's
 * `3040: Capacity temporarily exceeded`, MiniMax's `1002, trigger rate limit`.
 */
/**
 * A service's code glued to its message after `Error: ` (`API Error: 2049-invalid api key`, MiniMax
 * through its MCP server), and the DashScope SDK's response printed as `Code: 403, status:
 * AccessDenied, message: …` (its `status` holds the error code, `Code` the HTTP status).
 */
const ERROR_CODE_DASH_RE = /\bError: (\d{4,6})-(?=[A-Za-z\u4e00-\u9fff])/
const STATUS_NAMED_CODE_RE = /\bCode: [1-5]\d\d, status: ([A-Z][A-Za-z]{2,40}(?:\.[A-Z][A-Za-z]{2,40}){0,2}), message: /
/** Spring AI Alibaba's DashScopeException: `[InvalidParameter] <400> message`. */
const BRACKET_CODE_ANGLE_STATUS_RE = /\[([A-Za-z][\w.]{2,60})\] <([45]\d\d)> /
const TENCENT_CODE_RE = /TencentCloudSDKException\]? ?code: ?([A-Za-z][\w.]{1,80}) message:/
/** DashScope's `<400> InternalError.Algo.…` / `<429> Throttling…` message head. */
const ANGLE_STATUS_RE = /(?:^|[\s"'(:])<([45]\d\d)> (?=(?:[A-Z][A-Za-z]{2,30}|\*{3})[.:])/
const LEADING_CODE_RE = /^[ \t]{0,8}(\d{4,6})(?::|,)[ \t](?=[A-Za-z\u4e00-\u9fff])/

/** The Go SDK v2's `https response error StatusCode: 429, RequestID: …`. */
const AWS_STATUS_RE = /\bStatusCode: ([45]\d\d),/

/**
 * A string code in key=value text (logfmt, a repr, Go's `%v`): `code=rate_limit_exceeded`,
 * `code="insufficient_quota"`, `APIError(code=model_not_found, status=404)`. Unquoted it must start
 * with a letter (a number is a status or a service code, read elsewhere).
 */
const KV_STRING_CODE_RE = /(?<![\w.-])(?:error_?)?code=(?:"([A-Za-z][\w.-]{1,79})"|'([A-Za-z][\w.-]{1,79})'|([A-Za-z][\w.-]{1,79}))(?=[\s,;)\]}]|$)/

/** Zhipu's `[code][message]` print (`[1211][模型不存在，请检查模型代码。]`, `[1308][已达到 5 小时的使用上限…]`). */
const BRACKET_CODE_MESSAGE_RE = /(?:^|[\s"'：:])\[(\d{4,6})\]\[/

/** A status and the body's code in brackets, as some clients print them: `[429:insufficient_quota]`. */
const STATUS_CODE_BRACKET_RE = /\[[45]\d\d:([a-z][a-z_]{2,60})\]/

const ERROR_CODE_WORD_RE = /\b[Ee]rror code:[ \t]{0,2}([a-z][a-z0-9]*(?:_[a-z0-9]+){1,6})\b/
const DASHSCOPE_BRACKET_CODE_RE = /DashScopeException: \[([A-Za-z][\w.]{2,60})\] /

/**
 * A service's code written in prose, tried in order until one is read: the literal the text must
 * hold ("": none), the pattern, and whether the code is a number.
 */
const PROSE_CODES: ReadonlyArray<readonly [string, RegExp, boolean]> = [
  // a client's own summary of the body's code (Codex: `auth error code: invalid_api_key`)
  ["rror code: ", ERROR_CODE_WORD_RE, false],
  // Spring AI Alibaba's DashScopeException without the status (`[InvalidParameter] url error`)
  ["DashScopeException: [", DASHSCOPE_BRACKET_CODE_RE, false],
  ["", LEADING_CODE_RE, true],
  ["Error: ", ERROR_CODE_DASH_RE, true],
  [", status: ", STATUS_NAMED_CODE_RE, false],
  ["错误", ZH_CODE_RE, true],
  ["msg:", CODE_MSG_RE, true],
  // a service's own numeric code in prose: `code: 336003, msg: …` (Qianfan), `code=1113`
  ["code", SERVICE_CODE_TEXT_RE, true]
]

/** A code only one provider documents, printed before its message: `… error: InvalidApiKey - Invalid API-key provided.` */
const CODE_DASH_MESSAGE_RE = /(?:^|[\s:(\[])([A-Z][A-Za-z]{2,40}(?:\.[A-Z][A-Za-z]{1,40}){0,2}) - (?=[A-Z])/g

/** An OpenAI-style error's code and type in parentheses after its message (Goose): `… (code: bad_request, type: invalid_request_error)`. */
const PAREN_CODE_TYPE_RE = /\(code: ([A-Za-z_][\w.-]{0,60}), type: ([A-Za-z_][\w.-]{0,60})\)/

export function readExplicitCodes(s: string, d: Draft): void {
  if (d.code === null && s.indexOf("(code: ") !== -1) {
    const c = PAREN_CODE_TYPE_RE.exec(s)
    if (c !== null && !isNullWord(c[1])) {
      setCode(d, c[1])
      if (!isNullWord(c[2])) setErrorType(d, c[2])
      d.explicitCode = true
    }
  }
  if (d.code === null && s.indexOf("code=") !== -1) {
    const c = KV_STRING_CODE_RE.exec(s)
    if (c !== null) {
      setCode(d, c[1] ?? c[2] ?? c[3])
      d.explicitCode = true
    }
  }
  if (d.code === null && s.indexOf("][") !== -1) {
    const z = BRACKET_CODE_MESSAGE_RE.exec(s)
    if (z !== null) {
      setCode(d, Number(z[1]))
      d.explicitCode = true
    }
  }
  if (d.code === null && s.indexOf(":") !== -1 && s.indexOf("[") !== -1) {
    const b = STATUS_CODE_BRACKET_RE.exec(s)
    if (b !== null) {
      setCode(d, b[1])
      d.explicitCode = true
    }
  }
  if (d.code === null && s.indexOf(" - ") !== -1) {
    CODE_DASH_MESSAGE_RE.lastIndex = 0
    let m: RegExpExecArray | null
    let n = 0
    while ((m = CODE_DASH_MESSAGE_RE.exec(s)) !== null && n++ < 8) {
      if (codeNamedByClass(m[1]) !== null) {
        setCode(d, m[1])
        d.explicitCode = true
        break
      }
    }
  }
  if (s.indexOf("xception") !== -1 || s.indexOf("An error occurred (") !== -1) {
    const aws = AWS_CODE_RE.exec(s.length > 16384 ? s.slice(0, 16384) : s)
    // the Stainless Java SDKs' own classes (`com.openai.errors.InternalServerException: 500: …`) are no AWS code
    if (aws !== null && !(aws[2] !== undefined && STAINLESS_JAVA_PACKAGE_RE.test(s.slice(Math.max(0, aws.index - 24), aws.index)))) {
      setCode(d, aws[1] ?? aws[2] ?? aws[3] ?? aws[4] ?? aws[5]!)
      d.explicitCode = true
    }
    const st = AWS_STATUS_RE.exec(s)
    if (st !== null) {
      // `https response error StatusCode: 400` is what the AWS API itself answered: it wins over a
      // relay's own status around it (one-api's `[GIN] … | 500 |`, its `StatusCode:500}` struct)
      if (s.startsWith("response error ", st.index - 15)) setUpstreamStatus(d, Number(st[1]), st[0])
      else setBodyStatus(d, Number(st[1]))
    }
  }
  const ref = REFERENCE_RE.exec(s)
  if (ref !== null) {
    const n = Number(ref[1])
    setCode(d, n)
    d.explicitCode = true
    setBodyStatus(d, n)
  }
  if (d.code === null && s.indexOf("] <") !== -1) {
    const m = BRACKET_CODE_ANGLE_STATUS_RE.exec(s)
    if (m !== null) {
      setCode(d, m[1])
      d.explicitCode = true
      setBodyStatus(d, Number(m[2]))
    }
  }
  if (d.code === null && s.indexOf("TencentCloudSDKException") !== -1) {
    // Tencent Cloud's SDKs (Hunyuan): `[TencentCloudSDKException] code:InvalidParameter message:…`.
    // Every Tencent Cloud service answers so (machine translation, OCR): the code alone does not
    // make the record a failed LLM call
    const m = TENCENT_CODE_RE.exec(s)
    if (m !== null) setCode(d, m[1])
  }
  if (d.status === null && s.indexOf("> ") !== -1) {
    // DashScope's messages open with the status in angle brackets (`<400> InternalError.Algo.InvalidParameter: …`)
    const m = ANGLE_STATUS_RE.exec(s)
    if (m !== null) setBodyStatus(d, Number(m[1]))
  }
  for (const [literal, re, numeric] of PROSE_CODES) {
    if (d.code !== null) break
    if (literal !== "" && s.indexOf(literal) === -1) continue
    const m = re.exec(s)
    if (m !== null) {
      setCode(d, numeric ? Number(m[1]) : m[1])
      d.explicitCode = true
    }
  }
  const ec = ERROR_CODE_RE.exec(s)
  if (ec !== null) {
    const n = Number(ec[1])
    // `Error code: 429` (Python SDK) is the HTTP status, not a code of the service.
    if (n < 400 || n > 599) {
      setCode(d, n)
      d.explicitCode = true
    }
  }
}

/**
 * `message: ...`, `msg="..."`, `reason=...` in prose and key-value logs (not the JSON `"message":`);
 * not prose's `…in your message: …`.
 */
export const KV_MESSAGE_RE =
  /(?:^|[\s,;(|])(?<!\b(?:your|the|this|that|an?|my|our|their|its) )(?:message|msg|reason)[ \t]{0,2}[:=][ \t]{0,2}(?:'((?:[^'\\\n]|\\.){1,1000})'|"((?:[^"\\\n]|\\.){1,1000})"|([^\s'"<{[][^\n]{2,1000}))/i

const LOGFMT_RE = /\b(error_message|error_msg|err_msg|error_type|error_code)=(?:'((?:[^'\\\n]|\\.){0,2000})'|"((?:[^"\\\n]|\\.){0,2000})"|([^\s'"]{1,200}))/g

export function readLogfmt(s: string, d: Draft): void {
  if (s.indexOf("error_") === -1 && s.indexOf("err_msg") === -1) return
  LOGFMT_RE.lastIndex = 0
  let m: RegExpExecArray | null
  let n = 0
  while ((m = LOGFMT_RE.exec(s)) !== null && n++ < 16) {
    const value = m[2] ?? m[3] ?? m[4] ?? ""
    if (isNullWord(value)) continue
    switch (m[1]) {
      case "error_message":
      case "error_msg":
      case "err_msg":
        setMessage(d, value)
        break
      case "error_type":
        setErrorType(d, value)
        break
      case "error_code":
        setCode(d, value)
        break
    }
  }
}

/** `provider=groq`, `Provider: minimax`, `llm_provider="anthropic"` in key-value text, a label or a table. */
const PROVIDER_LABEL_RE = /(?<![\w.-])(?:llm_|model_|custom_llm_|ai_)?[Pp]rovider(?:_name)?\**[ \t]{0,2}[:=|][ \t]{0,2}\**["'`]?([A-Za-z][\w.-]{1,40})/g

/** The provider a key-value text names, when it is a catalogue family. */
export function readProviderLabel(s: string, d: Draft): void {
  if (d.provider !== null || s.indexOf("rovider") === -1) return
  PROVIDER_LABEL_RE.lastIndex = 0
  let m: RegExpExecArray | null
  let n = 0
  while ((m = PROVIDER_LABEL_RE.exec(s)) !== null && n++ < 4) {
    const named = providerOfName(m[1]!)
    if (named !== null) {
      d.provider = named
      note(d, "provider", m[0])
      return
    }
  }
}
