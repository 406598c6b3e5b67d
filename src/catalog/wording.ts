/**
 * The built-in vocabulary: wording that is unambiguous whoever the provider is (the service's
 * own messages, OpenAI-compatible APIs, client libraries), in English and Chinese. Used by the
 * parser (is this record a failed call at all?) and by the classifier (`decidedBy: wording`).
 * Every pattern is linear (literals, bounded gaps).
 */
import type { Category } from "../classify/Event.js"
import { GatedAlternation } from "./literalGate.js"

export const wording = {
  realname: /real[- ]?name|实名|complete identity verification/i,
  quota:
    /insufficient[_ ](?:user[_ ])?quota|quota is not enough|exceeded your current quota|quota (?:has been |is )?(?:exceeded|exhausted|used up)(?! for (?:quota )?metric| for [\w.\/-]{0,120}_per_(?:minute|second))|out of quota|(?:exhausted|used up) (?:all of )?your (?:[\w-]{1,12} ){0,3}(?:quota|allocation|credits)\b|insufficient (?:account |credit )?balance|balance (?:is )?(?:insufficient|not enough|too low)|credit balance is too low|out of credits|insufficient credits|(?:requires|need|add) more credits|insufficient funds|depleted (?:all of )?your (?:[\w-]{1,12} ){0,3}credits\b|overdue balance|reached your specified (?:api )?usage limits?|account (?:is )?(?:in arrears|overdue)|\barrearage\b|(?:doesn't|does not|don't|do not) have (?:any |enough )?credits|used all (?:of )?(?:the |your )?(?:available )?credits|(?:reached|exceeded) (?:its|your|the)\s(?:(?:monthly|configured|enforced)\s){0,2}spend(?:ing)? limit|\bbilling hard limit (?:has been )?reached\b|spending[- ]limit (?:reached|exceeded)|余额不足|欠费|额度不足|额度已用完|额度已用尽|配额不足|无可用资源包/i,
  modelNotFound:
    /\bmodels?\b[^\n]{0,100}?\b(?:does not|doesn't|(?<!may )not) exists?\b|\bmodels?\b[^\n]{0,160}?\b(?:was|is) not found\b|\bmodel[ \t]{1,2}['"`][^'"`\n]{1,128}['"`][ \t]{1,2}not found\b|\bmodel[ \t]{1,2}[\w.:/@+-]{1,128}[ \t]{1,2}not found\b|\bmodel[ \t]{1,2}[\w.:/@+-]{1,128}[ \t]{1,2}is not supported\b(?! by)|\bmodel not found\b(?!\. Using cl100k_base)|\bmodels?\b[^\n]{0,100}?\b(?:is|are) no longer (?:available|supported)\b|\bmodel[ \t]{1,2}['"`][^'"`\n]{1,128}['"`][ \t]{1,2}has been (?:deprecated|decommissioned)\b|model_not_found|no such model|unknown model|模型不存在|模型[^，。\n]{0,40}不存在/i,
  rateLimit:
    /rate[ _-]?limit(?:ed|ing)?[ _](?:reached|exceeded|error|hit)|rate[ _-]?limit (?:is|was|has been) (?:exceeded|reached)|\bquota exceeded for (?:quota )?metric\b|(?:due to|hit|exceeds?|exceeded|reached) (?:the |your |a )?(?:\w+ )?rate[ _-]?limit|\bRateLimit(?:Error|Exception)\b|throttling threshold|\bover ratelimit\b|请求速度过快|too ?many ?(?:requests|tokens)|(?<!\d )\brate[ _-]?limited\b|requests? (?:are |is )?too frequent|request rate (?:is too high|increased too quickly)|\brequest limit (?:reached|exceeded)\b|\b(?:requests?|tokens?) per (?:min(?:ute)?|hour|day) (?:rate|limit) (?:reached|exceeded)\b|temporarily limiting requests|\b(?:you've|you have) hit your (?:usage |rate )?limit\b|\b(?:RPM|RPH|RPD|TPM|TPD|IPM|IPD|QPS)\b[^.\n]{0,24}(?:limit|reached|exceeded)|(?:limit|reached|max|exceeded|over (?:the )?available)[^.\n]{0,24}\b(?:RPM|RPH|RPD|TPM|TPD|IPM|IPD|QPS)\b|concurrency limit (?:exceeded|reached)|too many concurrent requests|high concurrency usage|限流|请求过于频繁|频率超限|频率超(?:过|出)了?(?:限制|上限)|速率限制|调用次数(?:已达|超过)?上限|(?:调用|请求|访问)次数(?:已)?超(?:限|出限制)|次数已达上限|并发(?:数|量|请求数)?(?:超限|过高|超过上限|已达上限)|exceeds the service quota for your account/i,
  overload:
    /too busy|\boverloaded\b|\boverloaded_error\b|\bserver_is_overloaded\b|currently processing too many requests|server is busy|system is busy|\b(?:model|upstream|inference|llm)(?: service| endpoint| server| provider)? (?:is |are )?(?:currently |temporarily )?unavailable\b|\bupstream request failed\b[^\n]{0,40}\bunavailable\b|\bexperiencing (?:unusually |exceptionally |extremely |very )?(?:high|heavy) (?:demand|traffic|load)\b|\bexperiencing a high volume of (?:traffic|requests)\b|\btoo many current requests\b|\bmodel is (?:currently )?at (?:full )?capacity\b|系统繁忙|服务繁忙|负载过高|服务器繁忙|model is not ready for inference/i,
  authKey:
    /invalid api[ _-]?key|incorrect api[ _-]?key|api[ _-]?key is invalid|invalid_api_key|\binvalid(?:provider)?apikey\b|api key not valid|invalid x-api-key|authentication_error|(?:api[ _-]?key|access[ _-]?token|\btoken) (?:is )?(?:missing|not (?:set|provided))|access token (?:is )?(?:invalid|expired)|invalid access token|api_key client option must be set|no api key (?:was )?(?:provided|found)|(?:did not|didn't) provide an api[ _-]?key|api[ _-]?key (?:is )?(?:required|expired|revoked|disabled)|missing (?:api[ _-]?key|authentication header|authorization header)|令牌无效|密钥无效|无效的令牌|认证失败|鉴权失败|api key 错误|(?:令牌|密钥|api ?key)[ \t]{0,2}(?:已过期|过期了|无效|已失效)|security token included in the request is (?:invalid|expired)|\bunauthenticated request\b|\btoken (?:is )?(?:expired or incorrect|incorrect or expired)\b|\binvalid token\b(?![ \t]*(?:ids?|counts?|in|at|type|position|usage|limit|length)\b)/i,
  serverError: /\bunable to load model\b|\bCUDA out of memory\b|cudaMalloc failed|server had an error|an error occurred while processing your request|internal ?server ?error|an internal error (?:has )?occurred|服务内部错误|内部服务错误|服务器内部错误|encountered an unexpected error during processing/i,
  invalidRequest:
    /maximum context length|maximum model length|exceeds the available context size|\bmust be less than (?:or equal to )?max_seq_len\b|\bprompt is too long\b|\bexceeds? (?:the )?(?:model's )?(?:maximum )?context (?:window|length)\b|\binput validation error\b|\bblocked due to (?:SAFETY|RECITATION|PROHIBITED_CONTENT|BLOCKLIST|SPII)\b|inappropriate content|content security warning|\binvalid request: |\binvalid type: parameter\b|\b(?:argument|parameter|param|value)s?\b[^.\n]{0,40}?\bnot supported (?:on|with|by|for) (?:this|the) model\b|context[_ ]length[_ ]exceeded|content[_ ]policy[_ ]violation|\bdoes not support (?:function calling|tools|tool use|tool calls|images?|image input|vision|system (?:messages|prompts?)|streaming|json mode|response_format|structured outputs?)\b|参数错误|参数不合法|超出(?:模型)?最大上下文|上下文长度超|输入内容过长|内容安全审核/i,
  permission:
    /\b(?:do|does) not have (?:access|permission) to|\bpermission '[^'\n]{1,100}' denied\b|not allowed to access|permission denied|\bno permission to (?:access|use|call)\b|has not activated the model|\borganization must be verified\b|\buser location is not supported\b|无权限|没有权限|权限不足|不在白名单/i
} as const

/** The order in which wording is tried when no status is given: the most specific first. */
const ORDER: ReadonlyArray<readonly [keyof typeof wording, Category]> = [
  ["realname", "auth_realname"],
  ["quota", "quota"],
  ["modelNotFound", "model_not_found"],
  ["rateLimit", "rate_limit"],
  ["overload", "overload"],
  ["authKey", "auth_key"],
  ["serverError", "server_error"],
  ["invalidRequest", "invalid_request"],
  ["permission", "permission"]
]

/** Each vocabulary entry's phrases behind a literal gate: what `wording[name].test` answers, faster. */
export const gatedWording: Readonly<Record<keyof typeof wording, GatedAlternation>> = Object.fromEntries(
  Object.entries(wording).map(([name, re]) => [name, new GatedAlternation(re)])
) as Record<keyof typeof wording, GatedAlternation>

/** The category that wording alone makes unambiguous, with the vocabulary entry's name, or null. */
export function wordingOf(text: string): { readonly category: Category; readonly name: string } | null {
  if (text === "") return null
  for (const [name, category] of ORDER) if (gatedWording[name].test(text)) return { category, name }
  return null
}

/** The category that wording alone makes unambiguous, or null. */
export function categoryFromWording(text: string): Category | null {
  return wordingOf(text)?.category ?? null
}
