/**
 * Extractor: hints that complete a failure wherever they stand — the model, the request id,
 * `stream`, the endpoint and the URLs that tell an LLM call from any other HTTP call.
 */
import { type Draft, isModelLike, isNullWord, setClass, setModel, trimPunct } from "../draft.js"
import { findClass } from "./sdkException.js"
import { transportSignature } from "./transport.js"
import { LiteralGate, escapeRegExp } from "../../catalog/literalGate.js"

/** `model: x`, `"model_name": "x"`, Gemini's `"modelVersion": "gemini-2.0-flash"` (its responses and stream frames). */
const MODEL_KV_RE = /(?:\b|(?<=_))model(?:_name|Name|_id|Id|ID|Version|_version)?\\?["']?[ \t]{0,3}[:=][ \t]{0,3}(\\?["'`]?)([A-Za-z0-9][\w.:/@+-]{0,127})/i

const MODEL_QUOTED_RE = /\b(?:models?|deployment)\s{1,8}[`'"‘“\[]([^`'"’”\s\]]{1,128})[`'"’”\]]/i

/** A quoted model name: letters first, an id's characters (not a sentence, not a path of the file system). */
const QUOTED_NAME_RE = /^[A-Za-z][\w.:/@+-]{1,127}$/

/** `Model not found: llama3:8b`. */
const MODEL_NOT_FOUND_NAMED_RE = /\bmodel not found[:,]?[ \t]{1,4}['"`]?([A-Za-z0-9][\w.:/@+-]{0,127})/i

/** `for model deepseek-ai/DeepSeek-R1`: an unquoted id after the word, accepted only when it looks like one. */
const MODEL_BARE_RE = /\bmodel(?:\s{1,4}(?:or endpoint|id|name))?\s{1,8}([A-Za-z0-9][\w.:/@+\u2010\u2011-]{0,127})/i

/** `Rate limit reached for gpt-4o in organization …` / `Request too large for …`, also without the organization. */
const MODEL_REACHED_RE = /(?:reached|too large) for (?!model\b)([A-Za-z0-9][\w.:/-]{0,127})(?= in organization|[ \t]*(?:[.,;"'}]|$))/
/** LiteLLM's proxy appends the model group it was asked for: `Received Model Group=gpt-4o`. */
/** The group is the rest of its line: a configured name may hold spaces (`Received Model Group=Cohere - command-r-08-2024`). */
const MODEL_LITELLM_GROUP_RE = /Received Model Group=([A-Za-z0-9][^\n]{0,127}?)[ \t]*(?:\\n|\n|$|Available Model Group)/

const MODEL_ZH_RE = /模型[ \t]?(?:名称|名|ID|id)?[ \t]*[:：|-]?[ \t]*['"‘“]?([A-Za-z0-9][\w.:/-]{0,127})/
/** The model labelled in Japanese or Korean (`**モデル**: \`google/gemini-2.5-flash\``, `모델: gpt-4o`). */
const MODEL_JA_KO_RE = /(?:モデル|모델)(?:名|명|ID)?[*\s]{0,4}[:：][*\s]{0,4}[`'"]?([A-Za-z0-9][\w.:/@-]{0,127})/

const MODEL_PATH_RE = /\/(?:engines|deployments)\/([A-Za-z0-9][\w.:-]{0,127})\//
/** Gemini / Vertex `models/gemini-1.5-pro:generateContent`, `models/x is not found`; Bedrock `/model/<id>/invoke`. */
const MODEL_GOOGLE_RE = /\bmodels\/([A-Za-z0-9][\w.@-]{0,127})(?=:[a-zA-Z]|:?[\s'"`,)]|$)/
/** The serverless Inference API's URL names the model after `/models/` (`api-inference.huggingface.co/models/<org>/<name>`). */
const MODEL_HF_INFERENCE_RE = /api-inference\.huggingface\.co\/(?:models|pipeline\/[\w-]{1,40})\/([A-Za-z0-9][\w.-]{0,63}\/[A-Za-z0-9][\w.-]{0,127})/
/** OpenAI's `Rate limit reached for gpt-4o-mini in organization org-… on tokens per min`, the model quoted or not. */
const MODEL_RATE_LIMIT_FOR_RE = /Rate limit reached for (?:model\s{1,4})?[`'"]?([A-Za-z0-9][\w.:/@+-]{0,127})[`'"]?\s{1,4}in\s{1,4}organization\b/
/** A gateway's `not authorized to access the requested model:(gemini-2.0-flash)`. */
const MODEL_COLON_PAREN_RE = /\bmodel:\(([A-Za-z0-9][\w.:/@+-]{0,127})\)/
/** The model `ollama run` was given (`ollama run qwen2.5:7b`, `ollama run hf.co/org/name-gguf:Q4_K_M`). */
const MODEL_OLLAMA_RUN_RE = /\bollama run ([A-Za-z0-9][\w.:/@+-]{0,159})/
/** A call named by what it was sent to: `Error while sending chat request to 'imagen-3.0-generate-002'`. */
const MODEL_REQUEST_TO_RE = /\brequest to ['"`]([A-Za-z0-9][\w.:@+-]{1,100})['"`]/
/** Hugging Face's router and inference API: `/models/Qwen/Qwen2.5-Coder-32B-Instruct/v1/chat/completions`. */
const MODEL_HF_PATH_RE = /\/models\/([A-Za-z0-9][\w.-]{0,63}\/[A-Za-z0-9][\w.-]{0,127})\/(?:v\d|pipeline)/
/** A model named before the word: `the ［doubao-seed-1-6 model`, `for the gpt-4o model`. */
const MODEL_BEFORE_RE = /\b(?:the|use|using)[ \t]{1,3}[［\[`'"]?([A-Za-z][\w.:/-]{1,127})[］\]`'"]?[ \t]{1,3}model\b/
const MODEL_BEDROCK_RE = /\/model\/([A-Za-z0-9][\w.:%-]{0,160})\/(?:invoke|converse)/
/** Baidu Qianfan's v1 paths name the model: `/wenxinworkshop/chat/eb-instant?access_token=…`. */
const MODEL_QIANFAN_PATH_RE = /\/wenxinworkshop\/(?:chat|completions|embeddings)\/([A-Za-z0-9][\w.-]{0,127})(?=[?\s"'#]|$)/
/** Fireworks model ids in a URL or text: `accounts/fireworks/models/llama-v3p1-8b-instruct/…`. */
const MODEL_ACCOUNTS_RE = /\baccounts\/[A-Za-z0-9][\w-]{0,63}\/models\/([A-Za-z0-9][\w.-]{0,127})/

/** A command line's `--model gpt-4o` / `--model=gpt-4o` / `-m gemini-2.5-flash` (not `python -m module`) / the AWS CLI's `--model-id <id or ARN>`. */
const MODEL_FLAG_RE = /(?:^|\s)(?:--model(?:[-_]id|[-_]name)?|(?<!python[\d.]{0,4}\s)-m)[ =]["']?([A-Za-z0-9][\w.:/@+-]{0,200})/
/**
 * A `Model: <name>` line of a key-value block (clients' error-report templates, CLI banners): the
 * whole value when it is a short display name (`DeepSeek Chat`, `Llama 3.1 8B`), else its first
 * word when that looks like an id (`Model: claude-3-5-sonnet with diff edit format`).
 */
const MODEL_LINE_RE = /^[ \t]{0,8}Model:[ \t]{1,4}([A-Za-z0-9@][^\n,;{}"]{0,79}?)[ \t]*$/m
const MODEL_WITH_PROVIDER_RE = /^(\S{2,128}) \([a-z][\w .-]{0,30}\)$/
/** Words of a sentence after a model id (`claude-3-5-sonnet with diff edit format`), not of a display name. */
const DISPLAY_NAME_PROSE_RE = /\s(?:with|using|via|for|on|in|and|at|from|is|was)\s/i
/** one-api / new-api relays: `当前分组 default 下对于模型 <model> 无可用渠道` (the model may be a Chinese alias). */
const MODEL_ONEAPI_RE = /对于模型[ \t]{0,2}([^\s，。,]{1,128})[ \t]{0,2}无可用渠道/
const MODEL_PAREN_RE = /\bError \(([A-Za-z0-9][\w.:/-]{1,127})\)/
/** Azure OpenAI: `Your requests to gpt-4o for gpt-4o in eastus2 have exceeded ...`. */
const MODEL_AZURE_RE = /\brequests to ([A-Za-z0-9][\w.:-]{1,127}) for [A-Za-z0-9][\w.:-]{0,127} in /
/** Open WebUI's `Oops! There was an issue connecting to <model>.` */
const MODEL_CONNECTING_RE = /\bissue connecting to ([A-Za-z0-9][\w.:/@+-]{0,127}?)\.?(?:\s|$)/
/** Azure OpenAI's deployment or legacy engine as a key: `engine=gpt-35-turbo-16k`, `"deployment_name": "gpt4-eastus"`. */
const MODEL_DEPLOYMENT_KV_RE = /\b(?:engine|deployment(?:[_-]?(?:id|name))?)\\?["']?[ \t]{0,3}[:=][ \t]{0,3}\\?["'`]?([A-Za-z0-9][\w.:-]{0,127})/i
/** OpenRouter: `No endpoints found for x/y`, `x/y is temporarily rate-limited upstream`. */
const MODEL_NO_ENDPOINTS_RE = /\bNo endpoints found for ([A-Za-z0-9][\w.:/-]{1,127})/
const MODEL_UPSTREAM_RE = /(?:^|[\s"'])([A-Za-z0-9][\w.-]{0,63}\/[A-Za-z0-9][\w.:-]{0,127}) is temporarily rate-limited/
/** OpenRouter: `Rate limit exceeded: limit_rpd/google/gemini-2.0-flash/<key>`. */
const MODEL_OPENROUTER_LIMIT_RE = /\blimit_[a-z]{3}\/([A-Za-z0-9][\w.:-]{0,63}\/[A-Za-z0-9][\w.:-]{0,127})\//
/** `model(BAAI/bge-m3)`, `to model (gemini-1.5-flash)`. */
const MODEL_IN_PARENS_RE = /\bmodel[ \t]?\([ \t]*([A-Za-z0-9][\w.:/@+-]{0,127})[ \t]*\)/i

/** `for deployment gpt4o-prod`, `deployment gpt-4o-eu returned 429`: an unquoted deployment name that looks like an id. */
const MODEL_DEPLOYMENT_BARE_RE = /\bdeployment[ \t]{1,4}([A-Za-z0-9][\w.:-]{1,127})/
/**
 * The last resort: an id of a well-known model family standing alone in prose, a bracket or
 * parentheses (`Gemini call failed (gemini-2.5-pro): 503`, `[gpt-4o] request failed`, `status 529
 * for claude-3-5-sonnet-20241022`, `→ glm-5.1`). Accepted only with a digit or a model's usual
 * suffix (`deepseek-chat`, `qwen-max`), so tools named after a family (`gemini-cli`,
 * `claude-code`, `llama.cpp`, `gpt-pilot`) are not taken for one.
 */
const MODEL_FAMILY_RE = /(?:^|[\s\[(`'"=,:>])((?:gpt|chatgpt|claude|gemini|gemma|llama|meta-llama|mistral|mixtral|codestral|ministral|devstral|magistral|pixtral|qwen|qwq|deepseek|glm|kimi|moonshot|ernie|doubao|minimax|abab|command-r|grok|sonar|hunyuan|baichuan|internlm|text-embedding|baai|bge|sentence-transformers|jina-(?:embeddings|reranker|clip)|nomic-embed|mxbai-embed|dall-e|text-davinci|whisper-(?:1|large)|tts-1)[\w.:@+-]{0,100}(?:\/[\w.:@+-]{1,100})?|o[134](?:-(?:mini|pro|preview|deep-research)){0,2})(?=$|[\s,;)\]'"`}>])/gi
const MODEL_FAMILY_SUFFIX_RE = /-(?:chat|reasoner|max|plus|turbo|pro|large|small|medium|latest|instant|mini|lite|flash|coder|preview)\b/i
/**
 * Not a model: a tool's version after its name (`claude-code/2.1.0`, `gemini-cli@0.1.22`), a
 * library's semantic version or file (`deepseek4j-core-1.4.3.jar` in a Java frame).
 */
const TOOL_VERSION_RE = /[/@]v?\d+\.\d+|\d+\.\d+\.\d+|\.(?:jar|js|mjs|py|ts|go|rs|dll|so|exe)\b/
/** After an id: an arrow to what it becomes or answered (`gpt-5.5 → glm-5.1`, `x  ->  400 {…}`): the next candidate is the one. */
const ARROW_AFTER_RE = /^[ \t]{0,4}(?:→|->|=>)/
/** After an id at a line's start: a column bar (`chatgpt-web-1  | …`, a compose service's prefix). */
const BAR_AFTER_RE = /^[ \t]{1,8}\|/

/** Patterns whose capture is the model by the API's design (`/wenxinworkshop/chat/completions_pro`). */
const SLOT_RES: ReadonlySet<RegExp> = new Set([MODEL_QIANFAN_PATH_RE, MODEL_PATH_RE, MODEL_HF_INFERENCE_RE, MODEL_OLLAMA_RUN_RE])

/** A router's `[provider/model] [503]: …` (OmniRoute, 9router): the model after the provider, in brackets before the bracketed status. */
const MODEL_ROUTER_BRACKET_RE = /\[[A-Za-z0-9][\w.:@+-]{0,60}\/([\w.:@+-]{1,80}(?:\/[\w.:@+-]{1,80}){0,2})\] \[[45]\d\d\]/

const MODEL_PASSED_RE = /\bbut you passed ([A-Za-z0-9][\w.:\/-]{0,100})/

/** AWS's validation message names the value it refused: `Value 'anthropic.claude-v2:0:100k' at 'modelId' failed to satisfy constraint`. */
const MODEL_AWS_VALUE_RE = /\bValue '([^'\s]{1,200})' at 'modelId'/

const MODEL_GATED: ReadonlyArray<readonly [string, RegExp]> = [
  ["reached for", MODEL_REACHED_RE],
  ["too large for", MODEL_REACHED_RE],
  ["Model Group=", MODEL_LITELLM_GROUP_RE],
  ["模型", MODEL_ZH_RE],
  ["モデル", MODEL_JA_KO_RE],
  ["모델", MODEL_JA_KO_RE],
  ["/engines/", MODEL_PATH_RE],
  ["/deployments/", MODEL_PATH_RE],
  ["models/", MODEL_GOOGLE_RE],
  ["/models/", MODEL_HF_PATH_RE],
  [" model", MODEL_BEFORE_RE],
  ["/model/", MODEL_BEDROCK_RE],
  ["Error (", MODEL_PAREN_RE],
  ["--model", MODEL_FLAG_RE],
  ["] [", MODEL_ROUTER_BRACKET_RE],
  [" -m ", MODEL_FLAG_RE],
  ["accounts/", MODEL_ACCOUNTS_RE],
  ["/wenxinworkshop/", MODEL_QIANFAN_PATH_RE],
  ["odel", MODEL_IN_PARENS_RE],
  ["requests to ", MODEL_AZURE_RE],
  ["issue connecting to ", MODEL_CONNECTING_RE],
  ["ot found", MODEL_NOT_FOUND_NAMED_RE],
  ["deployment ", MODEL_QUOTED_RE],
  ["deployment ", MODEL_DEPLOYMENT_BARE_RE],
  ["engine", MODEL_DEPLOYMENT_KV_RE],
  ["deployment", MODEL_DEPLOYMENT_KV_RE],
  ["limit_", MODEL_OPENROUTER_LIMIT_RE],
  ["No endpoints found for ", MODEL_NO_ENDPOINTS_RE],
  [" is temporarily rate-limited", MODEL_UPSTREAM_RE],
  ["api-inference.huggingface.co/", MODEL_HF_INFERENCE_RE],
  ["ollama run ", MODEL_OLLAMA_RUN_RE],
  ["request to ", MODEL_REQUEST_TO_RE],
  ["at 'modelId'", MODEL_AWS_VALUE_RE],
  ["Rate limit reached for ", MODEL_RATE_LIMIT_FOR_RE],
  ["model:(", MODEL_COLON_PAREN_RE]
]

/** Which of MODEL_GATED's markers are in a text, found in the pass the catalogue's gates share (a marker's `indexOf` each cost more). */
const modelGate = new LiteralGate(MODEL_GATED.map(([marker]) => new RegExp(escapeRegExp(marker))))

const REQUEST_ID_RES = [
  /\bx-request-id\\?["']?[ \t]{0,3}[:=][ \t]{0,3}\\?["']?([A-Za-z0-9][\w-]{5,127})/i,
  /\brequest[ _-]?id\b(?:[ \t]+for[ \t]+failed[ \t]+request)?\\?["']?[ \t]{0,3}[:=]?[ \t]{0,3}\\?["'`]?([A-Za-z0-9][\w-]{7,127})/i,
  /\bray id:?[ \t]{0,3}([0-9a-f]{8,32})\b/i
]

const STREAM_RE = /\bstream\\?["']?[ \t]{0,3}[:=][ \t]{0,3}(true|True|false|False)\b/

export function readHints(s: string, d: Draft): void {
  if (d.model === null) readModel(s, d)
  if (d.requestId === null && (s.indexOf("equest") !== -1 || s.indexOf("EQUEST") !== -1 || s.indexOf("ay ID") !== -1 || s.indexOf("ay id") !== -1)) {
    for (const re of REQUEST_ID_RES) {
      const m = re.exec(s)
      if (m !== null && /\d/.test(m[1]) && !isNullWord(m[1])) {
        d.requestId = m[1]
        break
      }
    }
  }
  if (d.stream === null && s.indexOf("stream") !== -1) {
    const st = STREAM_RE.exec(s)
    if (st !== null) d.stream = st[1] === "true" || st[1] === "True"
  }
  if (d.errorClass === null) {
    const cls = findClass(s)
    if (cls !== null) setClass(d, cls.name)
  }
  if (d.transportError === null && !hasServiceStatus(d)) d.transportError = transportSignature(s)
}

/**
 * The service itself answered (a status it makes, not a gateway's 502/408/52x/530): a transport
 * failure text elsewhere in the record cannot be the cause, so it is not looked for.
 */
function hasServiceStatus(d: Draft): boolean {
  const s = d.status
  return s !== null && s >= 400 && s !== 502 && s !== 408 && s !== 530 && !(s >= 520 && s <= 527)
}

/** The model named in prose; each pattern runs only when its marker is present. */
function readModel(s: string, d: Draft): void {
  // DeepSeek's `The supported API model names are a or b, but you passed c`: the one asked for
  if (s.indexOf("you passed ") !== -1) {
    const passed = MODEL_PASSED_RE.exec(s)
    if (passed !== null && isModelLike(trimPunct(passed[1]))) return setModel(d, trimPunct(passed[1]))
  }
  if (s.indexOf("Model:") !== -1) {
    const line = MODEL_LINE_RE.exec(s)
    if (line !== null) {
      const v = line[1].trim()
      const words = v.split(/[ \t]+/)
      // an id with the provider after it in parentheses (`gpt-4.1-mini_docs (azure)`)
      const withProvider = MODEL_WITH_PROVIDER_RE.exec(v)
      if (withProvider !== null && isModelLike(withProvider[1])) return setModel(d, withProvider[1])
      // a display name (`Llama 3.3 70B`, `StepFun: Step 3.5 Flash (free)`), not a sentence
      if (words.length <= 6 && !DISPLAY_NAME_PROSE_RE.test(v) && !isNullWord(v)) return setModel(d, v)
      if (isModelLike(trimPunct(words[0]))) return setModel(d, trimPunct(words[0]))
    }
  }
  if (s.indexOf("无可用渠道") !== -1) {
    const m = MODEL_ONEAPI_RE.exec(s)
    if (m !== null && !isNullWord(m[1])) return setModel(d, m[1])
  }
  if (s.indexOf("odel") !== -1 || s.indexOf("ODEL") !== -1) {
    let kv = MODEL_KV_RE.exec(s)
    // a first `model=None` (a request logged before the model was filled in) is not the last word
    for (let n = 0; kv !== null && n < 4 && kv[1] === "" && isNullWord(kv[2]); n++) {
      const at = kv.index + kv[0].length
      const next = MODEL_KV_RE.exec(s.slice(at))
      kv = next === null ? null : Object.assign(next, { index: next.index + at })
    }
    if (kv !== null) {
      let v = trimPunct(kv[2])
      // a quoted value goes on to its closing quote, spaces and all (`"model": "a model that does not exist"`)
      const end = kv.index + kv[0].length
      if (kv[1] !== "" && s.charCodeAt(end) === 32) {
        const close = s.indexOf(kv[1], end)
        if (close !== -1 && close - end <= 100 && s.lastIndexOf("\n", close) < end) v = kv[2] + s.slice(end, close)
      }
      if (kv[1] !== "" || isModelLike(v)) setModel(d, v)
    }
    if (d.model === null) {
      // a name quoted after the word is one whatever it looks like (`model 'xlarge' not found`);
      // a bare word must look like an id
      const quoted = MODEL_QUOTED_RE.exec(s)
      if (quoted !== null && QUOTED_NAME_RE.test(quoted[1]) && !isNullWord(quoted[1])) setModel(d, quoted[1])
      else {
        const q = quoted ?? MODEL_BARE_RE.exec(s)
        if (q !== null && isModelLike(trimPunct(q[1]))) setModel(d, trimPunct(q[1]))
      }
    }
    if (d.model !== null) return
  }
  for (const k of modelGate.candidates(s)) {
    const [marker, re] = MODEL_GATED[k]!
    // a marker too short for the gate's table is a candidate always: it must be in the text
    if (s.indexOf(marker) === -1) continue
    const m = re.exec(s)
    if (m !== null) {
      const v = trimPunct(m[1].indexOf("%") === -1 ? m[1] : decodePath(m[1]))
      // a slot that holds the model by the API's design (Qianfan's path) needs no id's look
      if (SLOT_RES.has(re) ? QUOTED_NAME_RE.test(v) : isModelLike(v)) {
        setModel(d, v)
        return
      }
    }
  }
  const fam = familyModel(s)
  if (fam !== null) setModel(d, fam)
}

/** The first id of a well-known model family in the text (at most 4 candidates looked at), or null. */
function familyModel(s: string): string | null {
  MODEL_FAMILY_RE.lastIndex = 0
  for (let i = 0; i < 4; i++) {
    const m = MODEL_FAMILY_RE.exec(s)
    if (m === null) return null
    const v = trimPunct(m[1])
    const end = m.index + m[0].length
    const after = s.slice(end, end + 12)
    if (ARROW_AFTER_RE.test(after)) continue
    if ((m.index === 0 || s.charCodeAt(m.index) === 10) && BAR_AFTER_RE.test(after)) continue
    if ((/\d/.test(v) || MODEL_FAMILY_SUFFIX_RE.test(v)) && isModelLike(v) && !TOOL_VERSION_RE.test(v)) return v
  }
  return null
}

/** The URL / path patterns that name a model, with the marker each needs. */
const MODEL_PATH_GATED: ReadonlyArray<readonly [string, RegExp]> = [
  ["/engines/", MODEL_PATH_RE],
  ["/deployments/", MODEL_PATH_RE],
  ["models/", MODEL_GOOGLE_RE],
  ["/models/", MODEL_HF_PATH_RE],
  ["/model/", MODEL_BEDROCK_RE],
  ["accounts/", MODEL_ACCOUNTS_RE]
]

/**
 * The model a URL or path names (`/deployments/gpt-4o/`, `models/gemini-2.0-flash:generateContent`,
 * Bedrock's `/model/<id>/invoke`, Fireworks' `accounts/<a>/models/<m>`): for URLs kept under a JSON
 * log's keys. Costs one indexOf per marker when the path names none.
 */
export function readModelInPath(v: string, d: Draft): void {
  if (d.model !== null || v.indexOf("/") === -1) return
  for (const [marker, re] of MODEL_PATH_GATED) {
    if (v.indexOf(marker) === -1) continue
    const m = re.exec(v)
    if (m === null) continue
    const id = trimPunct(m[1].indexOf("%") === -1 ? m[1] : decodePath(m[1]))
    if (isModelLike(id)) return setModel(d, id)
  }
}

/** `anthropic.claude-3-haiku-20240307-v1%3A0` as written in a URL -> its id. */
function decodePath(v: string): string {
  try {
    return decodeURIComponent(v)
  } catch {
    return v
  }
}

const URL_RE = /\b(?:GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)[ \t]+(\S{1,500})|https?:\/\/[^\s"'<>)\]]{1,500}/g

/**
 * An LLM endpoint in a path. A bare version segment is not one: `/v1/` alone says a versioned REST
 * API (Google's HomeGraph `/v1/devices:requestSync`, a chat app's `/v1/api/…`), not an LLM one. A
 * path is the call's evidence only with an LLM endpoint in it; an API host or a model says so otherwise.
 */
const LLM_ENDPOINT_RE =
  /\/(?:chat\/)?completions\b|\/embeddings\b|\/audio\/|\/images\/|\/rerank\b|\/models\b|\/responses\b|\/engines\/|\/deployments\/|\/messages\b|[:/]generateContent|\/api\/(?:generate|chat)\b/

/** A path worth noting as the call's: an LLM endpoint, or any versioned API path. */
export const LLM_PATH_RE = new RegExp(`\\/v\\d+(?:beta\\d*|alpha\\d*)?\\/|${LLM_ENDPOINT_RE.source}`)

const ENDPOINT_RE = /\/v\d+(?:beta\d*|alpha\d*)?\/[A-Za-z0-9._~:@\/-]{1,200}/

const ENDPOINT_SUFFIX_RE = /\/(?:chat\/completions|completions|embeddings|audio\/speech|audio\/transcriptions|images\/generations|rerank|responses)\b/

export function notePaths(s: string, d: Draft): void {
  URL_RE.lastIndex = 0
  let m: RegExpExecArray | null
  let n = 0
  while ((m = URL_RE.exec(s)) !== null && n++ < 8) {
    if (m[1] !== undefined) notePath(d, m[1], false)
    else if (LLM_PATH_RE.test(m[0])) notePath(d, m[0], false)
  }
  if (d.endpoint === null) {
    const e = ENDPOINT_RE.exec(s) ?? ENDPOINT_SUFFIX_RE.exec(s)
    if (e !== null) d.endpoint = trimPunct(e[0])
  }
}

/** Record a URL or path seen in the record; `explicit`: given as the endpoint itself. */
export function notePath(d: Draft, url: string, explicit: boolean): void {
  d.sawPath = true
  if (LLM_ENDPOINT_RE.test(url)) d.sawLlmPath = true
  if (d.endpoint !== null) return
  const e = ENDPOINT_RE.exec(url) ?? ENDPOINT_SUFFIX_RE.exec(url)
  if (e !== null) d.endpoint = trimPunct(e[0])
  else if (explicit) {
    const q = url.search(/[?#]/)
    d.endpoint = (q === -1 ? url : url.slice(0, q)).slice(0, 300)
  }
}
