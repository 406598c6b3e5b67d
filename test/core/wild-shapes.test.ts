import { describe, expect, it } from "vitest"
import { classify, rateLimitKindOf } from "../../src/classify/classify.js"
import { hasFailureSignal, parseRecord } from "../../src/parse/parse.js"

/**
 * Shape families met in the wild-* corpus records (tune part), each with a made-up line of the
 * same shape: the extractor must read the family, not one record.
 */
const failure = (text: string) => {
  const r = parseRecord(text)
  if (r._tag !== "Failure") throw new Error(`ignored: ${r.reason}`)
  return { f: r.failure, c: classify(r.failure) }
}

describe("shape families of the wild corpus", () => {
  it("a status at a line's start before a Chinese message (openai-node's `${status} ${message}` of a relay)", () => {
    const { f, c } = failure("403 该令牌额度已用尽 (request id: 2025010203040506070809abcdEFGH)")
    expect(f.status).toBe(403)
    expect(c.category).toBe("quota")
    expect(failure("429 当前分组上游负载已饱和，请稍后再试").f.status).toBe(429)
  })

  it("gRPC status names printed by grpc-java and grpc-js", () => {
    const java = failure("com.google.api.gax.rpc.UnavailableException: io.grpc.StatusRuntimeException: UNAVAILABLE: The service is currently unavailable.")
    expect(java.f.errorType).toBe("UNAVAILABLE")
    expect(java.c.category).toBe("overload")
    const node = failure("Error: 8 RESOURCE_EXHAUSTED: Resource has been exhausted (e.g. check quota).")
    expect(node.f.errorType).toBe("RESOURCE_EXHAUSTED")
    expect(node.c.category).toBe("rate_limit")
  })

  it("an HTTP client's transport failure is a failed call whatever the host", () => {
    expect(failure("Request error: TypeError: fetch failed (cause: UND_ERR_CONNECT_TIMEOUT)").c.category).toBe("transport")
    expect(failure("HTTPConnectionPool(host='10.0.0.7', port=8000): Max retries exceeded with url: /generate (Caused by NewConnectionError('Failed to establish a new connection: [Errno 111] Connection refused'))").c.category).toBe("transport")
    expect(failure("Error: reqwest::Error { kind: Request, url: \"http://10.1.2.3:8080/infer\", source: TimedOut }").c.category).toBe("transport")
    // a known API host is an API call too
    expect(failure("java.net.SocketException: Connection reset, address = api.mistral.ai, port = 443").c.category).toBe("transport")
  })

  it("a bare socket error of some other client is still not an API call", () => {
    const r = parseRecord("redis: dial tcp 10.0.0.5:6379: connect: connection refused")
    expect(r._tag).toBe("Ignored")
  })

  it("a Ruby hash body (`=>`, `nil`) is read like JSON", () => {
    const { f, c } = failure('OpenAI HTTP Error (spotted in ruby-openai 7.0.1): {"error"=>{"message"=>"Unrecognized request argument supplied: foo", "type"=>"invalid_request_error", "param"=>nil, "code"=>nil}}')
    expect(f.message).toBe("Unrecognized request argument supplied: foo")
    expect(f.code).toBeNull()
    expect(c.category).toBe("invalid_request")
  })

  it("concurrency limits, English and Chinese, are rate limits", () => {
    expect(failure("raise errors.RequestLimitError(msg)\nqianfan.errors.RequestLimitError: 并发数过高").c.category).toBe("rate_limit")
    expect(failure("upstream said: Concurrency limit exceeded for user, please retry later").c.category).toBe("rate_limit")
  })

  it("OpenAI's older `tokens_usage_based per min` names a TPM limit", () => {
    expect(failure("openai.error.RateLimitError: Rate limit reached for gpt-4 in organization org-abc on tokens_usage_based per min: Limit 40000, Used 39000").c.rateLimitKind).toBe("TPM")
  })

  it("an exception message hard-wrapped inside a `> ` quote block goes on over the next quoted lines", () => {
    const { f, c } = failure("> Error: APICallError: The request was rejected because it would\n> exceed your rate limit of 4,000 output tokens per minute. Please\n> slow down.")
    expect(f.message).toContain("per minute")
    expect(c.category).toBe("rate_limit")
    expect(c.rateLimitKind).toBe("TPM")
  })

  it("models named by a `Model:` line, a CLI's --model-id, a relay's Chinese wording, Gemini's modelVersion", () => {
    expect(failure("Model: Qwen Coder 32B\nProvider: openrouter\nStatus Code: 429\n\n429 Rate limit exceeded").f.model).toBe("Qwen Coder 32B")
    expect(failure("Model: gpt-4o-mini with whole edit format, prompt cache\nlitellm.RateLimitError: RateLimitError: OpenAIException - Rate limit reached").f.model).toBe("gpt-4o-mini")
    expect(failure("aws bedrock-runtime converse --model-id us.amazon.nova-pro-v1:0 --messages file://m.json\nAn error occurred (ThrottlingException) when calling the Converse operation: Too many requests").f.model).toBe("us.amazon.nova-pro-v1:0")
    expect(failure("当前分组 vip 下对于模型 文心一言 无可用渠道 (request id: 20250101010101)").f.model).toBe("文心一言")
    expect(failure('data: {"candidates": [],"modelVersion": "gemini-1.5-pro-002"}\n\n{"error": {"code": 500, "message": "Internal error encountered.", "status": "INTERNAL"}}').f.model).toBe("gemini-1.5-pro-002")
  })

  it("codes as client libraries print them: Azure.Core's ErrorCode line, an SDK's code: line, Go's %+v struct, vLLM's repr, a leading service code", () => {
    expect(failure("Azure.RequestFailedException: Requests to the ChatCompletions_Create Operation have exceeded call rate limit.\nStatus: 429 (Too Many Requests)\nErrorCode: 429").f.code).toBe(429)
    expect(failure("SomeSdkException: Detailed exception information is listed below.\nreq_id: abc123\ncode: InvalidParameter\nmessage: The parameter `temperature` is invalid.").f.code).toBe("InvalidParameter")
    const go = failure("[ERR] 2025/01/01 - 10:00:00 | 2025010110000012345 | relay error: {Error:{Message:该令牌额度已用尽 Type:new_api_error Param: Code:token_quota_exhausted} StatusCode:403}")
    expect(go.f.code).toBe("token_quota_exhausted")
    expect(go.f.status).toBe(403)
    const vllm = failure("ERROR 01-02 03:04:05 [serving_chat.py:200] Error with model object='error' message='The model `llama-3-8b` does not exist.' type='NotFoundError' param=None code=404")
    expect(vllm.f.code).toBe(404)
    expect(vllm.c.category).toBe("model_not_found")
    expect(failure("3040: Capacity temporarily exceeded, please try again.").f.code).toBe(3040)
    expect(failure("2013, invalid params, model not supported").f.code).toBe(2013)
  })

  it("an exception named after a code only one provider documents shows that code", () => {
    const { f, c } = failure("AccountOverdueError: 403 Forbidden\nRequest ID: 021700000000000abcdef")
    expect(f.code).toBe("AccountOverdueError")
    expect(c.category).toBe("quota")
  })

  it("the message of a report template is where the status is shown again with words", () => {
    const { f, c } = failure("Model: glm-4.6\nProvider: openai\nStatus Code: 403\n\n**Error Output**\n```\n403 您的账户已欠费，请充值后重试\n```")
    expect(f.message).toBe("您的账户已欠费，请充值后重试")
    expect(c.category).toBe("quota")
  })

  it("a Python traceback's message is its last exception, and google-api-core's `400 * field` shows the status", () => {
    const tb = "Traceback (most recent call last):\n  File \"app.py\", line 3, in <module>\n    data = r['result']\nKeyError: 'result'\n\nDuring handling of the above exception, another exception occurred:\n\nTraceback (most recent call last):\n  File \"app.py\", line 9, in <module>\n    raise RuntimeError(r['error_msg'])\nRuntimeError: Access token expired"
    expect(failure(tb).f.message).toBe("Access token expired")
    expect(failure(tb).c.category).toBe("auth_key")
    expect(failure("    raise Exception(f\"embedding error: {code} - {msg}\")\nException: embedding error: InvalidApiKey - Invalid API-key provided.").c.category).toBe("auth_key")
    expect(failure("google.api_core.exceptions.InvalidArgument: 400 * GenerateContentRequest.model: unexpected model name format").f.status).toBe(400)
  })

  it("the Vercel AI SDK's APICallError dump: the body inside responseBody", () => {
    const { f, c } = failure("AI_APICallError: Invalid model\n    at /srv/node_modules/@ai-sdk/provider-utils/dist/index.mjs:400:14 {\n  url: 'https://api.example-llm.com/v1/chat/completions',\n  statusCode: 404,\n  responseBody: '{\"error\":{\"message\":\"The model `m-1` does not exist\",\"type\":\"invalid_request_error\",\"code\":\"model_not_found\"}}',\n  isRetryable: false\n}")
    expect(f.status).toBe(404)
    expect(f.code).toBe("model_not_found")
    expect(c.category).toBe("model_not_found")
  })

  it("Rust's Debug of an API error and Qianfan's `code: N, msg:`", () => {
    expect(failure('Error: ApiError(ApiError { message: "You exceeded your current quota", type: Some("insufficient_quota"), param: None, code: Some("insufficient_quota") })').f.code).toBe("insufficient_quota")
    const q = failure("qianfan.errors.APIError: api return error, req_id: as-0a1b2c code: 18, msg: Open api qps request limit reached")
    expect(q.f.code).toBe(18)
    expect(q.c.category).toBe("rate_limit")
  })

  it("MiniMax's base_resp envelope, embedded or as the whole line", () => {
    const a = failure('minimax chat failed: {"base_resp":{"status_code":1004,"status_msg":"authorization failed"}}')
    expect(a.f.code).toBe(1004)
    const b = failure('{"id":"","choices":null,"base_resp":{"status_code":1002,"status_msg":"rate limit exceeded(RPM)"}}')
    expect(b.f.code).toBe(1002)
    expect(b.c.category).toBe("rate_limit")
    expect(b.c.rateLimitKind).toBe("RPM")
    expect(parseRecord('{"id":"abc","choices":[],"base_resp":{"status_code":0,"status_msg":"success"}}')._tag).toBe("Ignored")
  })

  it("proxies' and botocore's transport wordings, and a model named after 'reached for' without an organization", () => {
    expect(failure("upstream connect error or disconnect/reset before headers. reset reason: remote connection failure").c.category).toBe("transport")
    expect(failure('botocore.exceptions.ConnectTimeoutError: Connect timeout on endpoint URL: "https://bedrock-runtime.eu-west-1.amazonaws.com/model/amazon.titan-text-express-v1/invoke"').c.category).toBe("transport")
    expect(failure("429 Rate limit reached for gpt-4.1-mini. Please try again in 20s.").f.model).toBe("gpt-4.1-mini")
  })

  it("models named by LiteLLM's 'Received Model Group=' and OpenAI's 'Request too large for'", () => {
    expect(failure('{"error":{"message":"litellm.RateLimitError: RateLimitError: AzureException - Rate limit exceeded. Received Model Group=gpt-4o-prod\\nAvailable Model Group Fallbacks=None","type":"throttling_error","param":"None","code":"429"}}').f.model).toBe("gpt-4o-prod")
    expect(failure("openai.RateLimitError: Error code: 429 - Request too large for o3-mini in organization org-x on tokens per min (TPM): Limit 30000").f.model).toBe("o3-mini")
  })

  it("Go's url.Error and http.Client timeouts, 'returned 500', and a code labelled 错误码", () => {
    expect(failure('Post "https://llm.internal.example/v1/chat/completions": context deadline exceeded (Client.Timeout exceeded while awaiting headers)').c.category).toBe("transport")
    expect(failure('Post "http://10.0.0.9:8000/generate": dial tcp 10.0.0.9:8000: connect: connection refused').c.category).toBe("transport")
    expect(failure("ERROR gateway: upstream returned 503 for request 42").f.status).toBe(503)
    expect(failure("模型：ernie-4.0，错误码：336103，错误信息：输入内容过长").f.code).toBe(336103)
  })

  it("a status in a column of a pipe-separated access log (gin) passes the pre-filter; a 200 there is still a success", () => {
    const { f, c } = failure('[GIN] 2025/05/05 - 10:00:00 | 503 |  12.5ms |  10.0.0.2 | POST     "/v1/chat/completions"')
    expect(f.status).toBe(503)
    expect(c.category).toBe("overload")
    expect(parseRecord('[GIN] 2025/05/05 - 10:00:00 | 200 |  12.5ms |  10.0.0.2 | POST     "/v1/chat/completions"')._tag).toBe("Ignored")
  })

  it("Anthropic's 'reached your specified API usage limits' is a quota (sent as 400)", () => {
    expect(failure("Error code: 400 - {'type': 'error', 'error': {'type': 'invalid_request_error', 'message': 'You have reached your specified API usage limits. You will regain access on 2026-01-01 at 00:00 UTC.'}}").c.category).toBe("quota")
  })

  it("a bracketed Chinese sentence at a line's start is the message, not a log tag", () => {
    expect(failure("[1113][余额不足或无可用资源包，请充值。] (error_code: 1)").c.category).toBe("quota")
  })

  it("rate-limit kinds named as adjectives, with a slash, per 60 seconds, in Google quota ids and OpenRouter limit names", () => {
    expect(rateLimitKindOf("Your key has hit its daily limit of 1000 requests")).toBe("RPD")
    expect(rateLimitKindOf("the hourly request limit of your plan was reached")).toBe("RPH")
    expect(rateLimitKindOf("exceeded your per-day token quota")).toBe("TPD")
    expect(rateLimitKindOf("You have exceeded the rate limit of 20 requests/min")).toBe("RPM")
    expect(rateLimitKindOf("Limit: 30 requests per 60 seconds")).toBe("RPM")
    expect(rateLimitKindOf("quotaId: GenerateContentInputTokensPerModelPerMinute-FreeTier")).toBe("TPM")
    expect(rateLimitKindOf("Rate limit exceeded: free-models-per-day")).toBe("RPD")
    expect(rateLimitKindOf("limit exceeded for output_tokens_per_minute")).toBe("TPM")
  })

  it("Google's QuotaFailure quotaId outside the message names the limit (JSON details, a Go map print)", () => {
    const json = failure(`google.genai.errors.ClientError: 429 RESOURCE_EXHAUSTED. {'error': {'code': 429, 'message': 'You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.', 'status': 'RESOURCE_EXHAUSTED', 'details': [{'@type': 'type.googleapis.com/google.rpc.QuotaFailure', 'violations': [{'quotaMetric': 'generativelanguage.googleapis.com/generate_content_free_tier_requests', 'quotaId': 'GenerateRequestsPerMinutePerProjectPerModel-FreeTier'}]}]}}`)
    expect(json.f.limitDetail).toBe("GenerateRequestsPerMinutePerProjectPerModel-FreeTier")
    expect(json.c.rateLimitKind).toBe("RPM")
    const goMap = failure("Error 429, Message: You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits., Status: RESOURCE_EXHAUSTED, Details: [map[@type:type.googleapis.com/google.rpc.QuotaFailure violations:[map[quotaId:GenerateContentInputTokensPerModelPerMinute-FreeTier]]]]")
    expect(goMap.c.rateLimitKind).toBe("TPM")
  })

  it("a Gemini model path followed by a colon and the message", () => {
    expect(failure("Vertex call failed for models/gemini-1.5-flash-002: 429 Resource exhausted. Please try again later.").f.model).toBe("gemini-1.5-flash-002")
  })

  it("wordings that decide a status-less record: expired keys, context length, permissions, daily call caps (English and Chinese)", () => {
    expect(failure("错误：令牌已过期，请重新生成").c.category).toBe("auth_key")
    expect(failure("错误：服务器内部错误，请联系管理员").c.category).toBe("server_error")
    expect(failure("Error: This model's maximum context length is 8192 tokens, you requested 9100 tokens").c.category).toBe("invalid_request")
    expect(failure("错误：无权限调用该模型").c.category).toBe("permission")
    expect(failure("Error: your project does not have access to model gpt-image-1").c.category).toBe("permission")
    const cap = failure("错误：今日调用次数已达上限")
    expect(cap.c.category).toBe("rate_limit")
    expect(cap.c.rateLimitKind).toBe("RPD")
  })

  it("HTTP/2 stream resets and a stream cut before completion are transport failures", () => {
    expect(failure("http2: stream error: stream ID 7; INTERNAL_ERROR; received from peer").c.category).toBe("transport")
    expect(failure("ERROR stream disconnected before completion: error sending request for url (https://api.openai.com/v1/responses)").c.category).toBe("transport")
  })

  it("a provider's marker is LLM context for a transport failure", () => {
    expect(failure("volcenginesdkarkruntime: connection reset by peer while reading response").c.category).toBe("transport")
  })
})

describe("shape families of the wild2 corpus (made-up lines of each shape)", () => {
  it("rate-limit wordings without a status: `Rate limited`, `TooManyRequests`, `too frequent`, `temporarily limiting requests`", () => {
    expect(failure("Rate limited by the API (over the per-minute limit). Retrying in 12.5 second(s)...").c.category).toBe("rate_limit")
    expect(failure("warn: Acme.Llm.Client[0] Attempt 2 of 3 failed. Reason: TooManyRequests. Will retry after 4000ms").c.category).toBe("rate_limit")
    expect(failure("Rate Limit Error: Request too frequent, please try again later").c.category).toBe("rate_limit")
    expect(failure("API Error: Server is temporarily limiting requests · Rate limited").c.category).toBe("rate_limit")
  })

  it("a count of rate-limited accounts is not a rate limit", () => {
    expect(parseRecord("[2026-01-01T10:00:00.000Z] [SUCCESS] [Pool] Accounts: 4 total, 4 available, 0 rate-limited, 0 invalid")._tag).toBe("Ignored")
  })

  it("credits and spending-limit wordings are quota, also at 403", () => {
    expect(failure('403 "Your new team doesn\'t have any credits yet. Buy some at https://console.example.ai/team/abc."').c.category).toBe("quota")
    expect(failure("403 Forbidden: permission-denied: Your team has either used all available credits or reached its monthly spending limit.").c.category).toBe("quota")
  })

  it("a message line that ends with a colon goes on with the next line", () => {
    const { f, c } = failure("> 403 Forbidden: team-blocked:spending-limit:\n> You have run out of credits or need a subscription.")
    expect(f.message).toContain("run out of credits")
    expect(c.category).toBe("quota")
    const grpc = failure('2026-01-02 10:00:00.000 ERROR (MainThread) [custom_components.acme] Failed to fetch model list: <AioRpcError of RPC that terminated with:\n\tstatus = StatusCode.PERMISSION_DENIED\n\tdetails = "Your team doesn\'t have any credits or licenses yet."')
    expect(grpc.c.category).toBe("quota")
  })

  it("a quoted model that is not found, `invalid request:` and `invalid type: parameter` without a status", () => {
    const nf = failure("SomeSDKError: model 'bigmodel' not found, make sure the model ID is correct")
    expect(nf.c.category).toBe("model_not_found")
    expect(nf.f.model).toBe("bigmodel")
    expect(failure('{"message":"invalid request: prompt must contain at least one user turn"}').c.category).toBe("invalid_request")
    expect(failure('ProviderException - {"id":"x1","message":"invalid type: parameter \'top_k\' is of type string but should be of type int32"}').c.category).toBe("invalid_request")
  })

  it("an unexpected EOF and Firefox's fetch NetworkError are transport failures", () => {
    expect(failure("com.example.llm.IOException: Failed to parse HTTP response: unexpected EOF").c.category).toBe("transport")
    expect(failure("Could not send the message. NetworkError when attempting to fetch resource.").c.category).toBe("transport")
  })

  it("`modelId` / `model_id` keys of a JSON error object", () => {
    expect(failure('{"message":"API error occurred: Status 429","status":429,"modelId":"tiny-model-2501","providerId":"acme"}').f.model).toBe("tiny-model-2501")
    expect(failure('{"level":"error","msg":"request failed: 500 Internal Server Error","model_id":"acme.large-v2:0"}').f.model).toBe("acme.large-v2:0")
  })

  it("the model in a URL kept under a JSON key, and Fireworks' accounts/<a>/models/<m> ids", () => {
    const j = failure('{"status": 412, "upstreamUrl": "https://api.fireworks.ai/inference/v1/workflows/accounts/fireworks/models/tiny-img-fp8/text_to_image", "message": "Precondition Failed"}')
    expect(j.f.model).toBe("tiny-img-fp8")
  })

  it("a LiteLLM model group name with spaces is read to the end of its line", () => {
    expect(failure("litellm.BadRequestError: AcmeException - bad input. Received Model Group=Acme - chat-large-2024\nAvailable Model Group Fallbacks=None").f.model).toBe("Acme - chat-large-2024")
  })

  it("`-m <model>` on a command line, not `python -m <module>`", () => {
    expect(failure('> llm -m acme-2.5-flash "Hello"\nError: 429 Too Many Requests').f.model).toBe("acme-2.5-flash")
    expect(failure("$ python -m tools.run_eval\nopenai.RateLimitError: Error code: 429 - {'error': {'message': 'Rate limit reached', 'type': 'requests', 'code': 'rate_limit_exceeded'}}").f.model).toBeNull()
  })

  it("a code expression is not a model (`modelId=self.model_id` in a traceback's source line)", () => {
    expect(failure("--> 183     response = self.client.invoke_model(body=body, modelId=self.model_id)\nValidationException: An error occurred (ValidationException) when calling the InvokeModel operation: Malformed input request").f.model).toBeNull()
  })

  it("an application's request log whose message reports the upstream status: the upstream's is the call's", () => {
    const { f, c } = failure('{"level":"error","ts":1700000000.1,"msg":"AI provider openai failed: error, status code: 429, message: Rate limit reached","method":"GET","url":"/analyze","status_code":500}')
    expect(f.status).toBe(429)
    expect(c.category).toBe("rate_limit")
  })

  it("a gateway's `upstream_status` when nothing else gives a status", () => {
    const { f, c } = failure('Gateway reported an error: {"code":"upstream_http_error","message":"Received an error from the provider: upstream connect error","upstream_status":503}')
    expect(f.status).toBe(503)
    expect(c.category).toBe("overload")
  })

  it("a JSON-looking record that breaks early (a traceback pasted in a string) is read as text", () => {
    const text = '{\n    "app_error": "Traceback (most recent call last):\n  File "/usr/lib/python3/site-packages/openai/_base_client.py", line 1, in request\n    raise self._make_status_error_from_response(err.response) from None\nopenai.RateLimitError: Error code: 429 - {\'error\': {\'message\': \'You exceeded your current quota, please check your plan and billing details.\', \'type\': \'insufficient_quota\', \'param\': None, \'code\': \'insufficient_quota\'}}\n"\n}'
    const { f, c } = failure(text)
    expect(f.status).toBe(429)
    expect(f.code).toBe("insufficient_quota")
    expect(c.category).toBe("quota")
  })

  it("Node's util.inspect of a long string (`'…\\n' +` pieces) is joined back, and a `details` string holding the body is read", () => {
    const text = "Error for chat chat-1: {\n  message: 'Error: llmApiError',\n  details: '{\\n' +\n    '  \"error\": {\\n' +\n    '    \"code\": 400,\\n' +\n    '    \"message\": \"API key not valid. Please pass a valid API key.\",\\n' +\n    '    \"status\": \"INVALID_ARGUMENT\"\\n' +\n    '  }\\n' +\n    '}\\n',\n}"
    const { f, c } = failure(text)
    expect(f.status).toBe(400)
    expect(f.message).toBe("API key not valid. Please pass a valid API key.")
    expect(c.category).toBe("auth_key")
  })

  it("iFlytek Spark's header code 11200: `tokens.total` is the token allowance (quota), else no authorisation", () => {
    expect(failure("请求错误: 11200, {'header': {'code': 11200, 'message': 'AppIdNoAuthError:(10:00:00.000) tokens.total', 'sid': 'cht0001', 'status': 2}}").c.category).toBe("quota")
    expect(failure("请求错误: 11200, {'header': {'code': 11200, 'message': 'AppIdNoAuthError:(10:00:00.000) domain.generalv9', 'sid': 'cht0002', 'status': 2}}").c.category).toBe("permission")
  })
})

describe("how apps write a status, a model and a code (made-up lines, step 4 of issue 14)", () => {
  const prefiltered = (text: string) => {
    const r = parseRecord(text, { prefiltered: true })
    if (r._tag !== "Failure") throw new Error(`ignored: ${r.reason}`)
    return r.failure
  }

  it("statuses the parser reads once a record reaches it: `got 429`, `POST <url> 429` (the pre-filter does not pass these yet)", () => {
    expect(prefiltered("WARNING openai request got 429, backing off").status).toBe(429)
    const access = prefiltered("POST https://res1.openai.azure.com/openai/deployments/gpt4-eastus/chat/completions?api-version=2024-02-01 429")
    expect(access.status).toBe(429)
    expect(access.model).toBe("gpt4-eastus")
  })

  it("statuses in many wordings", () => {
    const cases: ReadonlyArray<readonly [string, number]> = [
      ["ERROR llm call failed: status code 429 from upstream openai", 429],
      ["ERROR calling chat completions: HTTP 429 returned by api.openai.com", 429],
      ["2024-01-01 ERROR Completion failed (429): rate limited", 429],
      ["chat completion returned 503 for model=gpt-4o-mini", 503],
      ["ERROR statusCode: 429, message: 'Rate limit reached for requests', model: 'gpt-4o'", 429],
      ['level=error msg="llm request failed" status_code=429 model=gpt-4o-mini provider=openai', 429],
      ["Exception: <Response [429]> from https://api.openai.com/v1/chat/completions", 429],
      ["anthropic request failed with status 529 (overloaded_error) for claude-3-opus-20240229", 529],
      ["ERROR openai_client: HTTPStatusError: Client error '429 Too Many Requests' for url 'https://api.openai.com/v1/chat/completions'", 429],
      ["the server responded with a status of 429 (Too Many Requests) api.openai.com/v1/chat/completions", 429]
    ]
    for (const [text, status] of cases) expect(failure(text).f.status, text).toBe(status)
  })

  it("Google Cloud Logging's httpRequest.status and requestUrl", () => {
    const { f } = failure('{"severity":"ERROR","message":"Vertex AI request failed","httpRequest":{"status":429,"requestUrl":"https://us-central1-aiplatform.googleapis.com/v1/projects/p/locations/us-central1/publishers/google/models/gemini-1.5-pro:generateContent"}}')
    expect(f.status).toBe(429)
    expect(f.model).toBe("gemini-1.5-pro")
  })

  it("models in many wordings: key=value, quoted, bracketed, an Azure engine or deployment", () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      ['ERROR: model="gpt-4o-mini" status=429 Rate limit exceeded', "gpt-4o-mini"],
      ["ERROR llm failed model: claude-3-5-haiku-20241022 error: 529 overloaded", "claude-3-5-haiku-20241022"],
      ["Error calling model 'gemini-2.0-flash': 429 RESOURCE_EXHAUSTED", "gemini-2.0-flash"],
      ["request to model [gemini-2.5-pro] failed with 503 UNAVAILABLE", "gemini-2.5-pro"],
      ["engine=gpt-35-turbo-16k status=429 error=Requests have exceeded token rate limit of your current pricing tier.", "gpt-35-turbo-16k"],
      ['{"level":"error","msg":"chat failed: 429 Too Many Requests","deployment_name":"gpt4o-prod-eastus"}', "gpt4o-prod-eastus"],
      ['Inference failed: model_name="mistral-large-latest" status=429', "mistral-large-latest"]
    ]
    for (const [text, model] of cases) expect(failure(text).f.model, text).toBe(model)
  })

  it("codes in many wordings: key=value strings, `[code 1302]`, errorCode keys, `[429:code]`, a documented code before ` - `", () => {
    expect(failure('ERROR request failed: status=429 code=rate_limit_exceeded message="Rate limit reached"').f.code).toBe("rate_limit_exceeded")
    expect(failure('openai error: code="insufficient_quota" status=429 message="You exceeded your current quota"').f.code).toBe("insufficient_quota")
    expect(failure("APIError(code=model_not_found, status=404): The model does not exist").f.code).toBe("model_not_found")
    expect(failure("Zhipu API error [code 1302]: 您当前使用该API的并发数过高").f.code).toBe(1302)
    expect(failure('{"errorCode":"InvalidApiKey","errorMessage":"Invalid API-key provided."}').f.code).toBe("InvalidApiKey")
    expect(failure("Error: [429:insufficient_quota] You exceeded your current quota, please check your plan and billing details.").f.code).toBe("insufficient_quota")
    expect(failure("Exception: DashScope call error: Arrearage - Access denied, please make sure your account is in good standing.").f.code).toBe("Arrearage")
  })

  it("an application's error wrapper: the upstream status in its error text, the upstream body under details", () => {
    const { f, c } = failure("{'error': 'Acme API error: 400 Bad Request', 'status': 500, 'details': {'error': {'message': 'Invalid max_tokens value', 'type': 'invalid_request_error', 'param': None, 'code': 'invalid_request_error'}}}")
    expect(f.status).toBe(400)
    expect(f.code).toBe("invalid_request_error")
    expect(c.category).toBe("invalid_request")
  })
})

describe("more client shapes (made-up lines)", () => {
  it("google-api-core's `<Exception>: <code> <message>` shows the status", () => {
    const { f, c } = failure("google.api_core.exceptions.ServiceUnavailable: 503 The model is overloaded. Please try again later.")
    expect(f.status).toBe(503)
    expect(c.category).toBe("overload")
    expect(failure("google.api_core.exceptions.PermissionDenied: 403 Your project has been denied access. Please contact support.").f.status).toBe(403)
  })

  it("a frame of Node's bundled undici says an HTTP call failed", () => {
    expect(failure("TypeError: terminated at Fetch.onAborted (node:internal/deps/undici/undici:11576:53) { [cause]: SocketError: other side closed").c.category).toBe("transport")
  })

  it("Zhipu's `[code][message]` print shows the code", () => {
    const { f } = failure("Error: [1211][模型不存在，请检查模型代码。]")
    expect(f.code).toBe(1211)
  })
})

describe("shape families of the wild3 tune records (made-up lines)", () => {
  it("`(HTTP response code was 500)`, `status code was 429`, a status before a bracketed tag", () => {
    expect(failure("openai.error.APIError: Invalid response object from API: '{\"object\":\"error\",\"message\":\"\",\"code\":50001}' (HTTP response code was 500)").f.status).toBe(500)
    expect(failure("upstream call failed, status code was 429 (rate limited)").f.status).toBe(429)
    expect(failure("401 [Acme] 提供错误的API密钥 | Incorrect API key provided").f.status).toBe(401)
  })

  it("a labelled error report's message line (`错误信息:`, `Error message:`) is the message", () => {
    const { f, c } = failure("错误名称: AI_APICallError\n错误信息: You exceeded your current quota, please check your plan and billing details.\n堆栈信息: AI_APICallError: You exceeded your current quota")
    expect(f.message).toBe("You exceeded your current quota, please check your plan and billing details.")
    expect(c.category).toBe("quota")
  })

  it("Google's `Permission '…' denied on resource … (or it may not exist)` is a permission error, not a missing model", () => {
    const { c } = failure("✕ [API Error: Permission 'aiplatform.endpoints.predict' denied on resource '//aiplatform.googleapis.com/projects/p1/locations/global/publishers/google/models/gemini-9-pro' (or it may not exist).\n  (Status: PERMISSION_DENIED)]")
    expect(c.category).toBe("permission")
  })

  it("models: an id with its provider in parentheses, a long display name, `use <model> model`, Open WebUI's `issue connecting to <model>`", () => {
    expect(failure("Invalid Request\nBad request: check your input.\nModel: gpt-4.1-mini_docs (azure)").f.model).toBe("gpt-4.1-mini_docs")
    expect(failure("Model: Acme: Mega 3.5 Flash (free)\nProvider: openrouter\nStatus Code: 429\n\n429 Provider returned error").f.model).toBe("Acme: Mega 3.5 Flash (free)")
    expect(failure("Summarize the diff use acme-3.5-turbo model\nError: context deadline exceeded (Client.Timeout exceeded while awaiting headers)").f.model).toBe("acme-3.5-turbo")
    expect(failure("Oops! There was an issue connecting to Acme2.5-Max.\nAllocated quota exceeded, please increase your quota limit.").f.model).toBe("Acme2.5-Max")
  })

  it("rate-limit wordings: Java's RateLimitException, an API gateway's throttling threshold (with its per-minute policy), 请求速度过快", () => {
    expect(failure("SEVERE: null\njava.lang.reflect.UndeclaredThrowableException\nCaused by: dev.example.llm.RateLimitException: {").c.category).toBe("rate_limit")
    const gw = failure("The throttling threshold has been reached: policy ip over ratelimit,limit:10,time:1 minute")
    expect(gw.c.category).toBe("rate_limit")
    expect(gw.c.rateLimitKind).toBe("RPM")
    expect(failure("错误可能原因： 请求速度过快，被服务商限制了访问频率").c.category).toBe("rate_limit")
  })

  it("content-safety wordings are invalid requests; Go's http.Client timeout is an HTTP call's transport failure", () => {
    expect(failure('data: {"type": "chat:completion", "data": {"error": {"detail": "Content Security Warning: The content may contain inappropriate content."}}}').c.category).toBe("invalid_request")
    expect(failure("Stream error: context deadline exceeded (Client.Timeout or context cancellation while reading body)").c.category).toBe("transport")
  })

  it("a 200 access line followed by the call's failure is a failed call; two 200 lines are not", () => {
    const q = failure('2023-11-03 10:11:56 | INFO | httpx | HTTP Request: POST https://aip.baidubce.com/rpc/2.0/ai_custom/v1/wenxinworkshop/chat/eb-lite "HTTP/1.1 200 OK"\nError from the API:\n**17 Open api daily request limit reached**')
    expect(q.c.category).toBe("rate_limit")
    const cls = failure('2025-01-27 13:44:23,607 - httpx - INFO - HTTP Request: POST https://api.example.com/chat/completions "HTTP/1.1 200 OK"\nlitellm.APIError: APIError: AcmeException - error - Expecting value: line 5 column 1 (char 4)')
    expect(cls.f.status).toBe(200)
    expect(parseRecord('INFO:     127.0.0.1:1 - "POST /v1/chat/completions HTTP/1.1" 200 OK\nINFO:     127.0.0.1:2 - "POST /v1/chat/completions HTTP/1.1" 200 OK')._tag).toBe("Ignored")
  })
})

describe("more wordings (made-up lines, step 4 of issue 14)", () => {
  it("a success status with an error body is decided by the body's words (Qianfan's 200)", () => {
    const { f, c } = failure('HTTP Request: POST https://aip.baidubce.com/rpc/2.0/ai_custom/v1/wenxinworkshop/chat/completions_pro?access_token=x "HTTP/1.1 200 OK"\n{"error_code":18,"error_msg":"Open api qps request limit reached"}')
    expect(c.category).toBe("rate_limit")
    expect(f.model).toBe("completions_pro")
  })

  it("models: 模型名称, a quoted deployment, llm_model=, a nested JSON status", () => {
    expect(failure("调用失败，模型名称: qwen-max，错误: 429 Too Many Requests").f.model).toBe("qwen-max")
    expect(failure('request failed for deployment "gpt-4o-eus2": 429 Too Many Requests').f.model).toBe("gpt-4o-eus2")
    expect(failure('llm_model=qwen2.5-72b-instruct error="429 Too Many Requests"').f.model).toBe("qwen2.5-72b-instruct")
    const nested = failure('{"timestamp":"2025-01-01T00:00:00Z","level":"ERROR","logger":"ai.client","message":"chat failed","context":{"model":"gpt-4o","status":503}}')
    expect(nested.f.status).toBe(503)
    expect(nested.f.model).toBe("gpt-4o")
  })

  it("a status alone at the end of a failure line, 次数超限", () => {
    expect(failure("2025-01-01 00:00:00 ERROR [OpenAIService] model=gpt-4o-mini failed after 3 attempts: 429").f.status).toBe(429)
    expect(failure("当前模型 deepseek-chat 调用次数超限，请稍后重试").c.category).toBe("rate_limit")
  })
})

describe("UI-rendered failures (made-up lines)", () => {
  const prefiltered = (text: string) => {
    const r = parseRecord(text, { prefiltered: true })
    if (r._tag !== "Failure") throw new Error(`ignored: ${r.reason}`)
    return { f: r.failure, c: classify(r.failure) }
  }

  it("Open WebUI's `issue connecting to <model>` and an editor's `unable to reach the model provider` are transport failures once they reach the parser (the pre-filter does not pass them yet)", () => {
    const owui = prefiltered("Oops! There was an issue connecting to acme-4o-mini.")
    expect(owui.c.category).toBe("transport")
    expect(owui.f.model).toBe("acme-4o-mini")
    expect(prefiltered("Editor: Unable to reach the model provider. Please check your API key.").c.category).toBe("transport")
  })

  it("Gemini's safety block is an invalid request", () => {
    expect(failure("[GoogleGenerativeAI Error]: Candidate was blocked due to SAFETY").c.category).toBe("invalid_request")
  })
})

describe("self-hosted and Azure wordings (made-up lines)", () => {
  it("Azure's 'The operation was timeout.' is a transport failure; an InternalServerError code is a server error; vLLM's maximum model length is an invalid request", () => {
    expect(failure('{"error":{"code":"Timeout","message":"The operation was timeout."}}').c.category).toBe("transport")
    expect(failure('{"error":{"code":"InternalServerError","message":"The service is temporarily unable to process your request."}}').c.category).toBe("server_error")
    expect(failure("vllm: ValueError: The decoder prompt (length 9000) is longer than the maximum model length of 8192.").c.category).toBe("invalid_request")
  })
})

describe("rate-limit kinds and a lower-case 'rate limit' after the status (made-up lines)", () => {
  it("`429 rate limit: max 10 req/min` shows the status and an RPM limit", () => {
    const { f, c } = failure("429 rate limit: max 10 req/min")
    expect(f.status).toBe(429)
    expect(c.rateLimitKind).toBe("RPM")
  })

  it("kinds in words", () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["429 You have exceeded the requests-per-minute limit for this model", "RPM"],
      ["429 Too many tokens per minute. Limit: 100000", "TPM"],
      ["429 You exceeded your daily limit of 1000 requests", "RPD"],
      ["429 You have reached the limit of 50 requests per hour", "RPH"],
      ["429 今日请求次数已达上限", "RPD"],
      ["429 Token 使用量超过每分钟限制", "TPM"]
    ]
    for (const [text, kind] of cases) expect(failure(text).c.rateLimitKind, text).toBe(kind)
  })
})

describe("an LLM call's failure in an application's own words (made-up lines)", () => {
  it("`sse error: LLM model response empty`, `error unmarshalling stream response`, `CohereAPIError: …` are failed calls", () => {
    expect(failure("2024-08-05 00:42:54 [Error] 2024-08-04 16:42:54 sse error: LLM model response empty").c.category).toBe("unknown")
    expect(failure("[SYS] 2023/10/18 - 08:50:03 | error unmarshalling stream response: invalid character 'Y' looking for beginning of value").c).toBeDefined()
  })

  it("other applications' errors are not", () => {
    expect(parseRecord("2024-01-01 10:00:00 ERROR [web] chat room 42 failed to load: user not found")._tag).toBe("Ignored")
    expect(parseRecord("INFO llm completion succeeded after 1 retry (error budget ok)")._tag).toBe("Ignored")
  })
})

describe("status-table refinements by wording (made-up lines)", () => {
  it("a 404 saying `Model not found: <model>` is a missing model, and names it", () => {
    const { f, c } = failure("Error code: 404 - {'detail': 'Model not found: acme3:8b'}")
    expect(c.category).toBe("model_not_found")
    expect(f.model).toBe("acme3:8b")
  })

  it("a relay's `insufficient_user_quota` / `quota is not enough` is quota whatever the status", () => {
    expect(failure("Error code: 500 - {'error': {'message': 'insufficient_user_quota', 'type': 'new_api_error'}}").c.category).toBe("quota")
    expect(failure("Error code: 403 - {'error': {'message': 'user quota is not enough', 'type': 'new_api_error'}}").c.category).toBe("quota")
  })
})

describe("more wordings of a failed call (made-up lines)", () => {
  it("a status after an arrow (`→ 503`, `-> 429`) in a checker's or a client's summary", () => {
    expect(failure("  ❌ POST api.example-llm.com/v1/chat/completions → 503").f.status).toBe(503)
    expect(failure("llm call gpt-4o-mini -> 429 (attempt 3)").c.category).toBe("rate_limit")
  })

  it("`<endpoint|service|upstream> is unavailable` without a status is overload", () => {
    expect(failure("Gateway error: upstream request failed: Model service is temporarily unavailable.").c.category).toBe("overload")
    expect(parseRecord("INFO cache backend unavailable? no, healthy")._tag).toBe("Ignored")
  })

  it("a router's `over available RPM` / `TPM` is a rate limit of that kind", () => {
    const { c } = failure("router: deployment=acme-eu Key=<redacted> over available TPM=0. Model TPM=90000")
    expect(c.category).toBe("rate_limit")
    expect(c.rateLimitKind).toBe("TPM")
  })

  it("a browser's fetch to an LLM API blocked by CORS is a transport failure", () => {
    const { c } = failure(
      "Access to fetch at 'https://api.example-llm.com/v1/chat/completions' from origin 'http://localhost:3000' has been blocked by CORS policy: No 'Access-Control-Allow-Origin' header is present on the requested resource."
    )
    expect(c.category).toBe("transport")
  })
})

describe("a base URL the client cannot use (made-up lines)", () => {
  it("aiohttp's InvalidURL, requests' MissingSchema and httpx's UnsupportedProtocol on an LLM path are transport failures", () => {
    expect(failure("Traceback (most recent call last):\n  File \"app.py\", line 3, in <module>\n    raise InvalidURL(url)\naiohttp.client_exceptions.InvalidURL: /v1/chat/completions").c.category).toBe("transport")
    expect(failure("requests.exceptions.MissingSchema: Invalid URL '/v1/chat/completions': No scheme supplied. Perhaps you meant https:///v1/chat/completions?").c.category).toBe("transport")
    expect(failure("httpx.UnsupportedProtocol: Request URL is missing an 'http://' or 'https://' protocol. (openai chat.completions.create)").c.category).toBe("transport")
  })

  it("the same errors outside an API call are not failed calls", () => {
    expect(parseRecord("requests.exceptions.MissingSchema: Invalid URL 'config.yaml': No scheme supplied.")._tag).toBe("Ignored")
  })

  it("a well-known model family's id standing alone in an app's wording (parentheses, brackets, `for`, `to`)", () => {
    expect(failure("Last error: Gemini call failed (gemini-2.5-pro): 503 UNAVAILABLE").f.model).toBe("gemini-2.5-pro")
    expect(failure("[gpt-4o] request failed: 429 Too Many Requests").f.model).toBe("gpt-4o")
    expect(failure("Anthropic API returned status 529 (overloaded) for claude-3-5-sonnet-20241022").f.model).toBe("claude-3-5-sonnet-20241022")
    expect(failure("ERROR [LLMService] Request to gpt-4o failed with status 500").f.model).toBe("gpt-4o")
    expect(failure("error 429 from qwen2.5-72b-instruct").f.model).toBe("qwen2.5-72b-instruct")
    expect(failure("deepseek-chat: 402 Insufficient Balance").f.model).toBe("deepseek-chat")
    // a rewrite or a mapping: the id after the arrow is the one
    expect(failure("[proxy] Model ID rewrite: gpt-5.5 → glm-5.1; upstream said 429 Too Many Requests").f.model).toBe("glm-5.1")
    // tools, libraries and containers named after a family are not models
    expect(failure("gemini-cli@0.1.22 error: status 429").f.model).toBeNull()
    expect(failure("User-Agent: claude-code/2.1.0 got HTTP 429").f.model).toBeNull()
    expect(failure("Error: 429 from gpt-pilot").f.model).toBeNull()
    expect(failure("\tat com.acme.Llm.call(Llm.java:42) ~[deepseek4j-core-1.4.3.jar:na] HTTP 429").f.model).toBeNull()
    expect(failure("chatgpt-web-1  | Error: Request failed with status code 429").f.model).toBeNull()
  })

  it("an unquoted deployment name after the word (.NET / Azure wrappers)", () => {
    expect(failure("fail: MyApp.Llm[0] Chat completion failed with status 429 (Too Many Requests) for deployment chat4o-prod").f.model).toBe("chat4o-prod")
    expect(failure("The API deployment for this resource does not exist. Status: 404").f.model).toBeNull()
  })

  it("Mistral's envelope: `raw_status_code` is the HTTP status and names the provider", () => {
    const { f, c } = failure('{"object":"error","message":"Rate limit exceeded","type":"rate_limited","param":null,"code":"1300","raw_status_code":429}')
    expect(f.status).toBe(429)
    expect(f.code).toBe(1300)
    expect(c.category).toBe("rate_limit")
    expect(f.provider ?? c.provider).toBe("mistral")
  })

  it("the chatgpt npm package's messages name OpenAI (weakly)", () => {
    const { f, c } = failure("ChatGPTError: ChatGPT error 503: upstream connect error")
    expect(f.status).toBe(503)
    expect(f.provider ?? c.provider).toBe("openai")
  })

  it("iFlytek Spark's header: `<Class>Error:(hh:mm:ss.mmm) …` tells Spark; 10003 is a malformed request", () => {
    const { f, c } = failure("[ERROR][2025-01-02 10:00:00][bot.py:10] - 请求错误: 10003, {'header': {'code': 10003, 'message': 'ClientMsgError:(10:00:00.123) invalid domain', 'sid': 'cht0001', 'status': 2}}")
    expect(f.code).toBe(10003)
    expect(c.category).toBe("invalid_request")
    expect(f.provider ?? c.provider).toBe("iflytek")
  })

  it("a chat front-end's toast `NNN: Product: message` is an API call's failure with that status", () => {
    const forbidden = failure("403: Open WebUI: Server Connection Error")
    expect(forbidden.f.status).toBe(403)
    expect(forbidden.c.category).toBe("permission")
    expect(failure("422: Open WebUI: Server Connection Error").f.status).toBe(422)
    expect(failure("500: LobeChat: upstream error").c.category).toBe("server_error")
    // a number and a colon inside a line is not such a toast
    expect(parseRecord("copied 403: Files done")._tag).toBe("Ignored")
  })
})

describe("client-side transport failures as every HTTP stack prints them (made-up lines from the libraries' documented errors)", () => {
  // Python requests/urllib3/httpx, Node's fetch, Go's net/http, Java (OkHttp, Reactor Netty, JSSE),
  // .NET HttpClient, Rust reqwest, curl, PHP Guzzle, Ruby Net::HTTP / Faraday, and the SDKs' own
  it.each([
    "httpx.ConnectError: [Errno 111] Connection refused (while calling https://api.openai.com/v1/chat/completions)",
    "httpx.RemoteProtocolError: Server disconnected without sending a response. (POST https://api.openai.com/v1/chat/completions)",
    "httpcore.RemoteProtocolError: peer closed connection without sending complete message body (incomplete chunked read) during openai chat.completions stream",
    "requests.exceptions.ConnectionError: HTTPSConnectionPool(host='api.openai.com', port=443): Max retries exceeded with url: /v1/chat/completions (Caused by NewConnectionError('<urllib3.connection.HTTPSConnection object at 0x7f>: Failed to establish a new connection: [Errno 110] Connection timed out'))",
    "requests.exceptions.ChunkedEncodingError: ('Connection broken: IncompleteRead(0 bytes read)', IncompleteRead(0 bytes read)) while streaming from https://api.deepseek.com/chat/completions",
    "urllib3.exceptions.ProtocolError: ('Connection aborted.', RemoteDisconnected('Remote end closed connection without response')) calling https://dashscope.aliyuncs.com/compatible-mode/v1/chat/completions",
    "Error: read ECONNRESET at TLSWrap.onStreamRead (node:internal/stream_base_commons:217:20) { errno: -104, code: 'ECONNRESET', syscall: 'read' } [openai chat.completions]",
    "TypeError: terminated\n    at Fetch.onAborted (node:internal/deps/undici/undici:11190:53)\n  [cause]: SocketError: other side closed { code: 'UND_ERR_SOCKET' } POST https://api.anthropic.com/v1/messages",
    "Post \"https://api.openai.com/v1/chat/completions\": dial tcp: lookup api.openai.com: no such host",
    "Post \"https://api.openai.com/v1/chat/completions\": net/http: TLS handshake timeout",
    "Post \"https://generativelanguage.googleapis.com/v1beta/models/gemini-pro:generateContent\": http2: server sent GOAWAY and closed the connection; LastStreamID=1999, ErrCode=NO_ERROR",
    "Post \"https://api.openai.com/v1/chat/completions\": read tcp 10.0.0.5:51234->104.18.6.192:443: read: connection reset by peer",
    "Post \"https://api.openai.com/v1/chat/completions\": dial tcp 104.18.6.192:443: i/o timeout",
    "java.net.SocketTimeoutException: timeout\n\tat okhttp3.internal.http2.Http2Stream$StreamTimeout.newTimeoutException(Http2Stream.kt:675)\n\tat com.theokanning.openai.service.OpenAiService.execute(OpenAiService.java:331)",
    "java.net.ConnectException: Failed to connect to api.openai.com/104.18.6.192:443",
    "javax.net.ssl.SSLHandshakeException: PKIX path building failed: sun.security.provider.certpath.SunCertPathBuilderException: unable to find valid certification path to requested target (https://api.openai.com/v1/chat/completions)",
    "okhttp3.internal.http2.StreamResetException: stream was reset: INTERNAL_ERROR\n\tat dev.langchain4j.model.openai.OpenAiStreamingChatModel.generate(OpenAiStreamingChatModel.java:120)",
    "reactor.netty.http.client.PrematureCloseException: Connection prematurely closed BEFORE response\n\tat org.springframework.ai.openai.api.OpenAiApi.chatCompletionEntity(OpenAiApi.java:200)",
    "System.Net.Http.HttpRequestException: An error occurred while sending the request.\n ---> System.IO.IOException: Unable to read data from the transport connection: Connection reset by peer.\n   at Azure.AI.OpenAI.OpenAIClient.GetChatCompletionsAsync()",
    "System.Threading.Tasks.TaskCanceledException: The request was canceled due to the configured HttpClient.Timeout of 100 seconds elapsing. (Microsoft.SemanticKernel.Connectors.OpenAI)",
    "Error: error sending request for url (https://api.openai.com/v1/chat/completions): connection closed before message completed",
    "curl: (28) Operation timed out after 30001 milliseconds with 0 bytes received (https://api.openai.com/v1/chat/completions)",
    "curl: (7) Failed to connect to api.openai.com port 443 after 21045 ms: Couldn't connect to server",
    "curl: (35) OpenSSL SSL_connect: SSL_ERROR_SYSCALL in connection to api.anthropic.com:443",
    "curl: (52) Empty reply from server (POST http://localhost:11434/api/chat)",
    "GuzzleHttp\\Exception\\ConnectException: cURL error 28: Operation timed out after 30001 milliseconds with 0 bytes received (see https://curl.haxx.se/libcurl/c/libcurl-errors.html) for https://api.openai.com/v1/chat/completions",
    "Faraday::ConnectionFailed: Failed to open TCP connection to api.openai.com:443 (getaddrinfo: Name or service not known)",
    "Net::ReadTimeout: Net::ReadTimeout with #<TCPSocket:(closed)> (OpenAI::Client#chat)",
    "openai.APITimeoutError: Request timed out.",
    "anthropic.APIConnectionError: Connection error.",
  ])("%s", (text) => {
    expect(failure(text).c.category).toBe("transport")
  })

  it("the same errors of a database or a file download are not failed calls", () => {
    for (const text of [
      "dial tcp: lookup postgres.internal: no such host",
      "redis: i/o timeout after 3s (pool size 10)",
      "curl: (7) Failed to connect to localhost port 5432 after 0 ms: Couldn't connect to server",
      "requests.exceptions.ChunkedEncodingError: Connection broken: IncompleteRead(0 bytes read) downloading https://files.example.com/big.tar"
    ]) {
      expect(parseRecord(text)._tag, text).toBe("Ignored")
    }
  })
})

describe("categories and rate-limit kinds as the providers word them (made-up lines from their documented errors)", () => {
  it.each([
    ["Error code: 429 - {'error': {'message': 'Rate limit reached for gpt-4o in organization org-abc on requests per day (RPD): Limit 10000, Used 10000, Requested 1.', 'type': 'requests', 'code': 'rate_limit_exceeded'}}", "rate_limit", "RPD"],
    ["429 RESOURCE_EXHAUSTED: Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_input_token_count, limit: 1000000, model: gemini-2.0-flash (per minute)", "rate_limit", null],
    ["anthropic.RateLimitError: Error code: 429 - {'type': 'error', 'error': {'type': 'rate_limit_error', 'message': 'This request would exceed the rate limit for your organization of 80,000 output tokens per minute.'}}", "rate_limit", "TPM"],
    ["HTTP 429: {\"error\":{\"code\":\"1302\",\"message\":\"您当前使用该API的并发数过高，请降低并发，或联系客服增加限额。\"}}", "rate_limit", "unknown"],
    ["Error code: 429 - {'error': {'code': 'Throttling.RateQuota', 'message': 'Requests rate limit exceeded, please try again later.'}} (dashscope qwen-max)", "rate_limit", "unknown"],
    ["openai.RateLimitError: Error code: 429 - {'error': {'message': 'You exceeded your current quota, please check your plan and billing details.', 'type': 'insufficient_quota', 'code': 'insufficient_quota'}}", "quota", null],
    ["Error code: 402 - {'error': {'message': 'Insufficient credits. Add more using https://openrouter.ai/settings/credits', 'code': 402}}", "quota", null],
    ["Error code: 400 - {'error': {'message': 'Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.', 'type': 'invalid_request_error'}}", "quota", null],
    ["{\"code\":30001,\"message\":\"Sorry, your account balance is insufficient\",\"data\":null} HTTP 403", "quota", null],
    ["HTTP/1.1 403 Forbidden\n{\"code\":30011,\"message\":\"The model requires real-name authentication.\",\"data\":null}", "auth_realname", null],
    ["Error code: 401 - {'error': {'message': 'Invalid Authentication', 'type': 'invalid_authentication_error'}} (moonshot)", "auth_key", null],
    ["{\"error\":{\"code\":\"InvalidApiKey\",\"message\":\"Invalid API-key provided.\"},\"request_id\":\"abc\"} status_code=401", "auth_key", null],
    ["Error code: 403 - {'error': {'message': 'Project `proj_abc` does not have access to model `gpt-4o`', 'type': 'invalid_request_error', 'code': 'model_not_found'}}", "permission", null],
    ["Error code: 404 - {'error': {'message': 'The model `gpt-5-turbo` does not exist or you do not have access to it.', 'type': 'invalid_request_error', 'code': 'model_not_found'}}", "model_not_found", null],
    ["HTTP 400 {\"code\":20012,\"message\":\"Model does not exist. Please check it carefully.\",\"data\":null}", "model_not_found", null],
    ["Error code: 400 - {'error': {'message': \"This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.\", 'type': 'invalid_request_error', 'code': 'context_length_exceeded'}}", "invalid_request", null],
    ["Error code: 503 - {'error': {'message': 'The engine is currently overloaded, please try again later', 'type': 'server_error'}}", "overload", null],
    ["Error code: 529 - {'type': 'error', 'error': {'type': 'overloaded_error', 'message': 'Overloaded'}}", "overload", null],
    ["Error code: 500 - {'error': {'message': 'The server had an error while processing your request. Sorry about that!', 'type': 'server_error'}}", "server_error", null],
    ["Error code: 504 - {'error': {'message': 'Gateway timeout', 'type': 'upstream_error'}}", "overload", null],
    ["[openai] 502 Bad Gateway <html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>cloudflare</center></body></html>", "transport", null],
    ["Error code: 413 - {'error': {'message': 'Request too large for model `llama3-70b-8192` in organization `org_x` on tokens per minute (TPM): Limit 6000, Requested 9000', 'type': 'tokens', 'code': 'rate_limit_exceeded'}}", "rate_limit", "TPM"],
    ["错误：请求失败，状态码 429，错误信息：每分钟请求次数超过限制 (RPM)", "rate_limit", "RPM"],
    ["调用通义千问失败: code=DataInspectionFailed, message=Input data may contain inappropriate content. status_code=400", "invalid_request", null],
    ["ValueError: status_code: 429, body: {'message': 'You are using a Trial key, which is limited to 10 API calls / minute.'} (cohere)", "rate_limit", "RPM"],
  ] as Array<[string, string, string | null]>)("%s", (text, category, kind) => {
    const { c } = failure(text)
    expect(c.category).toBe(category)
    if (kind !== null) expect(c.rateLimitKind).toBe(kind)
  })
})

describe("a failed call inside the log plumbing around it (made-up lines: Docker and CRI prefixes, syslog, GCP, Laravel, go-kit, loguru, logrus, Spring, .NET)", () => {
  it.each([
    ["{\"log\":\"2025-03-01T10:00:00Z ERROR openai call failed: Error code: 429 - {'error': {'message': 'Rate limit reached'}}\\n\",\"stream\":\"stderr\",\"time\":\"2025-03-01T10:00:00.1Z\"}", 429],
    ["2025-03-01T10:00:00.123456789Z stderr F {\"level\":\"error\",\"msg\":\"upstream returned 503\",\"url\":\"https://api.openai.com/v1/chat/completions\"}", 503],
    ["Mar  1 10:00:00 ip-10-0-0-1 llm-gateway[1234]: upstream 502 for POST /v1/chat/completions (model=gpt-4o)", 502],
    ["{\"severity\":\"ERROR\",\"message\":\"LLM request failed\",\"httpRequest\":{\"requestMethod\":\"POST\",\"requestUrl\":\"https://api.openai.com/v1/chat/completions\",\"status\":500}}", 500],
    ["[2025-03-01 10:00:00] production.ERROR: OpenAI API error {\"exception\":\"[object] (OpenAI\\\\Exceptions\\\\ErrorException(code: 0): Rate limit reached for gpt-4 on requests per min (RPM) at /var/www/vendor/openai-php/client/src/Transporters/HttpTransporter.php:131)\"}", "rate_limit"],
    ["level=warn ts=2025-03-01T10:00:00Z caller=proxy.go:88 msg=\"provider error\" provider=anthropic code=529 body=\"{\\\"type\\\":\\\"error\\\",\\\"error\\\":{\\\"type\\\":\\\"overloaded_error\\\"}}\"", "overload"],
    ["E  2025-03-01 10:00:00.000 llm_client.py:42 Request to Anthropic failed with HTTP 401: {\"type\":\"error\",\"error\":{\"type\":\"authentication_error\",\"message\":\"invalid x-api-key\"}}", 401],
    ["2025-03-01 10:00:00 | ERROR | app.llm:call:88 - openai.InternalServerError: Error code: 500 - {'error': {'message': 'The server had an error processing your request.', 'type': 'server_error'}}", 500],
    ["time=\"2025-03-01T10:00:00Z\" level=error msg=\"completion error\" error=\"error, status code: 429, status: 429 Too Many Requests, message: Rate limit reached for requests\"", 429],
    ["2025-03-01 10:00:00.000 ERROR 1 --- [nio-8080-exec-1] o.s.ai.retry.RetryUtils : 429 - {\"error\":{\"message\":\"Rate limit reached\",\"type\":\"requests\",\"code\":\"rate_limit_exceeded\"}}", 429],
    ["fail: Microsoft.SemanticKernel.Connectors.OpenAI.OpenAIChatCompletionService[0]\n      Service request failed. Status: 400 (Bad Request)\n      Content: {\"error\":{\"message\":\"Invalid 'messages[0].content': string too long.\",\"type\":\"invalid_request_error\"}}", 400],
    ["2025-03-01T10:00:00.000Z ERROR [llm] status=404 model=gpt-6 msg=\"The model `gpt-6` does not exist\"", 404],
  ] as Array<[string, number | string]>)("%s", (text, want) => {
    const { f, c } = failure(text)
    if (typeof want === "number") expect(f.status).toBe(want)
    else expect(c.category).toBe(want)
  })
})

describe("multi-line records as SDKs and runtimes print them (made-up lines: openai-node, anthropic-python, Spring AI, LangChain, go-openai, an HTTP/2 dump, the Azure Java SDK)", () => {
  it.each([
    [`RateLimitError: 429 Rate limit reached for gpt-4o in organization org-x on tokens per min (TPM): Limit 30000, Used 29000, Requested 2000.
    at APIError.generate (/app/node_modules/openai/error.js:53:20)
    at OpenAI.makeStatusError (/app/node_modules/openai/core.js:293:33)
    at OpenAI.makeRequest (/app/node_modules/openai/core.js:337:30) {
  status: 429,
  headers: { 'x-ratelimit-limit-tokens': '30000' },
  request_id: 'req_abc',
  error: { message: 'Rate limit reached for gpt-4o', type: 'tokens', param: null, code: 'rate_limit_exceeded' },
  code: 'rate_limit_exceeded',
  param: null,
  type: 'tokens'
}`, 429, "rate_limit", "gpt-4o"],
    [`Traceback (most recent call last):
  File "/app/main.py", line 42, in handler
    resp = client.messages.create(model="claude-3-opus-20240229", max_tokens=1024, messages=msgs)
  File "/usr/local/lib/python3.11/site-packages/anthropic/_base_client.py", line 1058, in _request
    raise self._make_status_error_from_response(err.response) from None
anthropic.InternalServerError: Error code: 500 - {'type': 'error', 'error': {'type': 'api_error', 'message': 'Internal server error'}}`, 500, "server_error", "claude-3-opus-20240229"],
    [`org.springframework.ai.retry.NonTransientAiException: 401 - {
    "error": {
        "message": "Incorrect API key provided: sk-xxxx. You can find your API key at https://platform.openai.com/account/api-keys.",
        "type": "invalid_request_error",
        "param": null,
        "code": "invalid_api_key"
    }
}
	at org.springframework.ai.retry.RetryUtils$1.handleError(RetryUtils.java:63)
	at org.springframework.web.client.ResponseErrorHandler.handleError(ResponseErrorHandler.java:63)`, 401, "auth_key", null],
    [`2025-03-01 10:00:00 ERROR Failed to call LLM
Traceback (most recent call last):
  File "agent.py", line 88, in run
    out = llm.invoke(prompt)
  File "/site-packages/langchain_openai/chat_models/base.py", line 700, in _generate
    response = self.client.create(**payload)
openai.BadRequestError: Error code: 400 - {'error': {'message': "Invalid value for 'temperature': expected a number between 0 and 2.", 'type': 'invalid_request_error', 'param': 'temperature', 'code': 'invalid_value'}}`, 400, "invalid_request", null],
    [`panic: openai: error, status code: 503, status: 503 Service Unavailable, message: The server is overloaded or not ready yet.

goroutine 1 [running]:
main.main()
	/app/main.go:42 +0x1a5`, 503, "overload", null],
    [`HTTP/2 429
date: Sat, 01 Mar 2025 10:00:00 GMT
content-type: application/json
retry-after: 20
anthropic-ratelimit-requests-limit: 50

{"type":"error","error":{"type":"rate_limit_error","message":"Number of requests has exceeded your per-minute rate limit"}}`, 429, "rate_limit", null],
    [`Exception in thread "main" com.azure.core.exception.HttpResponseException: Status code 429, "{"error":{"code":"429","message": "Requests to the ChatCompletions_Create Operation under Azure OpenAI API version 2024-02-15-preview have exceeded token rate limit of your current OpenAI S0 pricing tier. Please retry after 2 seconds."}}"
	at com.azure.core.implementation.http.rest.RestProxyBase.instantiateUnexpectedException(RestProxyBase.java:347)`, 429, "rate_limit", null],
  ] as Array<[string, number, string, string | null]>)("%#: status, category and model", (text, status, category, model) => {
    const { f, c } = failure(text)
    expect(f.status).toBe(status)
    expect(c.category).toBe(category)
    if (model !== null) expect(f.model).toBe(model)
  })
})

describe("the rest of a multi-line record, when its message says little", () => {
  it("words on another line decide where the status table would: balance on a 500, a rate limit without a status", () => {
    const quota = failure(`[agent] request failed (attempt 2/5): APIError [HTTP 500]
    provider: acme-llm   model: acme-large
    detail: HTTP 500: your credit balance is too low to access the API`)
    expect(quota.f.status).toBe(500)
    expect(quota.c.category).toBe("quota")
    const limited = failure(`## Crash report
| Error Type | turn_failure |
| Model | acme-large |
Error: Too many requests in a short time, please slow down.
    at callModel (/app/dist/agent.js:120:11)`)
    expect(limited.c.category).toBe("rate_limit")
  })

  it("a 429 whose kind is named on another line", () => {
    const { c } = failure(`WARN llm client: HTTP 429 Too Many Requests
WARN llm client: limit reached: 60 requests per minute for this key`)
    expect(c.category).toBe("rate_limit")
    expect(c.rateLimitKind).toBe("RPM")
  })

  it("a stack frame's words do not decide (`at RateLimiter.acquire`)", () => {
    const { c } = failure(`ERROR call failed: HTTP 500 Internal Server Error
    at RateLimiter.acquire (/app/limits.js:10:3)
    at timeoutWrapper (/app/net.js:4:1)`)
    expect(c.category).toBe("server_error")
  })
})

describe("more wordings of statuses, bodies and limits", () => {
  it("a client's log of the exchange: `{status, body}` with the API's body as a JSON string", () => {
    const { f, c } = failure(
      `2025-05-01 09:00:01.200 [error] [Fetch] Error 401 from https://api.example-llm.com/v1/chat/completions {"status":401,"body":"{\\"error\\":{\\"message\\":\\"Invalid API key provided\\",\\"type\\":\\"invalid_request_error\\",\\"code\\":\\"invalid_api_key\\"}}"}`
    )
    expect(f.status).toBe(401)
    expect(f.code).toBe("invalid_api_key")
    expect(c.category).toBe("auth_key")
  })

  it("an unquoted model id before `not found`", () => {
    const { f, c } = failure(`ERROR gateway: upstream answered 404: {"code":"NOT_FOUND","message":"Model qwen3-max-preview not found"}`)
    expect(f.status).toBe(404)
    expect(c.category).toBe("model_not_found")
  })

  it("messages per hour is a request limit per hour", () => {
    expect(failure(`HTTP 429: {"detail":"You have hit the limit of 40 messages per hour. Try again later."}`).c.rateLimitKind).toBe("RPH")
  })

  it("an exhausted or used-up allocation is quota, and passes the pre-filter", () => {
    expect(failure("✕ [API Error: You have exhausted your monthly quota for this model.]").c.category).toBe("quota")
    expect(hasFailureSignal("7001: you have used up your free allocation of 1,000 credits")).toBe(true)
    expect(failure("7001: you have used up your free allocation of 1,000 credits").c.category).toBe("quota")
  })

  it("a missing token is a key problem", () => {
    expect(failure(`{'code': -1001, 'message': 'request to upstream failed: access token is missing', 'data': None}`).c.category).toBe("auth_key")
  })

  it("another API's failure in an LLM app's log (GitHub, Telegram) is not an LLM call; with an LLM host it is", () => {
    const github = parseRecord(`[ERRO] [updater:61]: request https://api.github.com/repos/acme/plugin/releases failed, status 403, body: {"message":"API rate limit exceeded for 10.0.0.1."}`)
    expect(github._tag).toBe("Ignored")
    const telegram = parseRecord(`ERROR bot: https://api.telegram.org/bot123:xxxx/sendMessage answered 429 Too Many Requests: retry after 5`)
    expect(telegram._tag).toBe("Ignored")
    const both = failure(`ERROR relay: https://api.openai.com/v1/chat/completions returned 429 Too Many Requests, then https://api.github.com/gists returned 200`)
    expect(both.c.category).toBe("rate_limit")
  })
})

describe("providers, statuses and wordings as applications print them (made-up lines)", () => {
  it("a provider label in key-value text names the provider (`provider=groq`, `Provider: minimax`)", () => {
    const groq = failure(`2025-06-01T10:00:00Z ERROR [llm] provider=groq model=llama-3.3-70b-versatile status=413 msg="Request too large for model in organization on tokens per minute (TPM): Limit 6000, Requested 9000"`)
    expect(groq.c.provider).toBe("groq")
    expect(groq.c.category).toBe("rate_limit")
    expect(groq.c.rateLimitKind).toBe("TPM")
    // a name that is no catalogue family is not a provider
    expect(failure(`ERROR provider=acme-internal status=503 msg="upstream unavailable"`).c.provider).toBeNull()
  })

  it("openai-node's `${status} ${message}` after an application's failure words", () => {
    const { f, c } = failure("Error calling deepseek-reasoner: 402 Insufficient Balance")
    expect(f.status).toBe(402)
    expect(c.category).toBe("quota")
    expect(failure("LLM request failed: 429 Rate limit reached for gpt-4o-mini in organization org-x on requests per min (RPM): Limit 3").f.status).toBe(429)
  })

  it("Ruby symbol hashes (`{:error=>{:code=>…}}`) are read like JSON", () => {
    const { f } = failure(`OpenAI::Errors::RateLimitError: status: 429, body: {:error=>{:message=>"Rate limit reached", :type=>"requests", :code=>"rate_limit_exceeded"}}`)
    expect(f.code).toBe("rate_limit_exceeded")
  })

  it("MiniMax's base_resp envelope tells MiniMax, and lower-case `insufficient balance` is not DeepSeek's", () => {
    const { c } = failure(`chat failed {"base_resp":{"status_code":1008,"status_msg":"insufficient balance"}}`)
    expect(c.category).toBe("quota")
    expect(c.provider).toBe("minimax")
  })

  it("LiteLLM's `<Provider>Exception - ` tells the provider", () => {
    expect(failure(`litellm.RateLimitError: RateLimitError: GroqException - {"error":{"message":"Rate limit reached for model","type":"tokens","code":"rate_limit_exceeded"}}`).c.provider).toBe("groq")
  })

  it("Chinese rate wording `请求频率超过限制`; an account that has not activated the model", () => {
    expect(failure("混元 API 错误: code:LimitExceeded message:您的账号请求频率超过限制").c.category).toBe("rate_limit")
    expect(failure("调用失败 Your account 2100000000 has not activated the model doubao-seed-1-6. Please activate the model service in the Ark Console.").c.category).toBe("permission")
  })
})

describe("statuses and names the fifth round of records showed (made-up lines)", () => {
  it("a line-start status before a lower-case failure, or before ` - {body}`; a sentence-start `413: Message`; `[503]:`", () => {
    expect(failure("502 upstream connect error or disconnect/reset before headers").f.status).toBe(502)
    expect(failure(`429 - "{\\"error\\":{\\"message\\":\\"Rate limit exceeded\\",\\"type\\":\\"new_api_error\\"}}"`).f.status).toBe(429)
    expect(failure("Error: null. 413: Maximum content size limit (26214400) exceeded").f.status).toBe(413)
    expect(failure("Gateway error: [acme/llama-4] [503]: Request dropped after the queue was full").f.status).toBe(503)
    // a count at a line's start is not a status
    expect(parseRecord("404 files processed in 3.2 s")._tag).toBe("Ignored")
  })

  it("tonic / grpc-go's CamelCase status before the message", () => {
    const { f, c } = failure("Agent failed: ResourceExhausted: local total request limit reached (33/32)")
    expect(f.errorType).toBe("RESOURCE_EXHAUSTED")
    expect(c.category).toBe("rate_limit")
  })

  it("rate wordings: request rate too high or rising too quickly", () => {
    expect(failure("✕ [API Error: Request rate increased too quickly. Please scale requests more smoothly.]").c.category).toBe("rate_limit")
    expect(failure(`error: "Your request rate is too high. Reduce the frequency of requests."`).c.category).toBe("rate_limit")
  })

  it("LM Studio's prompt-template failure in its server log is a failed call", () => {
    const { c } = failure(`2025-05-01 10:00:00 [INFO]
[LM STUDIO SERVER] Running chat completion on conversation with 3 messages.
2025-05-01 10:00:00 [ERROR]
Error rendering prompt with jinja template: "Unknown test: mapping".`)
    expect(c.provider).toBe("lmstudio")
    expect(c.decidedBy.name).toBe("lmstudio.prompt-template")
  })

  it("a model file from the Hugging Face Hub is not an inference call; the Inference API is", () => {
    expect(parseRecord("requests.exceptions.HTTPError: 429 Client Error: Too Many Requests for url: https://huggingface.co/acme/model-7b/resolve/main/tokenizer.json")._tag).toBe("Ignored")
    expect(failure("requests.exceptions.HTTPError: 429 Client Error: Too Many Requests for url: https://api-inference.huggingface.co/models/acme/model-7b").f.status).toBe(429)
  })
})

describe("the sixth round of records (made-up lines of their shapes)", () => {
  it("Spring's `I/O error on POST request for \"<url>\"` and plenary's `curl error exit_code=` are transport failures", () => {
    expect(failure(`org.springframework.web.client.ResourceAccessException: I/O error on POST request for "https://api.example-llm.com/v1/chat/completions": Read timed out`).c.category).toBe("transport")
    expect(failure(`Error: { message = "post https://api.example-llm.com/v1/messages - curl error exit_code=28 stderr={}" }`).c.category).toBe("transport")
  })

  it("FastAPI's detail object and an error's statusCode are the body and its status", () => {
    const fast = failure(`{"detail": {"code": 429, "msg": "Rate limit exceeded for this key"}}`)
    expect(fast.f.status).toBe(429)
    expect(fast.c.category).toBe("rate_limit")
    expect(failure(`chat failed: {"error":{"message":"Conversation not found","statusCode":404,"code":"conversation_not_found"}}`).f.status).toBe(404)
  })

  it("retries that ended in a success are no failed call; retries that ended in a failure are", () => {
    const ok = `2025-09-05 15:26:55,667 - INFO - HTTP Request: POST https://api.example-llm.com/v1/chat/completions "HTTP/1.1 503 Service Unavailable"
2025-09-05 15:26:55,668 - INFO - Retrying request to /chat/completions in 0.5 seconds
2025-09-05 15:26:57,001 - INFO - HTTP Request: POST https://api.example-llm.com/v1/chat/completions "HTTP/1.1 200 OK"`
    expect(parseRecord(ok)._tag).toBe("Ignored")
    const bad = `2025-09-05 15:26:55,667 - INFO - HTTP Request: POST https://api.example-llm.com/v1/chat/completions "HTTP/1.1 200 OK"
2025-09-05 15:26:57,001 - INFO - HTTP Request: POST https://api.example-llm.com/v1/chat/completions "HTTP/1.1 503 Service Unavailable"`
    expect(failure(bad).f.status).toBe(503)
  })

  it("OpenAI's billing dashboard is not an LLM call", () => {
    expect(parseRecord(`[ERROR] balance: API request failed with status code 403: {"error": {"message": "Your request to GET /dashboard/billing/subscription must be made with a session key"}}`)._tag).toBe("Ignored")
  })

  it("per-minute rate wording and `no permission to access`", () => {
    const cf = failure("3021: rate limiting: inference request per min rate reached")
    expect(cf.c.category).toBe("rate_limit")
    expect(cf.c.rateLimitKind).toBe("RPM")
    expect(failure(`{'error_code': 6, 'error_msg': 'No permission to access data'}`).c.category).toBe("permission")
  })
})

describe("a quoted model name with spaces", () => {
  it("is read to its closing quote; an unquoted one stops at the space", () => {
    expect(failure(`HTTP/1.1 404 Not Found\n\n{"model": "My Fine Tune v2", "error": {"message": "The model does not exist", "code": "model_not_found"}}`).f.model).toBe("My Fine Tune v2")
    expect(failure(`ERROR model=gpt-4o-mini status=429 msg="Rate limit reached"`).f.model).toBe("gpt-4o-mini")
  })
})

describe("the seventh round of records (made-up lines of their shapes)", () => {
  it("Dify's PluginInvokeError: the upstream's error text in args.description, the wrapper's message cut", () => {
    const { f, c } = failure(`[openai_api_compatible] Error: PluginInvokeError: {"args":{"description":"[models] Error: API request failed with status code 429: {\\"error_msg\\":\\"Too many requests, limit 60 per minute\\",\\"error_code\\":\\"GW.429\\"}\\n"},"error_type":"InvokeError","message":"[models] Error: API request failed with status cod`)
    expect(f.status).toBe(429)
    expect(f.code).toBe("GW.429")
    expect(c.category).toBe("rate_limit")
  })

  it("a router's `[provider/model] [503]:` names the model after the provider", () => {
    expect(failure("Reason: gateway error: [acme/llama-4-maverick] [503]: upstream queue full").f.model).toBe("llama-4-maverick")
    expect(failure("Reason: gateway error: [nim/meta/llama-4-scout] [429]: slow down").f.model).toBe("meta/llama-4-scout")
  })
})

describe("the ninth round of records (made-up lines of their shapes)", () => {
  it("Java's uncaught exception in a thread, about a Chinese model by its product name, is a failed call", () => {
    const { c } = failure(`Exception in thread "OkHttp Dispatcher" com.example.spark.SparkException: 星火api调用异常：内容审核不通过\n\tat com.example.spark.Listener.onFailure(Listener.java:52)`)
    expect(["invalid_request", "unknown"]).toContain(c.category)
  })

  it("a code glued to its message after `Error: `, and the DashScope SDK's `Code: N, status: <code>`", () => {
    const minimax = failure("tts call failed: API Error: 1008-insufficient balance Trace-Id: 0a1b2c3d4e5f")
    expect(minimax.f.code).toBe(1008)
    expect(minimax.c.category).toBe("quota")
    const dash = failure("Code: 429, status: Throttling.RateQuota, message: Requests rate limit exceeded, please try again later.")
    expect(dash.f.status).toBe(429)
    expect(dash.f.code).toBe("Throttling.RateQuota")
    expect(dash.c.category).toBe("rate_limit")
  })

  it("a code the excerpt cuts off is no code; a cut message is still the message", () => {
    const { f, c } = failure(`openai.RateLimitError: Error code: 429 - {'error': {'message': 'You exceeded your current quota, please check', 'type': 'insufficient_quota', 'code': 'insuf`)
    expect(f.code).toBeNull()
    expect(f.message).toBe("You exceeded your current quota, please check")
    expect(c.category).toBe("quota")
    const cut = failure(`openai.PermissionDeniedError: Error code: 403 - {'error': {'message': 'The free quota has been exhausted.', 'type': 'FreeTierOnly', 'param': None, 'code': 'Fr`)
    expect(cut.f.code).toBeNull()
    expect(cut.c.category).toBe("quota")
  })

  it("Java's EOFException after an answer that began well is a transport failure", () => {
    expect(failure(`com.example.llm.ApiException: {"statusCode":200,"message":"","code":"response_error"}\nCaused by: java.io.EOFException`).c.category).toBe("transport")
  })

  it("the model in a legacy engines path is the slot's, whatever it looks like", () => {
    expect(failure("[error] request failed: 401\n[error] callback: https://api.openai.com/v1/engines/curie/completions").f.model).toBe("curie")
  })

  it("a Redis service's daily limit (Upstash) is not the LLM API's", () => {
    expect(parseRecord("Error: ERR max requests limit exceeded. Limit: 500000, Usage: 500000. See https://upstash.com/docs/redis/troubleshooting/max_requests_limit for details")._tag).toBe("Ignored")
  })
})

describe("the tenth round of records (made-up lines of their shapes)", () => {
  it("Cloudflare's envelope: the first of its `error` / `errors` array is the body", () => {
    const { f } = failure(`{"success":false,"result":null,"messages":[],"errors":[{"code":10000,"message":"Authentication error"}]}`)
    expect(f.code).toBe(10000)
    expect(f.message).toBe("Authentication error")
  })

  it("`Invalid argument: 400 <Message>` (a gRPC-style wrapper) gives the status", () => {
    expect(failure(`err: { "type": "AdapterError", "message": "Invalid argument: 400 Request contains an invalid argument." }`).f.status).toBe(400)
  })

  it("an unsupported feature of the model is an invalid request", () => {
    expect(failure("Error [AI_APICallError]: some-reasoner does not support tools").c.category).toBe("invalid_request")
  })

  it("prose's `in your message: <id>` is not the message", () => {
    const { f, c } = failure("fatal error: ErrorFrame(error: The server had an error while processing your request. Please include the request ID in your message: req_123abc. Retry., fatal: True)")
    expect(f.message).not.toMatch(/^req_123abc/)
    expect(c.category).toBe("server_error")
  })

  it("`Invalid Token` (a relay's key check) and `Unauthenticated request` are a broken key; a JSON parser's invalid token is no failed call", () => {
    expect(failure("AI_APICallError: Invalid Token (request id: 2026031811022825780481)").c.category).toBe("auth_key")
    expect(failure("Error [GatewayAuthenticationError]: Unauthenticated request to AI Gateway.").c.category).toBe("auth_key")
    expect(parseRecord("SyntaxError: Unexpected token < in JSON at position 0 (invalid token in JSON)")._tag).toBe("Ignored")
  })

  it("requests' HTTPSConnectionPool timeout is an HTTP client's transport failure, whatever the host", () => {
    expect(failure("WARNING:root:Request timed out: HTTPSConnectionPool(host='relay.example.cn', port=443): Read timed out. (read timeout=40.0)").c.category).toBe("transport")
  })

  it("urllib3's `Max retries exceeded with url:` and its NameResolutionError are transport failures", () => {
    expect(failure(`Max retries exceeded with url: /v1/chat/completions (Caused by NameResolutionError("<urllib3.connection.HTTPSConnection object at 0x7f>: Failed to resolve 'llm.internal'"))`).c.category).toBe("transport")
  })
})

describe("the eleventh round of records (made-up lines of their shapes)", () => {
  it("a source file's line number is no status; the access line's is", () => {
    const { f, c } = failure(`Jan 02 10:00:00 host ollama[1]: 2024/01/02 10:00:00 server.go:503: error loading model: out of memory\nJan 02 10:00:00 host ollama[1]: [GIN] 2024/01/02 - 10:00:00 | 500 |  1.2s |  127.0.0.1 | POST     "/api/chat"`)
    expect(f.status).toBe(500)
    expect(c.category).toBe("server_error")
  })

  it("the Responses API's response.failed event: its error is the body", () => {
    const { f, c } = failure(`{"type":"response.failed","response":{"id":"resp_1","status":"failed","model":"gpt-x","error":{"code":"rate_limit_exceeded","message":"Rate limit reached for requests"}}}`)
    expect(f.code).toBe("rate_limit_exceeded")
    expect(f.model).toBe("gpt-x")
    expect(c.category).toBe("rate_limit")
  })

  it("an LLM client's exception class in the middle of a line is a failed call", () => {
    expect(parseRecord(`Retrying after failure: com.example.openai.OpenAiHttpException: {"detail":"Not Found"}`)._tag).toBe("Failure")
  })

  it("`529 Overloaded`, an error's `http_status_code`, and an interrupted stream's wording", () => {
    expect(failure("API Error: 529 Overloaded after 10 retries").f.status).toBe(529)
    expect(failure(`{"error": {"message": "Input validation error: inputs must be <= 4096 tokens", "http_status_code": 422}}`).f.status).toBe(422)
    expect(failure("chat call failed: peer closed connection without sending complete message body (incomplete chunked read)").c.category).toBe("transport")
    expect(failure("Gemini error: User location is not supported for the API use.").c.category).toBe("permission")
  })

  it("Spring AI Alibaba's `[Code] <status> message`", () => {
    const { f, c } = failure("com.alibaba.cloud.ai.dashscope.common.DashScopeException: [Throttling.RateQuota] <429> Requests rate limit exceeded, please try again later. (requestId: 0a1b)")
    expect(f.code).toBe("Throttling.RateQuota")
    expect(f.status).toBe(429)
    expect(c.category).toBe("rate_limit")
  })

  it("tiktoken's `model not found. Using cl100k_base encoding` is a warning, not the failure", () => {
    const { c } = failure("WARNING: Warning: model not found. Using cl100k_base encoding.\nINFO: Retrying request to /chat/completions in 0.8 seconds\nERROR: Connection error.\nopenai.APIConnectionError: Connection error.")
    expect(c.category).toBe("transport")
  })

  it("the model in the Inference API's URL, in `ollama run <model>` and in `request to '<model>'`", () => {
    expect(failure("429 Client Error: Too Many Requests for url: https://api-inference.huggingface.co/models/acme/tiny-bert").f.model).toBe("acme/tiny-bert")
    expect(failure("$ ollama run hf.co/acme/tiny-gguf:Q4_K_M\nError: 500 Internal Server Error: unable to load model").f.model).toBe("hf.co/acme/tiny-gguf:Q4_K_M")
    expect(failure("ERROR: Error while sending chat request to 'imagen-3.0-generate-002': 400 Bad Request").f.model).toBe("imagen-3.0-generate-002")
  })

  it("a self-hosted server that cannot load its model, and Windows' forcibly closed connection", () => {
    const oom = failure(`Jan 02 10:00:00 gpu ollama[1]: ERROR [load_model] unable to load model | model="/var/lib/ollama/models/blobs/sha256-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"`)
    expect(oom.c.category).toBe("server_error")
    expect(oom.f.model).toBeNull()
    expect(failure(`Error: Post "http://127.0.0.1:11434/api/chat": read tcp 127.0.0.1:5->127.0.0.1:11434: wsarecv: An existing connection was forcibly closed by the remote host.`).c.category).toBe("transport")
  })

  it("a UUID in a models path is no model", () => {
    expect(failure("HTTPConnectionPool(host='127.0.0.1', port=9997): Max retries exceeded with url: /v1/models/dc8806e0-a2d5-11ee-a945-af9ec0ae1fcf (Caused by NewConnectionError('Connection refused'))").f.model).toBeNull()
  })

  it("a client that cannot connect to the API, and a relay's `token expired or incorrect`", () => {
    expect(failure("Internal error: API Error: Unable to connect to API (ConnectionRefused)").c.category).toBe("transport")
    expect(failure("Error: token expired or incorrect").c.category).toBe("auth_key")
  })

  it("Starlette's `500: <detail>` around the upstream's own status: the later status is the call's", () => {
    const inner = failure(`{"detail": "500: Error code: 400 - {'error': {'message': 'Unsupported parameter: temperature', 'type': 'invalid_request_error', 'code': 'unsupported_parameter'}}"}`)
    expect(inner.f.status).toBe(400)
    expect(inner.c.category).toBe("invalid_request")
    expect(failure("500: An error occurred while streaming the response: 429 Too Many Requests.").f.status).toBe(429)
    expect(failure("413: Maximum content size limit exceeded").f.status).toBe(413)
    expect(parseRecord(`{"detail": "processing finished"}`)._tag).toBe("Ignored")
  })

  it("openai-node's `${status} ${message}` with a lower-case message that says what failed", () => {
    expect(failure("401 token expired or incorrect").f.status).toBe(401)
    expect(failure("403 access to this model is not allowed for your group").c.category).toBe("permission")
    expect(parseRecord("500 items were processed")._tag).toBe("Ignored")
  })

  it("an application's own access line under the call's failure does not give the status", () => {
    const { f, c } = failure(`调用 OpenAI API 时出错: Error code: 401 - {'message': "HMAC signature cannot be verified"}\nINFO:     127.0.0.1:21222 - "POST /api/tasks/generate HTTP/1.1" 500 Internal Server Error`)
    expect(f.status).toBe(401)
    expect(c.category).toBe("auth_key")
    // with no other status in the record, the access line still gives it
    expect(failure(`2024-05-01 10:00:00 ERROR upstream failed\n10.0.0.1 - - [05/Mar/2025 06:06:03] "POST /v1/chat/completions HTTP/1.1" 429 -`).f.status).toBe(429)
  })

  it("text after a pasted JSON body is read; Go's `Post \"<url>\": EOF` is a transport failure", () => {
    expect(failure(`{"error":{"message":"Invalid Authentication","type":"invalid_authentication_error"}}\nHTTP_CODE:401`).f.status).toBe(401)
    expect(failure(`E 2023/09/18 21:54:56 openai.go:54: create chat completion failed: Post "https://relay.example/v1/chat/completions": EOF`).c.category).toBe("transport")
  })

  it("an LLM call's failure in an application's words, English and Chinese", () => {
    expect(parseRecord("Model Request failed. Please try again later. (4054)")._tag).toBe("Failure")
    expect(parseRecord("2023/02/01 23:45:07 ChatGPT 请求失败 请稍后重试.")._tag).toBe("Failure")
    expect(failure("调用AI生成标准时出错: Request timed out.").c.category).toBe("transport")
    expect(failure("03:26:42 - openhands:ERROR: session.py:349 - Agent status error: STATUS$ERROR_LLM_AUTHENTICATION").c.category).toBe("auth_key")
  })

  it("a redaction placeholder as a JSON value, a reason phrase before `(400)`, DeepSeek's `but you passed <model>`", () => {
    const redacted = failure(`{\n  "error": {\n    "code": <NUM>,\n    "message": "User location is not supported for the API use.",\n    "status": "FAILED_PRECONDITION"\n  }\n}`)
    expect(redacted.c.category).toBe("permission")
    const goose = failure("Request failed: Bad request (400): The supported API model names are deepseek-v4-pro or deepseek-v4-flash, but you passed deepseek-chat.")
    expect(goose.f.status).toBe(400)
    expect(goose.f.model).toBe("deepseek-chat")
    expect(failure("Provider error: Too many requests (429): slow down").f.status).toBe(429)
  })

  it("a Lua table (Neovim's vim.inspect) and an NSDictionary description are bodies; OkHttp's Response{code=…} is not", () => {
    const lua = failure(`Error: {\n  code = "rate_limit_exceeded",\n  message = "Rate limit reached for gpt-4o-mini in organization org-x on requests per min (RPM): Limit 3, Used 3, Requested 1.",\n  param = vim.NIL,\n  type = "requests"\n}`)
    expect(lua.f.code).toBe("rate_limit_exceeded")
    expect(lua.c.rateLimitKind).toBe("RPM")
    const ns = failure(`["error": {\n    code = "<null>";\n    message = "The server had an error while processing your request.";\n    type = "server_error";\n}]`)
    expect(ns.f.code).toBeNull()
    expect(ns.c.category).toBe("server_error")
    const okhttp = failure("java.io.IOException: Unexpected response code: Response{protocol=h2, code=400, message=, url=https://api.example.com/v1/chat/completions}")
    expect(okhttp.f.status).toBe(400)
    expect(okhttp.f.code).toBeNull()
  })

  it("an OpenAI-style code and type in parentheses after the message (Goose)", () => {
    const { f } = failure("Request failed: The specified model is not enabled for this mode or does not exist (code: bad_request, type: invalid_request_error) (status 400).")
    expect(f.code).toBe("bad_request")
    expect(f.status).toBe(400)
  })

  it("context-length wordings without a status are invalid requests (SiliconFlow's max_seq_len, Anthropic's prompt is too long)", () => {
    expect(failure(`{"code":20015,"message":"length of prompt_tokens (40000) must be less than max_seq_len (32768).","data":null}`).c.category).toBe("invalid_request")
    expect(failure("anthropic.BadRequestError: prompt is too long: 210000 tokens > 200000 maximum").c.category).toBe("invalid_request")
  })

  it("a wrapper's line-start status gives way to the upstream's named after it; a number HTTP does not have needs a status word", () => {
    const azure = failure("400 An error occurred when calling Azure OpenAI: Server responded with status 429. Error message: {\"error\":{\"code\":\"429\",\"message\": \"Rate limit is exceeded. Try again in 2 seconds.\"}}")
    expect(azure.f.status).toBe(429)
    expect(azure.c.category).toBe("rate_limit")
    const doc = failure("error generating suggestions for document 441: Document 441: error getting response from LLM: all retry attempts failed, last error: API returned unexpected status code: 429: Your requests to gpt-4.1-nano have exceeded the token rate limit. Please retry after 45 seconds.")
    expect(doc.f.status).toBe(429)
    expect(failure("upstream returned status 441 for the request").f.status).toBe(441)
  })

  it("Envoy's JSON access log (Istio, Higress): the status under response_code", () => {
    const { f, c } = failure(`{"authority":"aigw.local","method":"POST","path":"/v1/chat/completions","protocol":"HTTP/1.1","response_code":"503","response_flags":"NC","upstream_host":"-"}`)
    expect(f.status).toBe(503)
    expect(c.category).toBe("overload")
  })

  it("OpenAI's billing hard limit and organization verification wordings; a relay's bare `401 (request id: …)`", () => {
    expect(failure("generate wallpaper failed:  sE [Error]: 400 Billing hard limit has been reached").c.category).toBe("quota")
    expect(failure(`{"error": {"message": "Your organization must be verified to use the model \`gpt-image-1\`.", "type": "invalid_request_error"}}`).c.category).toBe("permission")
    expect(failure("[Error] Embedding Error\n{\nmessage: '401 (request id: 202411231141364118978567JpXGoQl)',\nstack: 'Error: 401 (request id: 202411231141364118978567JpXGoQl)'\n}").f.status).toBe(401)
  })

  it("near misses: a versioned path of some other API, a GitHub REST error body, the Hugging Face Hub's metadata API", () => {
    expect(parseRecord("2024-08-01 04:23:36.846 ERROR (MainThread) [homeassistant.components.google_assistant.http] Request for https://homegraph.googleapis.com/v1/devices:requestSync failed: 500")._tag).toBe("Ignored")
    expect(parseRecord(`FAILED tests/test_utils.py::test_issue - fastcore.net.HTTP403ForbiddenError: HTTP Error 403: rate limit exceeded\n{"message":"API rate limit exceeded for 52.234.33.177.","documentation_url":"https://docs.github.com/rest/overview/resources-in-the-rest-api#rate-limiting"}`)._tag).toBe("Ignored")
    expect(parseRecord(`2026-01-12 19:06:28,616 - DEBUG - https://huggingface.co:443 "GET /api/models/acme/tiny/revision/main HTTP/1.1" 404 32`)._tag).toBe("Ignored")
    // the LLM endpoints themselves still are calls
    expect(failure("Request for https://api.example.com/v1/chat/completions failed: 500").f.status).toBe(500)
    expect(failure(`2026-01-12 19:06:28,616 - DEBUG - https://router.huggingface.co:443 "POST /v1/chat/completions HTTP/1.1" 429 32`).f.status).toBe(429)
  })

  it("Alamofire's unacceptable status, a Chinese message after `NNN: ` or after 出错:, Claude's `You've hit your limit`", () => {
    expect(failure(`Fatal error: CleverBird.CleverBirdError.requestFailed(message: "Response status code was unacceptable: 404.")`).f.status).toBe(404)
    expect(failure("500: 当前API请求过多，请稍后重试。").f.status).toBe(500)
    expect(failure("一句话决策: 分析过程出错: 429 You exceeded your current quota, please check your plan and billing details.").f.status).toBe(429)
    expect(failure(`Review agent errored (is_error=true); NO review was posted.\ndetail="You've hit your limit · resets 4am (UTC)" num_turns=1`).c.category).toBe("rate_limit")
  })

  it("Chromium's net:: errors are transport failures, but a console line alone is no API call", () => {
    expect(failure("Chat request to https://api.openai.com/v1/chat/completions failed: net::ERR_CONNECTION_CLOSED").c.category).toBe("transport")
    expect(parseRecord("Failed to load resource: net::ERR_CONNECTION_CLOSED")._tag).toBe("Ignored")
  })

  it("models with an @: Cloudflare's `@cf/…` on a Model: line, Vertex's `claude-3-5-haiku@20241022`; AWS's `Value '…' at 'modelId'`", () => {
    expect(failure("Provider: cloudflare-ai\nModel: @cf/zai-org/glm-5.2\nError: HTTP 502: Bad gateway").f.model).toBe("@cf/zai-org/glm-5.2")
    expect(failure("post https://europe-west1-aiplatform.googleapis.com/v1/projects/p/locations/europe-west1/publishers/anthropic/models/claude-3-5-haiku@20241022:streamRawPredict failed with status 429").f.model).toBe("claude-3-5-haiku@20241022")
    expect(failure("Error invoking the model: ValidationException: 1 validation error detected: Value 'anthropic.claude-v2:0:100k' at 'modelId' failed to satisfy constraint").f.model).toBe("anthropic.claude-v2:0:100k")
  })

  it("client timeouts and closed connections as Go, OkHttp and worker pools word them", () => {
    expect(failure("[NodeRunError] failed to generate summary: failed to create chat completion: EOF\nnode path: [node_1, ChatModel]").c.category).toBe("transport")
    expect(failure("WARN: Exception was thrown on attempt 1 of 3: java.lang.RuntimeException: java.io.InterruptedIOException: timeout\n\tat dev.langchain4j.model.openai.OpenAiChatModel.generate(OpenAiChatModel.java:124)").c.category).toBe("transport")
    expect(failure("ERROR: Failed to extract entities: LLM func: Worker execution timeout after 1200s").c.category).toBe("transport")
  })

  it("DashScope: the exception's [Code] without a status, and the `<400>` opening its messages", () => {
    const ex = failure("com.alibaba.cloud.ai.dashscope.common.DashScopeException: [InvalidParameter] url error, please check url！ (requestId: 44ca5f7e)")
    expect(ex.f.code).toBe("InvalidParameter")
    expect(ex.c.category).toBe("invalid_request")
    expect(failure(`dev.langchain4j.exception.InvalidRequestException: {"error":{"code":"invalid_parameter_error","message":"<400> InternalError.Algo.InvalidParameter: The parameter must be in JSON format.","type":"invalid_request_error"}}`).f.status).toBe(400)
  })

  it("Tencent Cloud's SDK exception gives its code; the code alone makes no failed LLM call", () => {
    const hunyuan = failure(`Run failed: [hunyuan] Error: PluginInvokeError: {"args":{"description":"[models] None, [TencentCloudSDKException] code:InvalidParameter message:Messages 以 user（tool）提问结束 requestId:940cf3c8"},"error_type":"InvokeError"}`)
    expect(hunyuan.f.code).toBe("InvalidParameter")
    expect(hunyuan.c.category).toBe("invalid_request")
    expect(parseRecord("tencentcloud.common.exception.tencent_cloud_sdk_exception.TencentCloudSDKException: [TencentCloudSDKException] code:FailedOperation message:翻译失败 requestId:bc0e30fe")._tag).toBe("Ignored")
  })

  it("near misses: the web-search and translation APIs agents call besides the model", () => {
    expect(parseRecord(" Error during web search: 429 Client Error: Too Many Requests for url: https://serpapi.com/search?q=weather&num=50&output=json")._tag).toBe("Ignored")
    expect(parseRecord("Error: 429 Client Error: Too Many Requests for url: https://api.tavily.com/search. Failed fetching sources.")._tag).toBe("Ignored")
    expect(failure("429 Client Error: Too Many Requests for url: https://api.openai.com/v1/chat/completions").f.status).toBe(429)
  })

  it("a status after Japanese or Korean failure words and a colon; a client's `auth error code: <code>`", () => {
    expect(failure("분석 중 오류 발생: 429 You exceeded your current quota, please check your plan and billing details.").f.status).toBe(429)
    expect(failure("AI生成エラー: 429 You exceeded your current quota, please check your plan and billing details.").f.status).toBe(429)
    expect(failure("Unexpected status 401 Unauthorized: Incorrect API key provided, url: https://api.openai.com/v1/responses, auth error: 401, auth error code: invalid_api_key").f.code).toBe("invalid_api_key")
  })

  it("SiliconFlow's English real-name wording and MiniMax's request timeout code", () => {
    expect(failure("ERROR - Error code: 403 - RPM limit exceeded. Please complete identity verification to lift the restriction.").c.category).toBe("auth_realname")
    expect(failure(`Error: {"base_resp":{"status_code":1001,"status_msg":"request timeout, please try again later"}}`).c.category).toBe("overload")
  })

  it("failures in the middle of a stream, and websockets that close or never open", () => {
    expect(failure("deepseek-flash: read stream: unexpected EOF").c.category).toBe("transport")
    expect(failure("■ stream disconnected before completion: stream closed before response.completed").c.category).toBe("transport")
    expect(failure("2026-07-15T19:59:48.773Z [INFO][deepseek] invokeStream: model=deepseek-v4-flash\n2026-07-15T20:00:29.605Z [ERROR][deepseek] Provider error: terminated").c.category).toBe("transport")
    expect(failure(`Error: {"type":"error",...,"type":"overloaded_error",...}\n    at Stream.iterator (@anthropic-ai/sdk/core/streaming.mjs:62)`).c.category).toBe("overload")
    expect(failure("WebSocket connection to 'wss://api.openai.com/v1/realtime?model=gpt-4o-realtime-preview' failed: \nWebSocket is closed before the connection is established.").c.category).toBe("transport")
    expect(failure("INFO:server:Error processing 1 Gemini message: received 1011 (internal error) The service is currently unavailable.").c.category).not.toBe("unknown")
    expect(failure("ERROR - Gemini live session failed: sent 1007 (invalid frame payload data) invalid continuation byte; no close frame received").c.category).toBe("transport")
    expect(failure("model claude-haiku-4-5-20251001 is not supported").c.category).toBe("model_not_found")
  })

  it("a Bedrock model named by its ARN, a sample config's placeholder, DashScope's SSE `HTTP_STATUS/429` line", () => {
    expect(failure("ValidationException: The provided model identifier is invalid: arn:aws:bedrock:us-east-1::foundation-model/amazon.titan-embed-text-v1").f.model ?? "").not.toContain("arn:aws")
    expect(failure(`{"error":{"message":"Invalid model","type":"invalid_request_error"},"model":"MODEL_ID_GOES_HERE"}`).f.model).toBeNull()
    expect(failure(`id:1\nevent:error\nHTTP_STATUS/429 TOO_MANY_REQUESTS\ndata:{"code":"Throttling.AllocationQuota","message":"Free allocated quota exceeded.","request_id":"a734"}`).f.status).toBe(429)
  })

  it("an OpenAI object that failed on the service's side: its last_error is the error body", () => {
    const { f, c } = failure(`{\n  "id": "file-hAV",\n  "object": "vector_store.file",\n  "status": "failed",\n  "last_error": {\n    "code": "unsupported_file",\n    "message": "The file type is not supported."\n  }\n}`)
    expect(f.code).toBe("unsupported_file")
    expect(["invalid_request", "unknown"]).toContain(c.category)
    expect(parseRecord(`{"object": "vector_store.file", "status": "completed", "last_error": null}`)._tag).toBe("Ignored")
  })

  it("an application's `Error from OpenAI: <message>` is a failed call", () => {
    expect(parseRecord("Error from OpenAI: Your session hit the maximum duration of 30 minutes.")._tag).toBe("Failure")
    expect(parseRecord("Error from the database: connection pool exhausted")._tag).toBe("Ignored")
  })

  it("claude-code-router's `Error from provider(<name>,<model>: 400): {…}`", () => {
    expect(failure(`Error from provider(yinli,claude-sonnet-4-5: 400): {"error":{"type":"invalid_request_error","message":"tools.0: Input tag 'function' does not match"}}`).f.status).toBe(400)
  })

  it("embedding and rerank models standing alone: BAAI's bge, sentence-transformers, jina", () => {
    expect(failure("Embed Model :  SiliconFlow - BAAI/bge-large-en-v1.5\n[ERROR]Embedding error:Error code: 400 - {'code': 20012, 'message': 'Model does not exist. Please check it carefully.', 'data': None}").f.model).toBe("BAAI/bge-large-en-v1.5")
    expect(failure("rerank failed with bge-reranker-v2-m3: Error code: 503 - {'message': 'busy'}").f.model).toBe("bge-reranker-v2-m3")
  })

  it("a model labelled in Japanese or Korean", () => {
    expect(failure("**エラー**: `Gemini API error: The model is overloaded. Please try again later.`\n**モデル**: `google/gemini-2.5-flash-preview-09-2025`").f.model).toBe("google/gemini-2.5-flash-preview-09-2025")
    expect(failure("요청 실패: 429 Too Many Requests\n모델: gpt-4o-mini").f.model).toBe("gpt-4o-mini")
  })

  it("a wrapper object around the upstream's answer: `http_code`, the answer kept as text, a sole key holding the rest", () => {
    const { f, c } = failure(`{"response":{"error":"API请求失败","http_code":429,"response":"{\\"code\\":700002,\\"message\\":\\"用户请求TPM超限,请减少tokens后重试\\"}"}}`)
    expect(f.status).toBe(429)
    expect(f.code).toBe(700002)
    expect(c.rateLimitKind).toBe("TPM")
  })

  it("a log platform's flattened keys (`fields.err.message`) read as the nested record they were", () => {
    const { f, c } = failure(`{"_time":"2026-09-07T16:40:46.612Z","level":"warn","message":"Title generation failed","fields.err.message":"OpenRouter request failed: 429","fields.err.name":"OpenRouterRequestError"}`)
    expect(f.status).toBe(429)
    expect(c.category).toBe("rate_limit")
  })

  it("a status in a Chinese key | value table, after a full stop at a line's start; a model labelled `模型 ID`", () => {
    const { f } = failure("方法 | POST\nURL | /v1/chat/completions\n状态码 | 400\n模型 ID | deepseek-chat")
    expect(f.status).toBe(400)
    expect(f.model).toBe("deepseek-chat")
    expect(failure("500. do_request_failed err :invalid character (request id:20240505072910994103194ABCDEF)").f.status).toBe(500)
  })

  it("capacity, credits and key wordings without a status; Go's cancelled request", () => {
    expect(failure("stream error: We're currently experiencing high demand, which may cause temporary errors.").c.category).toBe("overload")
    expect(failure("The model you've selected is experiencing a high volume of traffic. Try changing the model.").c.category).toBe("overload")
    expect(failure("Failed to perform inference: You have depleted your monthly included credits.").c.category).toBe("quota")
    expect(failure(`chat error { message: '{"errorType":"InvalidProviderAPIKey"}' }`).c.category).toBe("auth_key")
    expect(failure("InvokeModel: operation error Bedrock Runtime: InvokeModel, request canceled, context canceled").c.category).toBe("transport")
    expect(parseRecord("job 42: request canceled, context canceled")._tag).toBe("Ignored")
  })

  it("the status an HTTP client or SDK prints for the answer it got wins over a wrapper's own", () => {
    expect(failure(`letta_client.core.api_error.ApiError: status_code: 500, body: {'detail': "Client error '404 Not Found' for url 'http://localhost:11434/models'"}`).f.status).toBe(404)
    expect(failure("HTTP/1.1 400 Bad Request\nServer: Kestrel\n\nAccess denied\nStatus: 401 (Unauthorized)\nErrorCode: invalid_organization\nContent:\n{}").f.status).toBe(401)
    const aws = failure("[ERROR] relay | respErr: &{Error:{Message:InvokeModel: operation error Bedrock Runtime: InvokeModel, https response error StatusCode: 400, RequestID: 4471a513, ValidationException: The provided model identifier is invalid.} StatusCode:500}")
    expect(aws.f.status).toBe(400)
    expect(aws.c.category).toBe("model_not_found")
  })

  it("models: past a first `model=None`, in a Hugging Face pipeline URL, OpenAI's image and speech families", () => {
    expect(failure("[proxy] chat: model=None stream=False\n[proxy] request error: model=hy4-preview status=400 msg=bad request").f.model).toBe("hy4-preview")
    expect(failure("HfHubHTTPError: 429 Client Error: Too Many Requests for url: https://api-inference.huggingface.co/pipeline/feature-extraction/sentence-transformers/all-MiniLM-L6-v2").f.model).toBe("sentence-transformers/all-MiniLM-L6-v2")
    expect(failure("2024-10-22 18:52:40 error: [DALL-E-3] Problem generating the image: 400 This request has been blocked by our content filters.").f.model).toBe("DALL-E-3")
  })

  it("a project's enforced spend limit, a hosted model's queue, a client's `Timeout from <url>`", () => {
    expect(failure("Error: Your project has reached its configured enforced spend limit. Update your limit at https://platform.openai.com/settings/proj_x/limits.").c.category).toBe("quota")
    expect(failure("Too many current requests. Your queue position is 14. Please wait for a while or switch to other models.").c.category).toBe("overload")
    expect(failure("04:17:39 | WARNING | Timeout from http://ollama-server-1:11434/api/generate").c.category).toBe("transport")
  })

  it("FastChat's worker answer in place of a stream chunk is a failed call with its code", () => {
    const { f } = failure(`{"text": "NETWORK ERROR DUE TO HIGH TRAFFIC. PLEASE REGENERATE OR REFRESH THIS PAGE.\\n\\n(CUDA out of memory.)", "error_code": 50002}`)
    expect(f.code).toBe(50002)
    expect(parseRecord(`{"text": "Hello! How can I help?", "error_code": 0}`)._tag).toBe("Ignored")
  })

  it("colour codes and docker compose's prefix are read through; the sample keeps them", () => {
    const text = "api-1  | \u001b[31mERROR\u001b[0m 401 Incorrect API key provided\napi-1  |   at OpenAI.makeRequest (node_modules/openai/core.js:1:1)"
    const r = parseRecord(text)
    if (r._tag !== "Failure") throw new Error(`ignored: ${r.reason}`)
    expect(r.failure.status).toBe(401)
    expect(r.sample).toContain("api-1  | ")
    expect(failure(`{"level":"error","message":"\\u001b[31m[LLM]\\u001b[0m Error: 503 status code (no body)"}`).f.status).toBe(503)
  })

  it("after a log line's prefix: a JSON object, an SDK's leading status, a provider's leading code", () => {
    expect(failure(`2026-11-25 10:00:00,123 ERROR {"msg":"exhausted API quota for AI provider openai: status code: 429","method":"GET","url":"/analyze","status_code":500}`).f.status).toBe(429)
    expect(failure("2026-11-25T10:00:00Z ERROR 400 An error occurred when calling Azure OpenAI: Server responded with status 429.").f.status).toBe(429)
    expect(failure("2026-11-25T10:00:00Z ERROR 3040: Capacity temporarily exceeded, please try again.").f.code).toBe(3040)
  })

  it("a record of JSON log lines is read past an INFO line; Docker's json-file line carrying a traceback", () => {
    expect(failure(`{"level":30,"msg":"[models] Using base URL"}\n{"level":30,"status":429,"msg":"[models] First fetch status"}`).f.status).toBe(429)
    const tb = "Traceback (most recent call last):\n  File \"app.py\", line 3, in <module>\nopenai.RateLimitError: Error code: 429 - {'error': {'message': 'Rate limit reached', 'code': 'rate_limit_exceeded'}}\n"
    expect(failure(JSON.stringify({ log: tb, stream: "stderr", time: "2026-11-25T10:00:00Z" })).f.status).toBe(429)
  })

  it("a logfmt line whose quoted msg hides a body", () => {
    const { f } = failure(`time=2026-11-25T10:00:00Z level=error msg="Error code: 400 - {\\"error\\": {\\"code\\": \\"unsupported_parameter\\", \\"message\\": \\"Unsupported parameter: 'max_tokens'\\"}}"`)
    expect(f.status).toBe(400)
    expect(f.code).toBe("unsupported_parameter")
  })

  it("failure words before `running model <name>` name a failed model call", () => {
    expect(failure("2025-03-08 21:12:02.869 | ERROR    | camel.agents.chat_agent:_step_model_response:1000 - An error occurred while running model qwq-32b, index: 0").f.model).toBe("qwq-32b")
    expect(parseRecord("ERROR - An error occurred while running migrations, index: 0")._tag).toBe("Ignored")
  })

  it("a model at capacity, a long model path not found, max_seq_len; a trace id is no error text; chat platforms' bot SDKs are other APIs", () => {
    expect(failure("⚠ Selected model is at capacity. Please try a different model.").c.category).toBe("overload")
    expect(failure(`{"code": 20015, "message": "max_total_tokens (100000794) must be less than or equal to max_seq_len (32768)"}`).c.category).toBe("invalid_request")
    const vertex = failure(`{"type":"gemini_request","trace_id":"1770270774388","model":"gemini-3-flash-preview"}\n{"type":"gemini_error","trace_id":"1770270774388","error":"[VertexAI.ClientError]: got status: 404 Not Found. {\\"error\\":{\\"code\\":404,\\"message\\":\\"Publisher Model \`projects/p-1/locations/us-central1/publishers/google/models/gemini-3-flash-preview\` was not found or your project does not have access to it.\\"}}"}`)
    expect(vertex.f.message).toContain("Publisher Model")
    expect(vertex.c.category).toBe("model_not_found")
    expect(parseRecord("[telegram] command sync failed: GrammyError: Call to 'setMyCommands' failed! (429: Too Many Requests: retry after 495)")._tag).toBe("Ignored")
  })

  it("models named where an unknown family's name would sit: OpenAI's rate-limit sentence, `model:(…)`, `模型-'…'`, model_version", () => {
    expect(failure("Error code: 429 - {'error': {'message': 'Rate limit reached for model\n`zephyr-7b-chat` in organization\n`org_01` on tokens per minute (TPM)'}}").f.model).toBe("zephyr-7b-chat")
    expect(failure("openai.PermissionDeniedError: Error code: 403 - {'error': {'message': 'key:(950f34) not authorized to access the requested model:(acme-large) (tid: 20251109)'}}").f.model).toBe("acme-large")
    expect(failure("[model_utils] 任务-'memory.builder' 模型-'acme-z1-flash': 请求失败，错误代码-401，错误信息-Error code: 401 - {'error': {'message': 'invalid api key'}}").f.model).toBe("acme-z1-flash")
    expect(failure("finish_reason=<FinishReason.STOP> model_version='acme-image-preview' error: 429 RESOURCE_EXHAUSTED").f.model).toBe("acme-image-preview")
  })
})

describe("the twenty-seventh round of records (made-up lines of their shapes)", () => {
  it("Azure's `Rate limit is exceeded. Try again in N seconds.` is a rate limit, also inside a stream cut by it", () => {
    expect(failure("openai.RateLimitError: Rate limit is exceeded. Try again in 12 seconds.").c.category).toBe("rate_limit")
    const cut = failure("⚠️ stream error: stream disconnected before completion: Rate limit is exceeded. Try again in 7 seconds.; retrying 2/5 in 412ms…")
    expect(cut.c.category).toBe("rate_limit")
    expect(cut.c.rateLimitKind).toBe("unknown")
    // the same cut with nothing but a transport failure after it stays transport
    expect(failure("⚠️ stream error: stream disconnected before completion: connection reset by peer; retrying 2/5 in 412ms…").c.category).toBe("transport")
  })
})

describe("the twenty-seventh round: parameters a model does not take", () => {
  it("`Argument not supported on this model: x` (xAI) and `'temperature' is not supported with this model` (OpenAI's reasoning models) are invalid requests", () => {
    const xai = failure(`{\n  "error": "Argument not supported on this model: frequencyPenalty",\n  "endpoint": "https://api.x.ai/v1",\n  "provider": "xai"\n}`)
    expect(xai.c.category).toBe("invalid_request")
    const openai = failure("openai.BadRequestError: Unsupported parameter: 'top_p' is not supported with this model.")
    expect(openai.c.category).toBe("invalid_request")
    // the same words about a tool, not a model, are not a failed call
    expect(parseRecord("WARN tool schema: argument 'depth' not supported by this plugin, ignored")._tag).toBe("Ignored")
  })
})

describe("the twenty-seventh round: the Qianfan SDK's own key check", () => {
  it("`AK(…) is not correct, please check!` is a broken key, not a line to drop", () => {
    const { c } = failure("[qianfan] ERROR: AK(ALTAKxx***) is not correct, please check! AK/SK should be obtained from https://console.bce.baidu.com/qianfan/ais/console/applicationConsole/application")
    expect(c.category).toBe("auth_key")
    expect(c.provider).toBe("qianfan")
  })
})

describe("the twenty-seventh round: a retired model", () => {
  it("`models/<name> is no longer available` passes the pre-filter and is a model not found", () => {
    const text = "acme-pro-1.5 model: models/acme-pro-1.5 is no longer available. Please update."
    expect(hasFailureSignal(text)).toBe(true)
    expect(failure(text).c.category).toBe("model_not_found")
    expect(failure("Error: the model acme-chat-2 is no longer supported; pick another one").c.category).toBe("model_not_found")
    // a feature retired, not a model: no failed call
    expect(parseRecord("INFO the legacy dashboard is no longer available, redirecting to /v2")._tag).toBe("Ignored")
  })
})
