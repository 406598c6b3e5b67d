import { describe, expect, it } from "vitest"
import { parseRecord } from "../../src/parse/parse.js"
import { readRecord } from "../support/readRecord.js"

/**
 * Issue 14: every official and popular SDK's own error text, as its SOURCE renders it (`str(e)`,
 * `e.message`, `err.Error()`, `toString()`, a traceback's last line), with realistic values (a
 * provider's documented error body, a model, a request id). Each case cites the source file the
 * format was read from. The line must pass the tail's pre-filter (a line it drops never reaches the
 * parser in the daemon) unless the case says otherwise (proposals for the pre-filter's owner).
 */

const read = readRecord

const OPENAI_TPM =
  "Rate limit reached for gpt-4o in organization org-AbCdEf123 on tokens per min (TPM): Limit 30000, Used 29874, Requested 1712. Please try again in 3.172s. Visit https://platform.openai.com/account/rate-limits to learn more."

describe("OpenAI SDKs", () => {
  // openai/openai-python:src/openai/_base_client.py _make_status_error (`Error code: {status} - {body}`),
  // src/openai/_exceptions.py (APIStatusError and its subclasses; APIConnectionError "Connection error.",
  // APITimeoutError "Request timed out.")
  it("openai-python: `Error code: 429 - {dict}` of RateLimitError", () => {
    read(`openai.RateLimitError: Error code: 429 - {'error': {'message': '${OPENAI_TPM}', 'type': 'tokens', 'param': None, 'code': 'rate_limit_exceeded'}}`, {
      status: 429, code: "rate_limit_exceeded", errorType: "tokens", message: OPENAI_TPM, model: "gpt-4o", category: "rate_limit", kind: "TPM", provider: "openai"
    })
  })

  it("openai-python: NotFoundError of a model that does not exist", () => {
    read("openai.NotFoundError: Error code: 404 - {'error': {'message': 'The model `gpt-5-turbo` does not exist or you do not have access to it.', 'type': 'invalid_request_error', 'param': None, 'code': 'model_not_found'}}", {
      status: 404, code: "model_not_found", model: "gpt-5-turbo", category: "model_not_found", provider: "openai"
    })
  })

  it("openai-python: a traceback ending in AuthenticationError (the request line names the model)", () => {
    read([
      "Traceback (most recent call last):",
      '  File "/app/main.py", line 12, in <module>',
      '    resp = client.chat.completions.create(model="gpt-4o-mini", messages=msgs)',
      '  File "/usr/local/lib/python3.11/site-packages/openai/_base_client.py", line 1047, in _request',
      "    raise self._make_status_error_from_response(err.response) from None",
      "openai.AuthenticationError: Error code: 401 - {'error': {'message': 'Incorrect API key provided: sk-proj-********************abcd. You can find your API key at https://platform.openai.com/account/api-keys.', 'type': 'invalid_request_error', 'param': None, 'code': 'invalid_api_key'}}"
    ].join("\n"), { status: 401, code: "invalid_api_key", model: "gpt-4o-mini", category: "auth_key", provider: "openai" })
  })

  it("openai-python: InternalServerError of a 503 is overload (the status wins over the class)", () => {
    read("openai.InternalServerError: Error code: 503 - {'error': {'message': 'The server is overloaded or not ready yet.', 'type': 'server_error', 'param': None, 'code': None}}", {
      status: 503, code: null, message: "The server is overloaded or not ready yet.", category: "overload"
    })
  })

  it("openai-python: APIConnectionError and APITimeoutError", () => {
    read("openai.APIConnectionError: Connection error.", { status: null, message: "Connection error.", category: "transport", provider: "openai" })
    read("openai.APITimeoutError: Request timed out.", { status: null, message: "Request timed out.", category: "transport" })
  })

  // openai/openai-node:src/core/error.ts APIError.makeMessage (`${status} ${msg}`, `${status} status code (no body)`),
  // APIConnectionError "Connection error.", APIConnectionTimeoutError "Request timed out."
  it("openai-node: `${status} ${message}` under `Error:` with the stack", () => {
    read([
      "Error: 429 You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.",
      "    at APIError.generate (/app/node_modules/openai/core/error.js:66:20)",
      "    at OpenAI.makeStatusError (/app/node_modules/openai/client.js:156:32)"
    ].join("\n"), { status: 429, message: /^You exceeded your current quota/, category: "quota", provider: "openai" })
  })

  it("openai-node: RateLimitError's message names the limit", () => {
    read("RateLimitError: 429 Rate limit reached for gpt-4o-mini in organization org-AbCdEf123 on requests per day (RPD): Limit 10000, Used 10000, Requested 1. Please try again in 8.64s.", {
      status: 429, model: "gpt-4o-mini", message: /^Rate limit reached for gpt-4o-mini/, category: "rate_limit", kind: "RPD", provider: "openai"
    })
  })

  it("openai-node: a status without a body", () => {
    // (the SDK's frames in the stack tell OpenAI, weakly: a base URL can point elsewhere)
    read("Error: 400 status code (no body)\n    at APIError.generate (/app/node_modules/openai/error.js:44:20)", { status: 400, category: "invalid_request", provider: "openai" })
  })

  it("openai-node: APIConnectionError (cause: fetch failed) and APIConnectionTimeoutError", () => {
    read([
      "APIConnectionError: Connection error.",
      "    at OpenAI.makeRequest (file:///app/node_modules/openai/client.mjs:311:19) {",
      "  status: undefined,",
      "  headers: undefined,",
      "  requestID: undefined,",
      "  [cause]: TypeError: fetch failed"
    ].join("\n"), { status: null, message: "Connection error.", category: "transport", provider: "openai" })
    read("APIConnectionTimeoutError: Request timed out.\n    at OpenAI.makeRequest (/app/node_modules/openai/client.js:332:23)", { status: null, category: "transport", provider: "openai" })
  })

  // the same makeMessage in groq-typescript and against Azure OpenAI (Stainless TS SDKs share src/core/error.ts)
  it("openai-node against Azure, groq-typescript: `${status} ${message}` under the subclass's name", () => {
    read("Error: 429 Requests to the ChatCompletions_Create Operation under Azure OpenAI API version 2024-08-01-preview have exceeded token rate limit of your current AIServices S0 pricing tier. Please retry after 6 seconds. Please contact Azure support service if you would like to further increase the default rate limit.", {
      status: 429, category: "rate_limit", kind: "TPM", provider: "azure"
    })
    read("RateLimitError: 429 Rate limit reached for model `llama-3.1-70b-versatile` in organization `org_01abc` service tier `on_demand` on tokens per minute (TPM): Limit 6000, Used 5800, Requested 900. Please try again in 7s. Visit https://console.groq.com/docs/rate-limits for more information.", {
      status: 429, model: "llama-3.1-70b-versatile", category: "rate_limit", kind: "TPM", provider: "groq"
    })
    read("NotFoundError: 404 The model `llama3-70b-8192` has been decommissioned and is no longer supported. Please refer to https://console.groq.com/docs/deprecations for a recommendation on which model to use instead.", {
      status: 404, category: "model_not_found", provider: "groq"
    })
    read("ConflictError: 409 Another request is currently being processed", { status: 409, category: "unknown" })
  })

  it("openai-node: APIUserAbortError is the caller's own abort, not a failed call", () => {
    expect(parseRecord("APIUserAbortError: Request was aborted.")._tag).toBe("Ignored")
  })

  // openai/openai-go:internal/apierror/apierror.go Error(): `%s %q: %d %s %s` (method, URL, status,
  // http.StatusText, the raw JSON)
  it("openai-go: `POST \"url\": 429 Too Many Requests {json}` with an indented body", () => {
    read([
      'POST "https://api.openai.com/v1/chat/completions": 429 Too Many Requests {',
      '    "error": {',
      '        "message": "Rate limit reached for gpt-4o in organization org-AbCdEf123 on tokens per min (TPM): Limit 30000, Used 30000, Requested 812. Please try again in 1.62s.",',
      '        "type": "tokens",',
      '        "param": null,',
      '        "code": "rate_limit_exceeded"',
      "    }",
      "}"
    ].join("\n"), { status: 429, code: "rate_limit_exceeded", model: "gpt-4o", category: "rate_limit", kind: "TPM", provider: "openai" })
  })

  it("openai-go: a 400 of a model that does not exist, on one line", () => {
    read('POST "https://api.openai.com/v1/responses": 400 Bad Request {"error":{"message":"The model `gpt-4.2` does not exist or you do not have access to it.","type":"invalid_request_error","param":"model","code":"model_not_found"}}', {
      status: 400, code: "model_not_found", errorType: "invalid_request_error", model: "gpt-4.2", category: "model_not_found", provider: "openai"
    })
  })

  // openai/openai-java:openai-java-core/src/main/kotlin/com/openai/errors/RateLimitException.kt
  // (`"429: ${error.message}"`; UnauthorizedException 401, InternalServerException 5xx likewise)
  it("openai-java: `429: message` of RateLimitException", () => {
    read("com.openai.errors.RateLimitException: 429: Rate limit reached for gpt-4o in organization org-AbCdEf123 on requests per min (RPM): Limit 500, Used 500, Requested 1. Please try again in 120ms.", {
      status: 429, message: /^Rate limit reached for gpt-4o/, model: "gpt-4o", category: "rate_limit", kind: "RPM", provider: "openai"
    })
  })

  it("openai-java: UnauthorizedException and InternalServerException (the class is no AWS code)", () => {
    read("com.openai.errors.UnauthorizedException: 401: Incorrect API key provided: sk-abc***xyz. You can find your API key at https://platform.openai.com/account/api-keys.", {
      status: 401, code: null, message: /^Incorrect API key provided/, category: "auth_key", provider: "openai"
    })
    read("com.openai.errors.InternalServerException: 500: The server had an error while processing your request. Sorry about that!", {
      status: 500, code: null, message: "The server had an error while processing your request. Sorry about that!", category: "server_error", provider: "openai"
    })
  })

  // openai/openai-dotnet (the ClientResultException's message builder: `HTTP {response.Status}
  // ({error.Type}: {error.Code})`, `Parameter: {error.Param}` when set, a blank line, the message);
  // System.ClientModel's default `Service request failed.\nStatus: 502 (Bad Gateway)` when the body is no OpenAI error
  it("openai-dotnet: `HTTP 429 (insufficient_quota: insufficient_quota)` then the message", () => {
    read("System.ClientModel.ClientResultException: HTTP 429 (insufficient_quota: insufficient_quota)\n\nYou exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.", {
      status: 429, code: "insufficient_quota", errorType: "insufficient_quota", message: /^You exceeded your current quota/, category: "quota", provider: "openai"
    })
  })

  it("openai-dotnet: a 404 with its Parameter line", () => {
    read("System.ClientModel.ClientResultException: HTTP 404 (invalid_request_error: model_not_found)\nParameter: model\n\nThe model `gpt-5o` does not exist or you do not have access to it.", {
      status: 404, code: "model_not_found", errorType: "invalid_request_error", message: "The model `gpt-5o` does not exist or you do not have access to it.", model: "gpt-5o", category: "model_not_found"
    })
  })

  it("openai-dotnet: System.ClientModel's `Status: 502 (Bad Gateway)` of a proxy's page", () => {
    read("System.ClientModel.ClientResultException: Service request failed.\nStatus: 502 (Bad Gateway)\n\nContent:\n<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>", {
      status: 502, category: "transport"
    })
  })
})

describe("Anthropic SDKs", () => {
  const REQ = "req_011CSHfN3x5a1b2c3d4e5f6g"
  // anthropics/anthropic-sdk-python:src/anthropic/_exceptions.py and _base_client.py (the same
  // Stainless `Error code: {status} - {body}`; the body is the whole envelope with request_id)
  it("anthropic-python: RateLimitError of input tokens per minute", () => {
    read(`anthropic.RateLimitError: Error code: 429 - {'type': 'error', 'error': {'type': 'rate_limit_error', 'message': 'This request would exceed the rate limit for your organization (5b1c2d3e-1111-2222-3333-444455556666) of 40,000 input tokens per minute. For details, refer to: https://docs.claude.com/en/api/rate-limits.'}, 'request_id': '${REQ}'}`, {
      status: 429, errorType: "rate_limit_error", message: /^This request would exceed the rate limit/, category: "rate_limit", kind: "TPM", provider: "anthropic"
    })
  })

  it("anthropic-python: 529 overloaded_error", () => {
    read(`anthropic.InternalServerError: Error code: 529 - {'type': 'error', 'error': {'type': 'overloaded_error', 'message': 'Overloaded'}, 'request_id': '${REQ}'}`, {
      status: 529, errorType: "overloaded_error", message: "Overloaded", category: ["overload", "unknown"], provider: "anthropic"
    })
  })

  it("anthropic-python: NotFoundError names the model, a credit balance 400 is quota", () => {
    read(`anthropic.NotFoundError: Error code: 404 - {'type': 'error', 'error': {'type': 'not_found_error', 'message': 'model: claude-3-5-sonnet-20990101'}, 'request_id': '${REQ}'}`, {
      status: 404, model: "claude-3-5-sonnet-20990101", category: "model_not_found", provider: "anthropic"
    })
    read(`anthropic.BadRequestError: Error code: 400 - {'type': 'error', 'error': {'type': 'invalid_request_error', 'message': 'Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.'}, 'request_id': '${REQ}'}`, {
      status: 400, category: "quota", provider: "anthropic"
    })
  })

  it("anthropic-python: APIStatusError without a status (a mid-stream error event)", () => {
    read(`anthropic.APIStatusError: {'type': 'error', 'error': {'details': None, 'type': 'overloaded_error', 'message': 'Overloaded'}, 'request_id': '${REQ}'}`, {
      status: null, errorType: "overloaded_error", category: "overload", provider: "anthropic"
    })
    read("anthropic.APIConnectionError: Connection error.", { category: "transport", provider: "anthropic" })
    // anthropic-sdk-typescript's APIConnectionError, printed as a plain Error with the SDK's frames
    read("Error: Connection error.\n    at Anthropic.makeRequest (/app/node_modules/@anthropic-ai/sdk/src/core.ts:462:15)", {
      status: null, message: "Connection error.", category: "transport", provider: "anthropic"
    })
  })

  // anthropics/anthropic-sdk-typescript:src/core/error.ts (Stainless makeMessage: `${status} ${JSON}`
  // when the error has no top-level message: the envelope is printed whole)
  it("anthropic-typescript: `529 {json}` and `429 {json}`", () => {
    read(`Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"${REQ}"}\n    at APIError.generate (/app/node_modules/@anthropic-ai/sdk/core/error.js:61:14)`, {
      status: 529, errorType: "overloaded_error", message: "Overloaded", category: ["overload", "unknown"], provider: "anthropic"
    })
    read(`RateLimitError: 429 {"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed the rate limit for your organization (5b1c2d3e) of 8,000 output tokens per minute."},"request_id":"${REQ}"}`, {
      status: 429, errorType: "rate_limit_error", category: "rate_limit", kind: "TPM"
    })
  })

  // anthropics/anthropic-sdk-go:internal/apierror/apierror.go (Stainless Go: `%s %q: %d %s %s`;
  // http.StatusText(529) is "", hence two spaces)
  it("anthropic-go: `POST \"url\": 529  {json}` (no reason phrase for 529)", () => {
    read(`POST "https://api.anthropic.com/v1/messages": 529  {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"${REQ}"}`, {
      status: 529, errorType: "overloaded_error", category: ["overload", "unknown"], provider: "anthropic"
    })
    read(`POST "https://api.anthropic.com/v1/messages": 401 Unauthorized {"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"},"request_id":"${REQ}"}`, {
      status: 401, errorType: "authentication_error", message: "invalid x-api-key", category: "auth_key", provider: "anthropic"
    })
  })

  // anthropics/anthropic-sdk-java: com.anthropic.errors.* (Stainless Java: `"$status: $body"`)
  it("anthropic-java: `429: {json}` and `529: {json}` (InternalServerException is no AWS code)", () => {
    read('com.anthropic.errors.RateLimitException: 429: {"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}', {
      status: 429, errorType: "rate_limit_error", category: "rate_limit", kind: "TPM", provider: "anthropic"
    })
    read('com.anthropic.errors.InternalServerException: 529: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}', {
      status: 529, code: null, errorType: "overloaded_error", category: ["overload", "unknown"], provider: "anthropic"
    })
  })
})

describe("Google SDKs", () => {
  // googleapis/python-genai:google/genai/errors.py APIError.__init__: `f"{self.code} {self.status}. {self.details}"`
  it("google-genai python: `429 RESOURCE_EXHAUSTED. {dict}` with a per-day QuotaFailure", () => {
    read("google.genai.errors.ClientError: 429 RESOURCE_EXHAUSTED. {'error': {'code': 429, 'message': 'You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.', 'status': 'RESOURCE_EXHAUSTED', 'details': [{'@type': 'type.googleapis.com/google.rpc.QuotaFailure', 'violations': [{'quotaMetric': 'generativelanguage.googleapis.com/generate_content_free_tier_requests', 'quotaId': 'GenerateRequestsPerDayPerProjectPerModel-FreeTier', 'quotaDimensions': {'location': 'global', 'model': 'gemini-2.0-flash'}, 'quotaValue': '200'}]}, {'@type': 'type.googleapis.com/google.rpc.RetryInfo', 'retryDelay': '32s'}]}}", {
      status: 429, code: 429, errorType: "RESOURCE_EXHAUSTED", model: "gemini-2.0-flash", category: ["rate_limit", "quota"], kind: "RPD", provider: "google"
    })
  })

  it("google-genai python: ServerError 503 UNAVAILABLE, ClientError 404 NOT_FOUND, a bad key's 400", () => {
    read("google.genai.errors.ServerError: 503 UNAVAILABLE. {'error': {'code': 503, 'message': 'The model is overloaded. Please try again later.', 'status': 'UNAVAILABLE'}}", {
      status: 503, errorType: "UNAVAILABLE", message: "The model is overloaded. Please try again later.", category: "overload", provider: "google"
    })
    read("google.genai.errors.ClientError: 404 NOT_FOUND. {'error': {'code': 404, 'message': 'models/gemini-1.0-pro is not found for API version v1beta, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods.', 'status': 'NOT_FOUND'}}", {
      status: 404, model: "gemini-1.0-pro", category: "model_not_found", provider: "google"
    })
    read("google.genai.errors.ClientError: 400 INVALID_ARGUMENT. {'error': {'code': 400, 'message': 'API key not valid. Please pass a valid API key.', 'status': 'INVALID_ARGUMENT', 'details': [{'@type': 'type.googleapis.com/google.rpc.ErrorInfo', 'reason': 'API_KEY_INVALID', 'domain': 'googleapis.com', 'metadata': {'service': 'generativelanguage.googleapis.com'}}]}}", {
      status: 400, category: "auth_key", provider: "google"
    })
  })

  // googleapis/js-genai:src/_api_client.ts (throwErrorIfNotOK: ApiError whose message is the JSON body);
  // older releases: `got status: ${status} ${statusText}. ${JSON}`
  it("google-genai js: ApiError with the JSON body, and the older `got status:` form", () => {
    read('ApiError: {"error":{"code":429,"message":"Resource exhausted. Please try again later. Please refer to https://cloud.google.com/vertex-ai/generative-ai/docs/error-code-429 for more details.","status":"RESOURCE_EXHAUSTED"}}\n    at throwErrorIfNotOK (/app/node_modules/@google/genai/dist/node/index.cjs:11190:30)', {
      status: 429, errorType: "RESOURCE_EXHAUSTED", message: /^Resource exhausted/, category: "rate_limit", kind: "unknown", provider: "google"
    })
    read('Error: got status: 503 Service Unavailable. {"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}', {
      status: 503, errorType: "UNAVAILABLE", message: "The model is overloaded. Please try again later.", category: "overload", provider: "google"
    })
  })

  // google-gemini/generative-ai-js:src/requests/request.ts (`[GoogleGenerativeAI Error]: Error fetching
  // from ${url}: [${status} ${statusText}] ${message}`)
  it("@google/generative-ai: `[429 Too Many Requests] message` after the URL", () => {
    read("[GoogleGenerativeAI Error]: Error fetching from https://generativelanguage.googleapis.com/v1beta/models/gemini-1.5-pro:generateContent: [429 Too Many Requests] Resource has been exhausted (e.g. check quota).", {
      status: 429, message: "Resource has been exhausted (e.g. check quota).", model: "gemini-1.5-pro", category: "rate_limit", provider: "google"
    })
  })

  // googleapis/python-api-core:google/api_core/exceptions.py (GoogleAPICallError.__str__: `f"{self.code} {self.message}"`;
  // the class names carry no Error suffix)
  it("google-api-core: ResourceExhausted of a per-minute quota metric is a rate limit (RPM)", () => {
    read("google.api_core.exceptions.ResourceExhausted: 429 Quota exceeded for aiplatform.googleapis.com/generate_content_requests_per_minute_per_project_per_base_model with base model: gemini-1.5-pro. Please submit a quota increase request. https://cloud.google.com/vertex-ai/docs/generative-ai/quotas-genai.", {
      status: 429, errorType: "RESOURCE_EXHAUSTED", message: /^Quota exceeded for aiplatform/, model: "gemini-1.5-pro", category: ["rate_limit", "quota"], kind: "RPM", provider: "google"
    })
  })

  it("google-api-core: InvalidArgument, DeadlineExceeded, PermissionDenied with its details", () => {
    read("google.api_core.exceptions.InvalidArgument: 400 Request contains an invalid argument.", {
      status: 400, errorType: "INVALID_ARGUMENT", message: "Request contains an invalid argument.", category: "invalid_request", provider: "google"
    })
    read("google.api_core.exceptions.DeadlineExceeded: 504 Deadline Exceeded", { status: 504, message: "Deadline Exceeded", category: ["overload", "transport"], provider: "google" })
    read([
      "google.api_core.exceptions.PermissionDenied: 403 Permission 'aiplatform.endpoints.predict' denied on resource '//aiplatform.googleapis.com/projects/my-proj/locations/us-central1/publishers/google/models/gemini-1.5-flash-002' (or it may not exist). [reason: \"IAM_PERMISSION_DENIED\"",
      'domain: "aiplatform.googleapis.com"',
      "metadata {",
      '  key: "permission"',
      '  value: "aiplatform.endpoints.predict"',
      "}",
      "]"
    ].join("\n"), { status: 403, model: "gemini-1.5-flash-002", category: "permission", provider: "google" })
  })

  it("google-api-core: ServiceUnavailable of a channel that could not connect shows its 503", () => {
    read("google.api_core.exceptions.ServiceUnavailable: 503 failed to connect to all addresses; last error: UNAVAILABLE: ipv4:142.250.64.74:443: Socket closed", {
      status: 503, message: "failed to connect to all addresses; last error: UNAVAILABLE: ipv4:142.250.64.74:443: Socket closed", category: ["overload", "transport"], provider: "google"
    })
  })

  // googleapis/sdk-platform-java gax (ApiException wrapping io.grpc.StatusRuntimeException: `CODE: desc`)
  it("Vertex Java (gax): ResourceExhaustedException over StatusRuntimeException", () => {
    read("com.google.api.gax.rpc.ResourceExhaustedException: io.grpc.StatusRuntimeException: RESOURCE_EXHAUSTED: Quota exceeded for aiplatform.googleapis.com/generate_content_requests_per_minute_per_project_per_base_model with base model: gemini-1.5-pro. Please submit a quota increase request.", {
      status: null, errorType: "RESOURCE_EXHAUSTED", model: "gemini-1.5-pro", category: ["rate_limit", "quota"], kind: "RPM", provider: "google"
    })
  })

  // grpc/grpc-go:internal/status/status.go (`rpc error: code = %s desc = %s`), as cloud.google.com/go/vertexai returns it
  it("Vertex Go (grpc-go): `rpc error: code = ResourceExhausted desc = …` and a Publisher Model not found", () => {
    read("rpc error: code = ResourceExhausted desc = Quota exceeded for aiplatform.googleapis.com/generate_content_requests_per_minute_per_project_per_base_model with base model: gemini-1.5-flash.", {
      status: null, errorType: "RESOURCE_EXHAUSTED", message: /^Quota exceeded for aiplatform/, model: "gemini-1.5-flash", category: ["rate_limit", "quota"], kind: "RPM", provider: "google"
    })
    read("rpc error: code = NotFound desc = Publisher Model `projects/my-proj/locations/us-central1/publishers/google/models/gemini-1.0-ultra` not found.", {
      status: null, errorType: "NOT_FOUND", model: "gemini-1.0-ultra", category: "model_not_found", provider: "google"
    })
  })

  // googleapis/go-genai APIError.Error() (next to httpStatusOk, deserializeStreamResponse): `Error %d, Message: %s, Status: %s, Details: %v`
  it("go-genai: `Error 429, Message: …, Status: RESOURCE_EXHAUSTED, Details: []`", () => {
    read("Error 429, Message: Resource has been exhausted (e.g. check quota)., Status: RESOURCE_EXHAUSTED, Details: []", {
      status: 429, errorType: "RESOURCE_EXHAUSTED", message: "Resource has been exhausted (e.g. check quota).", category: "rate_limit", provider: "google"
    })
  })

  // googleapis/google-api-go-client:googleapi/googleapi.go Error.Error(): `googleapi: Error %d: %s[, reason]`
  // (the Go client of the older generative-ai-go)
  it("googleapi (Go): `googleapi: Error 429: …` and a 400 with its reason", () => {
    read("googleapi: Error 429: Resource has been exhausted (e.g. check quota).", {
      status: 429, message: "Resource has been exhausted (e.g. check quota).", category: "rate_limit", provider: "google"
    })
    read("googleapi: Error 400: API key not valid. Please pass a valid API key., badRequest", {
      status: 400, message: "API key not valid. Please pass a valid API key.", category: "auth_key", provider: "google"
    })
  })
})

describe("AWS SDKs (Bedrock Runtime)", () => {
  const RID = "7f1b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d"
  // boto/botocore:botocore/exceptions.py ClientError.MSG_TEMPLATE (`An error occurred ({error_code}) when
  // calling the {operation_name} operation{retry_info}: {error_message}`, retry_info ` (reached max retries: N)`)
  it("botocore: ThrottlingException after retries", () => {
    read("botocore.errorfactory.ThrottlingException: An error occurred (ThrottlingException) when calling the InvokeModel operation (reached max retries: 4): Too many requests, please wait before trying again. You have sent too many requests.  Wait before trying again.", {
      status: null, code: "ThrottlingException", category: "rate_limit", kind: "unknown", provider: "bedrock"
    })
  })

  it("botocore: ValidationException of a bad model id, AccessDeniedException, ServiceUnavailableException", () => {
    read("botocore.errorfactory.ValidationException: An error occurred (ValidationException) when calling the Converse operation: The provided model identifier is invalid.", {
      code: "ValidationException", category: ["model_not_found", "invalid_request"], provider: "bedrock"
    })
    read("botocore.errorfactory.AccessDeniedException: An error occurred (AccessDeniedException) when calling the InvokeModel operation: You don't have access to the model with the specified model ID.", {
      code: "AccessDeniedException", category: "permission", provider: "bedrock"
    })
    read("botocore.errorfactory.ServiceUnavailableException: An error occurred (ServiceUnavailableException) when calling the ConverseStream operation: Bedrock is unable to process your request.", {
      code: "ServiceUnavailableException", category: "overload", provider: "bedrock"
    })
  })

  it("botocore: ReadTimeoutError and EndpointConnectionError name the model in the URL", () => {
    read('botocore.exceptions.ReadTimeoutError: Read timeout on endpoint URL: "https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-3-5-sonnet-20240620-v1%3A0/invoke"', {
      status: null, model: "anthropic.claude-3-5-sonnet-20240620-v1:0", category: "transport", provider: "bedrock"
    })
    read('botocore.exceptions.EndpointConnectionError: Could not connect to the endpoint URL: "https://bedrock-runtime.us-east-1.amazonaws.com/model/meta.llama3-70b-instruct-v1:0/converse"', {
      model: "meta.llama3-70b-instruct-v1:0", category: "transport", provider: "bedrock"
    })
  })

  // aws/aws-sdk-js-v3 (the ServiceException's name and message, `$metadata` printed by util.inspect)
  it("aws-sdk-js-v3: ThrottlingException with its $metadata", () => {
    read([
      "ThrottlingException: Too many requests, please wait before trying again.",
      "    at de_ThrottlingExceptionRes (/app/node_modules/@aws-sdk/client-bedrock-runtime/dist-cjs/index.js:1621:21)",
      "    at de_CommandError (/app/node_modules/@aws-sdk/client-bedrock-runtime/dist-cjs/index.js:1356:19) {",
      "  '$fault': 'client',",
      "  '$metadata': {",
      "    httpStatusCode: 429,",
      `    requestId: '${RID}',`,
      "    extendedRequestId: undefined,",
      "    cfId: undefined,",
      "    attempts: 3,",
      "    totalRetryDelay: 1183",
      "  }",
      "}"
    ].join("\n"), { status: 429, code: "ThrottlingException", message: "Too many requests, please wait before trying again.", category: "rate_limit", provider: "bedrock" })
  })

  it("aws-sdk-js-v3: a bare `ValidationException: …` line (the pre-filter has no word for it)", () => {
    read("ValidationException: Invocation of model ID anthropic.claude-3-7-sonnet-20250219-v1:0 with on-demand throughput isn't supported. Retry your request with the ID or ARN of an inference profile that contains this model.", {
      code: "ValidationException", model: "anthropic.claude-3-7-sonnet-20250219-v1:0", category: "invalid_request", provider: "bedrock"
    })
  })

  // the Bedrock Runtime's own exceptions as the JS SDK v3 names them (name: message), messages from
  // https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_InvokeModel.html and CommonErrors
  it("aws-sdk-js-v3: Bedrock's documented exceptions by name alone", () => {
    read("ModelNotReadyException: Model is not ready for inference. Wait and try your request again.", { code: "ModelNotReadyException", category: ["overload", "rate_limit"] })
    read("UnrecognizedClientException: The security token included in the request is invalid.", { code: "UnrecognizedClientException", category: "auth_key" })
    read("ExpiredTokenException: The security token included in the request is expired", { code: "ExpiredTokenException", category: "auth_key" })
    read("ServiceQuotaExceededException: Your request exceeds the service quota for your account.", { code: "ServiceQuotaExceededException", category: ["rate_limit", "quota"] })
    read("InternalServerException: The server encountered an internal error while processing the request.", { code: "InternalServerException", category: "server_error" })
    read("ModelStreamErrorException: The system encountered an unexpected error during processing. Try your request again.", { code: "ModelStreamErrorException", category: "server_error" })
  })

  // aws/smithy-go:operation.go OperationError (`operation error %s: %s, %v`), aws/aws-sdk-go-v2:aws/transport/http/response_error.go
  // (`https response error StatusCode: %d, RequestID: %s, %v`), the retryer's `exceeded maximum number of attempts, N, …`
  it("aws-sdk-go-v2: `operation error Bedrock Runtime: InvokeModel, exceeded maximum number of attempts, 3, https response error StatusCode: 429, …`", () => {
    read(`operation error Bedrock Runtime: InvokeModel, exceeded maximum number of attempts, 3, https response error StatusCode: 429, RequestID: ${RID}, ThrottlingException: Too many requests, please wait before trying again.`, {
      status: 429, code: "ThrottlingException", message: "Too many requests, please wait before trying again.", category: "rate_limit", provider: "bedrock"
    })
  })

  it("aws-sdk-go-v2: a 400 ValidationException and a 403 `api error AccessDeniedException`", () => {
    read(`operation error Bedrock Runtime: Converse, https response error StatusCode: 400, RequestID: ${RID}, ValidationException: The provided model identifier is invalid.`, {
      status: 400, code: "ValidationException", category: "model_not_found", provider: "bedrock"
    })
    read(`operation error Bedrock Runtime: InvokeModel, https response error StatusCode: 403, RequestID: ${RID}, api error AccessDeniedException: You don't have access to the model with the specified model ID.`, {
      status: 403, code: "AccessDeniedException", category: "permission", provider: "bedrock"
    })
  })

  // aws/aws-sdk-java-v2 AwsServiceException (`message (Service: X, Status Code: N, Request ID: …)`)
  it("aws-sdk-java-v2: `(Service: BedrockRuntime, Status Code: 429, Request ID: …)`", () => {
    read(`software.amazon.awssdk.services.bedrockruntime.model.ThrottlingException: Too many requests, please wait before trying again. (Service: BedrockRuntime, Status Code: 429, Request ID: ${RID})`, {
      status: 429, code: "ThrottlingException", category: "rate_limit", provider: "bedrock"
    })
  })
})

describe("Azure SDKs", () => {
  // Azure/azure-sdk-for-python:sdk/core/azure-core/azure/core/exceptions.py (HttpResponseError: `({code}) {message}`,
  // then `Code:` and `Message:` lines; `Operation returned an invalid status '{reason}'` without a body)
  it("azure-core python: HttpResponseError `(429) …` with Code and Message lines", () => {
    const msg = "Requests to the ChatCompletions_Create Operation under Azure OpenAI API version 2024-02-15-preview have exceeded token rate limit of your current OpenAI S0 pricing tier. Please retry after 6 seconds."
    read(`azure.core.exceptions.HttpResponseError: (429) ${msg}\nCode: 429\nMessage: ${msg}`, { status: 429, code: 429, message: msg, category: "rate_limit", kind: "TPM", provider: "azure" })
  })

  it("azure-core python: ResourceNotFoundError of a deployment, ClientAuthenticationError, a bare reason", () => {
    const msg = "The API deployment for this resource does not exist. If you created the deployment within the last 5 minutes, please wait a moment and try again."
    read(`azure.core.exceptions.ResourceNotFoundError: (DeploymentNotFound) ${msg}\nCode: DeploymentNotFound\nMessage: ${msg}`, {
      code: "DeploymentNotFound", message: msg, category: "model_not_found", provider: "azure"
    })
    read("azure.core.exceptions.ClientAuthenticationError: (401) Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.\nCode: 401\nMessage: Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.", {
      status: 401, category: "auth_key", provider: "azure"
    })
    read("azure.core.exceptions.HttpResponseError: Operation returned an invalid status 'Too Many Requests'", { status: null, category: "rate_limit", provider: "azure" })
  })

  // Azure/azure-sdk-for-net:sdk/core/Azure.Core/src/RequestFailedException.cs (message, `Status: 429 (Too Many Requests)`,
  // `ErrorCode: …`, `Content:`, `Headers:`)
  it("Azure.Core (.NET): RequestFailedException with Status, ErrorCode, Content and Headers", () => {
    read([
      "Azure.RequestFailedException: Requests to the ChatCompletions_Create Operation under Azure OpenAI API version 2024-02-15-preview have exceeded call rate limit of your current OpenAI S0 pricing tier. Please retry after 2 seconds.",
      "Status: 429 (Too Many Requests)",
      "ErrorCode: 429",
      "",
      "Content:",
      '{"error":{"code":"429","message": "Requests to the ChatCompletions_Create Operation under Azure OpenAI API version 2024-02-15-preview have exceeded call rate limit of your current OpenAI S0 pricing tier. Please retry after 2 seconds."}}',
      "",
      "Headers:",
      "Retry-After: 2",
      "x-ms-region: East US",
      "apim-request-id: REDACTED"
    ].join("\n"), { status: 429, code: 429, category: "rate_limit", kind: "RPM", provider: "azure" })
  })

  // Azure/azure-sdk-for-java:sdk/core/azure-core (HttpResponseException: `Status code 429, "{body}"`)
  it("azure-core java: HttpResponseException `Status code 429, \"{body}\"`", () => {
    read('com.azure.core.exception.HttpResponseException: Status code 429, "{"error":{"code":"429","message": "Requests to the ChatCompletions_Create Operation under Azure OpenAI API version 2024-05-01-preview have exceeded token rate limit of your current AIServices S0 pricing tier. Please retry after 10 seconds."}}"', {
      status: 429, code: 429, category: "rate_limit", kind: "TPM", provider: "azure"
    })
    read('com.azure.core.exception.ResourceNotFoundException: Status code 404, "{"error":{"code":"DeploymentNotFound","message":"The API deployment for this resource does not exist. If you created the deployment within the last 5 minutes, please wait a moment and try again."}}"', {
      status: 404, code: "DeploymentNotFound", category: "model_not_found", provider: "azure"
    })
  })

  // microsoft/semantic-kernel's HttpOperationException carries the ClientResultException's message
  // (openai-dotnet's builder with an Azure body whose error has no type: `HTTP 429 (: 429)`, then the message)
  it("Semantic Kernel: HttpOperationException `HTTP 429 (: 429)` then the message", () => {
    read("Microsoft.SemanticKernel.HttpOperationException: HTTP 429 (: 429)\n\nRequests to the ChatCompletions_Create Operation under Azure OpenAI API version 2024-08-01-preview have exceeded token rate limit of your current AIServices S0 pricing tier. Please retry after 31 seconds.", {
      status: 429, code: 429, message: /^Requests to the ChatCompletions_Create Operation/, category: "rate_limit", kind: "TPM", provider: "azure"
    })
    read("Microsoft.SemanticKernel.HttpOperationException: Service request failed.\nStatus: 401 (Unauthorized)\n ---> Azure.RequestFailedException: Service request failed.\nStatus: 401 (Unauthorized)", {
      status: 401, category: "auth_key", provider: "azure"
    })
  })
})

describe("Other providers' SDKs", () => {
  // mistralai/client-python:src/mistralai/models/sdkerror.py (Speakeasy: `API error occurred: Status {code}`,
  // then the body; newer releases `… Status 401. Body: {…}`, the TS SDK `… Content-Type … Body …`)
  it("mistralai: SDKError `API error occurred: Status 429` then the body", () => {
    read('mistralai.models.sdkerror.SDKError: API error occurred: Status 429\n{"object":"error","message":"Requests rate limit exceeded","type":"rate_limited","param":null,"code":"1300"}', {
      status: 429, code: 1300, errorType: "rate_limited", message: "Requests rate limit exceeded", category: "rate_limit", provider: "mistral"
    })
    read('SDKError: API error occurred: Status 401. Body: {"detail":"Unauthorized"}', { status: 401, message: "Unauthorized", category: "auth_key" })
    read('SDKError: API error occurred: Status 400 Content-Type application/json; charset=utf-8\nBody: {"object":"error","message":"Invalid model: mistral-huge-latest","type":"invalid_model","param":null,"code":"1500"}', {
      status: 400, code: 1500, model: "mistral-huge-latest", category: "model_not_found", provider: "mistral"
    })
  })

  // cohere-ai/cohere-python:src/cohere/core/api_error.py (Fern: `status_code: {}, body: {}`, newer with
  // `headers: {…}, ` first); cohere-ai/cohere-typescript:src/errors/CohereError.ts (`Status code: N\nBody: {json}`)
  it("cohere: TooManyRequestsError `status_code: 429, body: {dict}` and ApiError with headers", () => {
    read("cohere.errors.too_many_requests_error.TooManyRequestsError: status_code: 429, body: {'message': \"You are using a Trial key, which is limited to 10 API calls / minute. You can continue to use the Trial key for free or upgrade to a Production key with higher rate limits at 'https://dashboard.cohere.com/api-keys'. Contact us on 'https://discord.gg/XW44jPfYJu' or email us at support@cohere.com with any questions\"}", {
      status: 429, message: /^You are using a Trial key/, category: "rate_limit", kind: "RPM", provider: "cohere"
    })
    read("cohere.core.api_error.ApiError: headers: {'content-type': 'application/json', 'x-trial-endpoint-call-limit': '40'}, status_code: 404, body: {'id': '3f8c1d2e-aaaa-bbbb-cccc-1234567890ab', 'message': \"model 'command-r-plus-2099' not found, make sure the correct model ID was used and that you have access to the model.\"}", {
      status: 404, model: "command-r-plus-2099", category: "model_not_found", provider: "cohere"
    })
    read('CohereError: Status code: 429\nBody: {\n  "message": "You are using a Trial key, which is limited to 1000 API calls / month."\n}', { status: 429, category: "rate_limit", provider: "cohere" })
  })

  // groq/groq-python (Stainless, like openai-python)
  it("groq-python: the Stainless `Error code: 429 - {dict}` with Groq's TPM wording", () => {
    read("groq.RateLimitError: Error code: 429 - {'error': {'message': 'Rate limit reached for model `llama-3.3-70b-versatile` in organization `org_01abcdefghijk` service tier `on_demand` on tokens per minute (TPM): Limit 12000, Used 11542, Requested 1893. Please try again in 7.175s. Need more tokens? Upgrade to Dev Tier today at https://console.groq.com/settings/billing', 'type': 'tokens', 'code': 'rate_limit_exceeded'}}", {
      status: 429, code: "rate_limit_exceeded", model: "llama-3.3-70b-versatile", category: "rate_limit", kind: "TPM", provider: "groq"
    })
  })

  // ollama/ollama-python:ollama/_types.py ResponseError.__str__ (`{error} (status code: {status_code})`);
  // ollama/ollama-js:src/utils.ts (ResponseError carries status_code apart: the message alone)
  it("ollama-python and ollama-js: ResponseError", () => {
    read('ollama._types.ResponseError: model "llama3.1:70b" not found, try pulling it first (status code: 404)', {
      status: 404, message: 'model "llama3.1:70b" not found, try pulling it first', model: "llama3.1:70b", category: "model_not_found", provider: "ollama"
    })
    read("ollama._types.ResponseError: llama runner process has terminated: signal: killed (status code: 500)", {
      status: 500, message: "llama runner process has terminated: signal: killed", category: "server_error", provider: "ollama"
    })
    read('ResponseError: model "llama3.2" not found, try pulling it first\n    at checkOk (/app/node_modules/ollama/dist/browser.cjs:77:9)', {
      status: null, model: "llama3.2", category: "model_not_found", provider: "ollama"
    })
  })

  // huggingface/huggingface_hub:src/huggingface_hub/utils/_http.py hf_raise_for_status (requests' `429 Client Error:
  // Too Many Requests for url: …`, the request id, then a blank line and the server's message)
  it("huggingface_hub: HfHubHTTPError with the server's message after the blank line", () => {
    read("huggingface_hub.errors.HfHubHTTPError: 429 Client Error: Too Many Requests for url: https://api-inference.huggingface.co/models/meta-llama/Meta-Llama-3-8B-Instruct (Request ID: Root=1-6789abcd-0123456789abcdef01234567;5f2e3d4c-1111-2222-3333-444455556666)\n\nRate limit reached. You reached free usage limit (reset hourly). Please subscribe to a plan at https://huggingface.co/pricing to use the API at this rate", {
      status: 429, message: /^Rate limit reached\. You reached free usage limit/, category: "rate_limit", provider: "huggingface"
    })
    read("huggingface_hub.utils._errors.HfHubHTTPError: 402 Client Error: Payment Required for url: https://router.huggingface.co/v1/chat/completions (Request ID: Root=1-6789abcd-0123456789abcdef01234567)\n\nYou have exceeded your monthly included credits for Inference Providers. Subscribe to PRO to get 20x more monthly included credits.", {
      status: 402, message: /^You have exceeded your monthly included credits/, category: "quota", provider: "huggingface"
    })
  })
})

describe("gateways and frameworks", () => {
  // BerriAI/litellm:litellm/exceptions.py (`litellm.RateLimitError: {message}`, the message
  // `RateLimitError: OpenAIException - …` with the upstream's exception name)
  it("litellm: RateLimitError over OpenAIException with a quota body", () => {
    read("litellm.RateLimitError: RateLimitError: OpenAIException - Error code: 429 - {'error': {'message': 'You exceeded your current quota, please check your plan and billing details.', 'type': 'insufficient_quota', 'param': None, 'code': 'insufficient_quota'}}", {
      status: 429, code: "insufficient_quota", category: "quota"
    })
  })

  it("litellm: APIConnectionError, NotFoundError with the model group, Vertex BadRequestError, a Bedrock 503", () => {
    read("litellm.exceptions.APIConnectionError: litellm.APIConnectionError: OllamaException - [Errno 111] Connection refused", { status: null, category: "transport", provider: "ollama" })
    read('litellm.NotFoundError: AnthropicException - {"type":"error","error":{"type":"not_found_error","message":"model: claude-3-opus-latest"}}. Received Model Group=claude-3-opus\nAvailable Model Group Fallbacks=None', {
      errorType: "not_found_error", model: "claude-3-opus-latest", category: "model_not_found", provider: "anthropic"
    })
    read('litellm.BadRequestError: VertexAIException BadRequestError - {\n  "error": {\n    "code": 400,\n    "message": "Unable to submit request because it has an empty text parameter.",\n    "status": "INVALID_ARGUMENT"\n  }\n}', {
      status: 400, errorType: "INVALID_ARGUMENT", category: "invalid_request", provider: "google"
    })
    read('litellm.ServiceUnavailableError: litellm.MidStreamFallbackError: litellm.ServiceUnavailableError: BedrockException - {"message":"Bedrock is unable to process your request."}', {
      message: "Bedrock is unable to process your request.", category: "overload", provider: "bedrock"
    })
    read("litellm.AuthenticationError: AuthenticationError: GroqException - Invalid API Key", { category: "auth_key", provider: "groq" })
    // the upstream's name tells the provider even when the body's message becomes the message
    read('litellm.ServiceUnavailableError: OllamaException - {"error":"model is overloaded, please try again later"}', {
      message: "model is overloaded, please try again later", category: "overload", provider: "ollama"
    })
    read("litellm.exceptions.Timeout: litellm.Timeout: Connection timed out after 600.0 seconds.", { status: null, category: "transport" })
  })

  // vercel/ai:packages/provider/src/errors/api-call-error.ts (APICallError: the provider's message, url,
  // statusCode, responseBody); its retry (`new RetryError({ message: \`Failed after ${n} attempts. Last error: ${errorMessage}\` })`)
  it("Vercel AI SDK: AI_APICallError dump with url, statusCode and responseBody", () => {
    read([
      `AI_APICallError: ${OPENAI_TPM}`,
      "    at /app/node_modules/@ai-sdk/provider-utils/dist/index.js:700:14 {",
      "  url: 'https://api.openai.com/v1/chat/completions',",
      "  statusCode: 429,",
      `  responseBody: '{"error":{"message":"${OPENAI_TPM}","type":"tokens","param":null,"code":"rate_limit_exceeded"}}',`,
      "  isRetryable: true,",
      "  [Symbol(vercel.ai.error)]: true,",
      "  [Symbol(vercel.ai.error.AI_APICallError)]: true",
      "}"
    ].join("\n"), { status: 429, code: "rate_limit_exceeded", model: "gpt-4o", category: "rate_limit", kind: "TPM", provider: "openai" })
  })

  it("Vercel AI SDK: AI_RetryError's last error decides", () => {
    read("AI_RetryError: Failed after 3 attempts. Last error: Overloaded", { status: null, category: "overload" })
    // Node prints `${constructor.name} [${name}]: message` when the two differ
    read("RetryError [AI_RetryError]: Failed after 3 attempts. Last error: You exceeded your current quota, please check your plan and billing details.", {
      message: "Failed after 3 attempts. Last error: You exceeded your current quota, please check your plan and billing details.", category: "quota"
    })
  })

  // langchain-ai/langchainjs:libs/langchain-openai (the openai-node error, with the troubleshooting URL appended)
  it("LangChain.js: the openai-node message with its Troubleshooting URL", () => {
    read("Error: 429 Rate limit reached for gpt-3.5-turbo in organization org-AbCdEf123 on requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in 20s.\n\nTroubleshooting URL: https://js.langchain.com/docs/troubleshooting/errors/MODEL_RATE_LIMIT/", {
      status: 429, message: /^Rate limit reached for gpt-3\.5-turbo/, model: "gpt-3.5-turbo", category: "rate_limit", kind: "RPM", provider: "openai"
    })
  })

  // spring-projects/spring-ai:auto-configurations/common/spring-ai-autoconfigure-retry/…/SpringAiRetryAutoConfiguration.java
  // (`String.format("HTTP %s - %s", status, body)`; releases before it: `status + " - " + body`)
  it("Spring AI: NonTransientAiException `401 - {json}` and TransientAiException `HTTP 429 - {json}`", () => {
    read('org.springframework.ai.retry.NonTransientAiException: 401 - {\n    "error": {\n        "message": "Incorrect API key provided: sk-abc***xyz. You can find your API key at https://platform.openai.com/account/api-keys.",\n        "type": "invalid_request_error",\n        "param": null,\n        "code": "invalid_api_key"\n    }\n}', {
      status: 401, code: "invalid_api_key", category: "auth_key", provider: "openai"
    })
    read('org.springframework.ai.retry.TransientAiException: HTTP 429 - {"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}', {
      status: 429, code: "insufficient_quota", category: "quota"
    })
  })

  // langchain4j/langchain4j:langchain4j-core/src/main/java/dev/langchain4j/exception (RateLimitException,
  // AuthenticationException: the body as the message; older releases `status code: 429; body: {…}`)
  it("LangChain4j: RateLimitException and AuthenticationException with the body, the older `status code: N; body:`", () => {
    read('dev.langchain4j.exception.RateLimitException: {"error":{"message":"Rate limit reached for gpt-4o-mini in organization org-AbCdEf123 on requests per day (RPD): Limit 10000, Used 10000, Requested 1.","type":"requests","param":null,"code":"rate_limit_exceeded"}}', {
      status: null, code: "rate_limit_exceeded", model: "gpt-4o-mini", category: "rate_limit", kind: "RPD"
    })
    read('dev.langchain4j.exception.AuthenticationException: {"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}', {
      errorType: "authentication_error", message: "invalid x-api-key", category: "auth_key"
    })
    read('java.lang.RuntimeException: status code: 429; body: {"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}', {
      status: 429, code: "insufficient_quota", category: "quota"
    })
  })
})

describe("community clients in other languages", () => {
  // sashabaranov/go-openai:error.go (APIError: `error, status code: %d, status: %s, message: %s`;
  // RequestError: `…, message: %s, body: %s`)
  it("go-openai: APIError and RequestError", () => {
    read("error, status code: 429, status: 429 Too Many Requests, message: Rate limit reached for gpt-4o in organization org-AbCdEf123 on tokens per min (TPM): Limit 30000, Used 30000, Requested 925. Please try again in 1.85s.", {
      status: 429, message: /^Rate limit reached for gpt-4o/, model: "gpt-4o", category: "rate_limit", kind: "TPM", provider: "openai"
    })
    read("error, status code: 404, status: 404 Not Found, message: The model `gpt-4-32k` does not exist or you do not have access to it.", {
      status: 404, message: "The model `gpt-4-32k` does not exist or you do not have access to it.", model: "gpt-4-32k", category: "model_not_found"
    })
    read("error, status code: 502, status: 502 Bad Gateway, message: invalid character '<' looking for beginning of value, body: <html><head><title>502 Bad Gateway</title></head></html>", {
      status: 502, category: "transport"
    })
  })

  it("Go net/http: `Post \"url\": dial tcp: lookup …: no such host`", () => {
    read('Post "https://api.openai.com/v1/chat/completions": dial tcp: lookup api.openai.com: no such host', { status: null, category: "transport", provider: "openai" })
  })

  // 64bit/async-openai:async-openai/src/error.rs (OpenAIError::ApiError, OpenAIError::Reqwest, printed with {:?})
  it("async-openai (Rust): ApiError's Debug, and a reqwest connect error (the errno is no code)", () => {
    read('ApiError(ApiError { message: "You exceeded your current quota, please check your plan and billing details.", type: Some("insufficient_quota"), param: None, code: Some("insufficient_quota") })', {
      code: "insufficient_quota", errorType: "insufficient_quota", message: "You exceeded your current quota, please check your plan and billing details.", category: "quota"
    })
    read('Reqwest(reqwest::Error { kind: Request, url: "https://api.openai.com/v1/chat/completions", source: hyper_util::client::legacy::Error(Connect, ConnectError("tcp connect error", Os { code: 111, kind: ConnectionRefused, message: "Connection refused" })) })', {
      status: null, code: null, category: "transport", provider: "openai"
    })
  })

  // 64bit/async-openai:async-openai/src/error.rs Display (`#[error("{}: {}", .0.r#type, .0.message)]` of ApiError,
  // `stream failed: {0}` of StreamError over reqwest-eventsource's `Stream ended` / `Invalid status code: …`,
  // `http error: {0}` of reqwest)
  it("async-openai (Rust): the Display texts of ApiError, StreamError and Reqwest", () => {
    read("Error: insufficient_quota: You exceeded your current quota, please check your plan and billing details.", { status: null, category: "quota" })
    read("Error: invalid_request_error: The model `gpt-5-ultra` does not exist or you do not have access to it.", { model: "gpt-5-ultra", category: "model_not_found" })
    read("Error: stream failed: Stream ended", { status: null, category: ["transport", "unknown"] })
    read("Error: stream failed: Invalid status code: 429 Too Many Requests", { status: 429, category: "rate_limit" })
    read("Error: http error: error sending request for url (https://api.openai.com/v1/chat/completions): operation timed out", { status: null, category: "transport", provider: "openai" })
  })

  // alexrudall/ruby-openai:lib/openai/http.rb (Faraday errors; the body logged as `OpenAI HTTP Error (spotted in
  // ruby-openai x.y.z): {hash}`), crmne/ruby_llm:lib/ruby_llm/error.rb (RateLimitError, UnauthorizedError, OverloadedError)
  it("ruby-openai: Faraday's `the server responded with status 429` and the logged hash body", () => {
    read("Faraday::TooManyRequestsError: the server responded with status 429", { status: 429, category: "rate_limit", kind: "unknown" })
    read("Faraday::UnauthorizedError: the server responded with status 401", { status: 401, category: "auth_key" })
    read('OpenAI HTTP Error (spotted in ruby-openai 7.3.1): {"error"=>{"message"=>"Rate limit reached for gpt-4o-mini in organization org-AbCdEf123 on requests per min (RPM): Limit 3, Used 3, Requested 1.", "type"=>"requests", "param"=>nil, "code"=>"rate_limit_exceeded"}}', {
      code: "rate_limit_exceeded", model: "gpt-4o-mini", category: "rate_limit", kind: "RPM", provider: "openai"
    })
  })

  it("ruby_llm: RateLimitError, UnauthorizedError, OverloadedError", () => {
    read("RubyLLM::RateLimitError: Rate limit reached for gpt-4.1-nano in organization org-AbCdEf123 on tokens per min (TPM): Limit 200000, Used 199422, Requested 1544.", {
      model: "gpt-4.1-nano", category: "rate_limit", kind: "TPM", provider: "openai"
    })
    read("RubyLLM::UnauthorizedError: Incorrect API key provided: sk-proj-****abcd. You can find your API key at https://platform.openai.com/account/api-keys.", { category: "auth_key" })
    read("RubyLLM::OverloadedError: Overloaded", { category: "overload" })
  })

  // openai-php/client:src/Exceptions/ErrorException.php, RateLimitException.php, TransporterException.php
  // (PHP prints `Class: message in /path/File.php:line`)
  it("openai-php: ErrorException, RateLimitException, TransporterException", () => {
    read("PHP Fatal error:  Uncaught OpenAI\\Exceptions\\ErrorException: You exceeded your current quota, please check your plan and billing details. in /var/www/vendor/openai-php/client/src/Transporters/HttpTransporter.php:131", {
      message: "You exceeded your current quota, please check your plan and billing details.", category: "quota", provider: "openai"
    })
    read("OpenAI\\Exceptions\\RateLimitException: Request rate limit has been exceeded. in /var/www/vendor/openai-php/client/src/Transporters/HttpTransporter.php:144", {
      message: "Request rate limit has been exceeded.", category: "rate_limit", provider: "openai"
    })
    read("OpenAI\\Exceptions\\TransporterException: cURL error 28: Operation timed out after 30001 milliseconds with 0 bytes received (see https://curl.haxx.se/libcurl/c/libcurl-errors.html) for https://api.openai.com/v1/chat/completions", {
      status: null, category: "transport", provider: "openai"
    })
  })
})

describe("HTTP clients' own raise_for_status and transport texts", () => {
  // encode/httpx:httpx/_models.py Response.raise_for_status (`{error_type} '{status} {reason}' for url '{url}'`
  // and the MDN link line)
  it("httpx: HTTPStatusError of a 429 and of a 503 from a local Ollama", () => {
    read("httpx.HTTPStatusError: Client error '429 Too Many Requests' for url 'https://api.openai.com/v1/chat/completions'\nFor more information check: https://developer.mozilla.org/en-US/docs/Web/HTTP/Status/429", {
      status: 429, category: "rate_limit", provider: "openai"
    })
    read("httpx.HTTPStatusError: Server error '503 Service Unavailable' for url 'http://localhost:11434/api/chat'\nFor more information check: https://developer.mozilla.org/en-US/docs/Web/HTTP/Status/503", {
      status: 503, category: "overload", provider: "ollama"
    })
  })

  // aio-libs/aiohttp:aiohttp/client_exceptions.py ClientResponseError.__str__ (`{status}, message={message!r}, url={url!r}`)
  it("aiohttp: ClientResponseError `429, message='Too Many Requests', url=…`", () => {
    read("aiohttp.client_exceptions.ClientResponseError: 429, message='Too Many Requests', url='https://api.anthropic.com/v1/messages'", {
      status: 429, category: "rate_limit", provider: "anthropic"
    })
    read("aiohttp.client_exceptions.ClientResponseError: 401, message='Unauthorized', url=URL('https://api.openai.com/v1/chat/completions')", {
      status: 401, message: "Unauthorized", category: "auth_key", provider: "openai"
    })
  })

  // psf/requests:src/requests/models.py Response.raise_for_status (`{status} Client Error: {reason} for url: {url}`)
  it("requests: HTTPError `429 Client Error: Too Many Requests for url: …`", () => {
    read("requests.exceptions.HTTPError: 429 Client Error: Too Many Requests for url: https://api.mistral.ai/v1/chat/completions", { status: 429, category: "rate_limit", provider: "mistral" })
    read("requests.exceptions.HTTPError: 503 Server Error: Service Unavailable for url: https://api.cohere.com/v1/chat", { status: 503, category: "overload", provider: "cohere" })
  })

  it("requests/urllib3, aiohttp, httpx transport failures", () => {
    read("requests.exceptions.ConnectionError: HTTPSConnectionPool(host='api.openai.com', port=443): Max retries exceeded with url: /v1/chat/completions (Caused by NameResolutionError(\"<urllib3.connection.HTTPSConnection object at 0x7f2c1a3b4d90>: Failed to resolve 'api.openai.com' ([Errno -3] Temporary failure in name resolution)\"))", {
      status: null, category: "transport", provider: "openai"
    })
    read("requests.exceptions.ReadTimeout: HTTPSConnectionPool(host='api.deepseek.com', port=443): Read timed out. (read timeout=60)", { category: "transport", provider: "deepseek" })
    read("aiohttp.client_exceptions.ClientConnectorError: Cannot connect to host api.openai.com:443 ssl:default [Connection reset by peer]", { category: "transport", provider: "openai" })
    read("httpx.ConnectError: [Errno 111] Connection refused", { status: null, message: "[Errno 111] Connection refused", category: "transport" })
    read("httpx.ReadTimeout: The read operation timed out", { category: "transport" })
  })
})

describe("older SDK releases and wrappers", () => {
  // openai-python < 1.0: openai/error.py (RateLimitError, InvalidRequestError, APIConnectionError
  // "Error communicating with OpenAI: …", ServiceUnavailableError; no status in the text)
  it("openai-python 0.x: openai.error.* classes", () => {
    read("openai.error.RateLimitError: You exceeded your current quota, please check your plan and billing details.", { status: null, category: "quota", provider: "openai" })
    read("openai.error.InvalidRequestError: The model `text-davinci-003` has been deprecated, learn more here: https://platform.openai.com/docs/deprecations", {
      status: null, model: "text-davinci-003", category: ["model_not_found", "invalid_request"], provider: "openai"
    })
    read("openai.error.InvalidRequestError: Unrecognized request argument supplied: functions", { status: null, category: "invalid_request" })
    read("openai.error.APIConnectionError: Error communicating with OpenAI: HTTPSConnectionPool(host='api.openai.com', port=443): Max retries exceeded with url: /v1/chat/completions (Caused by ProxyError('Cannot connect to proxy.', OSError('Tunnel connection failed: 407 Proxy Authentication Required')))", {
      category: "transport", provider: "openai"
    })
    read("openai.error.ServiceUnavailableError: The server is overloaded or not ready yet.", { status: null, category: "overload" })
  })

  it("openai-python: the status error logged by the root logger, without the class", () => {
    read("ERROR:root:Error code: 429 - {'error': {'message': 'Rate limit reached for gpt-4o-mini in organization org-AbCdEf123 on tokens per min (TPM): Limit 200000, Used 199812, Requested 640.', 'type': 'tokens', 'param': None, 'code': 'rate_limit_exceeded'}}", {
      status: 429, code: "rate_limit_exceeded", model: "gpt-4o-mini", category: "rate_limit", kind: "TPM", provider: "openai"
    })
  })

  it("openai-python against Azure and OpenAI-compatible servers: content filter, deployment, Groq's 413, vLLM's 400", () => {
    read("openai.BadRequestError: Error code: 400 - {'error': {'message': \"The response was filtered due to the prompt triggering Azure OpenAI's content management policy.\", 'type': None, 'param': 'prompt', 'code': 'content_filter', 'status': 400, 'innererror': {'code': 'ResponsibleAIPolicyViolation', 'content_filter_result': {'hate': {'filtered': False, 'severity': 'safe'}}}}}", {
      status: 400, code: "content_filter", category: "invalid_request"
    })
    read("openai.NotFoundError: Error code: 404 - {'error': {'code': 'DeploymentNotFound', 'message': 'The API deployment for this resource does not exist. If you created the deployment within the last 5 minutes, please wait a moment and try again.'}}", {
      status: 404, code: "DeploymentNotFound", category: "model_not_found"
    })
    read("openai.APIStatusError: Error code: 413 - {'error': {'message': 'Request too large for model `llama-3.1-8b-instant` in organization `org_01abc` service tier `on_demand` on tokens per minute (TPM): Limit 6000, Requested 9321, please reduce your message size and try again.', 'type': 'tokens', 'code': 'rate_limit_exceeded'}}", {
      status: 413, code: "rate_limit_exceeded", model: "llama-3.1-8b-instant"
    })
    read("openai.BadRequestError: Error code: 400 - {'object': 'error', 'message': \"This model's maximum context length is 32768 tokens. However, you requested 33792 tokens (1792 in the messages, 32000 in the completion). Please reduce the length of the messages or completion.\", 'type': 'BadRequestError', 'param': None, 'code': 400}", {
      status: 400, code: 400, category: "invalid_request"
    })
  })

  // openai-go / net/http: a client timeout (`Post "url": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`)
  it("openai-go / anthropic-go: net/http's client timeout", () => {
    read('Post "https://api.openai.com/v1/chat/completions": context deadline exceeded (Client.Timeout exceeded while awaiting headers)', { status: null, category: "transport", provider: "openai" })
  })

  // langchain-ai/langchain-google (langchain_google_genai: `Invalid argument provided to Gemini: {e}` of api-core's `{code} {message}`)
  it("langchain-google-genai: api-core's status inside ChatGoogleGenerativeAIError", () => {
    read('langchain_google_genai.chat_models.ChatGoogleGenerativeAIError: Invalid argument provided to Gemini: 400 API key not valid. Please pass a valid API key. [reason: "API_KEY_INVALID"\ndomain: "googleapis.com"\nmetadata {\n  key: "service"\n  value: "generativelanguage.googleapis.com"\n}\n]', {
      status: 400, message: /^API key not valid/, category: "auth_key", provider: "google"
    })
  })

  // LangChain (python) Bedrock: `ValueError: Error raised by bedrock service: {botocore's text}`
  it("LangChain Bedrock: botocore's text inside ValueError", () => {
    read("ValueError: Error raised by bedrock service: An error occurred (ThrottlingException) when calling the InvokeModel operation (reached max retries: 4): Too many tokens, please wait before trying again.", {
      code: "ThrottlingException", category: "rate_limit", provider: "bedrock"
    })
  })

  // google-api-core over google-api-python-client's HTTP text: `429 POST <url>: <message>`
  it("google-api-core: TooManyRequests over the REST transport names the model in the URL", () => {
    read("google.api_core.exceptions.TooManyRequests: 429 POST https://us-central1-aiplatform.googleapis.com/v1beta1/projects/my-proj/locations/us-central1/publishers/google/models/gemini-1.5-pro-002:streamGenerateContent?alt=sse: Resource exhausted. Please try again later. Please refer to https://cloud.google.com/vertex-ai/generative-ai/docs/quotas#error-code-429 for more details.", {
      status: 429, model: "gemini-1.5-pro-002", category: "rate_limit", provider: "google"
    })
  })

  // grpc-java (`io.grpc.StatusRuntimeException: UNAVAILABLE: io exception`) and grpc-js (`Error: 14 UNAVAILABLE: Name
  // resolution failed for target dns:…`): the channel never reached the service
  it("gRPC channels that could not connect are transport failures", () => {
    read("io.grpc.StatusRuntimeException: UNAVAILABLE: io exception", { status: null, errorType: "UNAVAILABLE", category: ["transport", "overload"] })
    read("Error: 14 UNAVAILABLE: Name resolution failed for target dns:us-central1-aiplatform.googleapis.com:443", { status: null, category: "transport", provider: "google" })
  })

  it("Azure.Core: a content filter's `Status: 400 (model_error)` with `ErrorCode: content_filter`", () => {
    read("Azure.RequestFailedException: The response was filtered due to the prompt triggering Azure OpenAI's content management policy. Please modify your prompt and retry. To learn more about our content filtering policies please read our documentation: https://go.microsoft.com/fwlink/?linkid=2198766\nStatus: 400 (model_error)\nErrorCode: content_filter", {
      status: 400, code: "content_filter", category: "invalid_request", provider: "azure"
    })
  })
})

describe("SDKs' transport failures", () => {
  // aws/aws-sdk-go-v2 (smithy-go's OperationError over a ResponseError of StatusCode 0: the request was never answered)
  it("aws-sdk-go-v2: `StatusCode: 0, RequestID: , request send failed, Post …: dial tcp: lookup …: no such host`", () => {
    read('operation error Bedrock Runtime: InvokeModel, exceeded maximum number of attempts, 3, https response error StatusCode: 0, RequestID: , request send failed, Post "https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-3-haiku-20240307-v1%3A0/invoke": dial tcp: lookup bedrock-runtime.us-east-1.amazonaws.com: no such host', {
      status: null, model: "anthropic.claude-3-haiku-20240307-v1:0", category: "transport", provider: "bedrock"
    })
  })

  // smithy-lang/smithy-typescript:packages/node-http-handler (the socket timeout's TimeoutError with $metadata)
  it("aws-sdk-js-v3: node-http-handler's TimeoutError", () => {
    read("TimeoutError: Connection timed out after 1000 ms\n    at ClientRequest.<anonymous> (/app/node_modules/@smithy/node-http-handler/dist-cjs/index.js:338:33) {\n  '$metadata': { attempts: 3, totalRetryDelay: 312 }\n}", {
      status: null, category: "transport"
    })
  })

  // Azure/azure-sdk-for-python:sdk/core/azure-core/azure/core/exceptions.py (ServiceRequestError, ServiceResponseError)
  it("azure-core python: ServiceRequestError and ServiceResponseError", () => {
    read("azure.core.exceptions.ServiceRequestError: <urllib3.connection.HTTPSConnection object at 0x7f1e2d3c4b50>: Failed to establish a new connection: [Errno -2] Name or service not known", {
      status: null, category: "transport", provider: "azure"
    })
    read("azure.core.exceptions.ServiceResponseError: ('Connection aborted.', RemoteDisconnected('Remote end closed connection without response'))", { category: "transport", provider: "azure" })
  })

  // .NET: HttpClient's HttpRequestException, System.ClientModel's retry policy (`Retry failed after N tries. … (The
  // operation was cancelled because it exceeded the configured timeout of …)`)
  it(".NET: HttpRequestException of DNS, and System.ClientModel's network timeout after its retries", () => {
    read("System.Net.Http.HttpRequestException: No such host is known. (my-resource.openai.azure.com:443)\n ---> System.Net.Sockets.SocketException (11001): No such host is known.", {
      status: null, category: "transport", provider: "azure"
    })
    read("System.ClientModel.ClientResultException: Retry failed after 4 tries. Retry settings can be adjusted in ClientOptions.Retry or by configuring a custom retry policy in ClientOptions.RetryPolicy. (The operation was cancelled because it exceeded the configured timeout of 0:01:40. Network timeout can be adjusted in ClientOptions.NetworkTimeout.)", {
      status: null, category: "transport"
    })
  })

  // openai-java / anthropic-sdk-java: OpenAIIoException / AnthropicIoException("Request failed") caused by the HTTP client
  it("openai-java and anthropic-java: IoException caused by the socket", () => {
    read("com.openai.errors.OpenAIIoException: Request failed\nCaused by: java.net.SocketTimeoutException: timeout", { status: null, category: "transport", provider: "openai" })
    read("com.anthropic.errors.AnthropicIoException: Request failed\nCaused by: java.net.ConnectException: Failed to connect to api.anthropic.com/160.79.104.10:443", {
      status: null, category: "transport", provider: "anthropic"
    })
  })

  it("Spring's RestClient and LangChain4j's TimeoutException", () => {
    read('org.springframework.web.client.ResourceAccessException: I/O error on POST request for "https://api.openai.com/v1/chat/completions": Connection reset', {
      status: null, category: "transport", provider: "openai"
    })
    read("dev.langchain4j.exception.TimeoutException: java.net.http.HttpTimeoutException: request timed out", { status: null, category: "transport" })
  })

  // ollama/ollama-python:ollama/_client.py (CONNECTION_ERROR_MESSAGE), ollama-js over undici's fetch
  it("ollama-python's ConnectionError and ollama-js's fetch failed", () => {
    read("ConnectionError: Failed to connect to Ollama. Please check that Ollama is downloaded, running and accessible. https://ollama.com/download", {
      status: null, category: "transport", provider: "ollama"
    })
    read("TypeError: fetch failed\n    at node:internal/deps/undici/undici:13502:13\n    at async post (/app/node_modules/ollama/dist/browser.cjs:135:20) {\n  [cause]: Error: connect ECONNREFUSED 127.0.0.1:11434", {
      status: null, category: "transport", provider: "ollama"
    })
  })

  it("anthropic-python's APITimeoutError with its long-request hint", () => {
    read("anthropic.APITimeoutError: Request timed out or interrupted. This could be due to a network timeout, dropped connection, or request cancellation. See https://docs.anthropic.com/en/api/errors#long-requests for more details.", {
      status: null, category: "transport", provider: "anthropic"
    })
  })

  // huggingface/huggingface_hub:src/huggingface_hub/utils/_http.py (BadRequestError: `(Request ID: …)`, blank line, `Bad request:`, the message)
  it("huggingface_hub: BadRequestError without a status line, and a 503 model loading", () => {
    read("huggingface_hub.errors.BadRequestError: (Request ID: Root=1-6789abcd-0123456789abcdef01234567)\n\nBad request:\nModel meta-llama/Llama-3.3-70B-Instruct is not supported by provider hf-inference.", {
      status: null, message: "Model meta-llama/Llama-3.3-70B-Instruct is not supported by provider hf-inference.", model: "meta-llama/Llama-3.3-70B-Instruct", category: "invalid_request", provider: "huggingface"
    })
    read("huggingface_hub.errors.HfHubHTTPError: 503 Server Error: Service Unavailable for url: https://api-inference.huggingface.co/models/mistralai/Mistral-7B-Instruct-v0.3 (Request ID: Root=1-6789abcd)\n\nModel mistralai/Mistral-7B-Instruct-v0.3 is currently loading", {
      status: 503, message: "Model mistralai/Mistral-7B-Instruct-v0.3 is currently loading", category: "overload", provider: "huggingface"
    })
  })
})

describe("an SDK's name tells the provider only when the answer does not", () => {
  // openai-python's AzureOpenAI client and anthropic-python's AnthropicBedrock raise the same classes
  // (openai/openai-python:src/openai/lib/azure.py, anthropics/anthropic-sdk-python:src/anthropic/lib/bedrock):
  // the body's code or wording names the API that answered
  it("openai-python against Azure OpenAI: the deployment and the rate-limit wording are Azure's", () => {
    read("openai.NotFoundError: Error code: 404 - {'error': {'code': 'DeploymentNotFound', 'message': 'The API deployment for this resource does not exist. If you created the deployment within the last 5 minutes, please wait a moment and try again.'}}", {
      status: 404, code: "DeploymentNotFound", category: "model_not_found", provider: "azure"
    })
    read("openai.RateLimitError: Error code: 429 - {'error': {'code': '429', 'message': 'Requests to the ChatCompletions_Create Operation under Azure OpenAI API version 2024-06-01 have exceeded call rate limit of your current OpenAI S0 pricing tier. Please retry after 1 second.'}}", {
      status: 429, code: 429, category: "rate_limit", kind: "RPM", provider: "azure"
    })
  })

  it("anthropic-python's AnthropicBedrock: Bedrock's own wordings", () => {
    read("anthropic.BadRequestError: Error code: 400 - {'message': 'The provided model identifier is invalid.'}", { status: 400, category: "model_not_found", provider: "bedrock" })
    read("anthropic.RateLimitError: Error code: 429 - {'message': 'Too many requests, please wait before trying again.'}", { status: 429, category: "rate_limit", provider: "bedrock" })
  })

  it("the SDK's name still tells the provider when nothing else does", () => {
    read("openai.APIConnectionError: Connection error.", { provider: "openai" })
    read("anthropic.InternalServerError: Error code: 500 - {'type': 'error', 'error': {'type': 'api_error', 'message': 'Internal server error'}}", { status: 500, category: "server_error", provider: "anthropic" })
  })

  // mistralai's body shares Perplexity's `invalid_model` type (tmc/langchaingo#1233: `{"object":"error","message":"Invalid
  // model: ","type":"invalid_model","param":null,"code":"1500"}`): the type alone names no provider
  it("Mistral's invalid_model body through mistralai's Speakeasy SDKError", () => {
    read('SDKError: API error occurred: Status 400 Content-Type application/json; charset=utf-8\nBody: {"object":"error","message":"Invalid model: mistral-huge-latest","type":"invalid_model","param":null,"code":"1500"}', {
      status: 400, code: 1500, errorType: "invalid_model", model: "mistral-huge-latest", category: "model_not_found", provider: "mistral"
    })
  })
})

describe("frameworks wrapping the SDKs' errors", () => {
  // microsoft/semantic-kernel python: ServiceResponseException(f"{type(self)} service failed to complete the prompt", ex);
  // Python's str() of an exception with two args is the tuple's repr
  it("Semantic Kernel (python): the SDK's error inside ServiceResponseException's args", () => {
    read("semantic_kernel.exceptions.service_exceptions.ServiceResponseException: (\"<class 'semantic_kernel.connectors.ai.open_ai.services.open_ai_chat_completion.OpenAIChatCompletion'> service failed to complete the prompt\", RateLimitError(\"Error code: 429 - {'error': {'message': 'Rate limit reached for gpt-4o in organization org-AbCdEf123 on tokens per min (TPM): Limit 30000, Used 29500, Requested 900.', 'type': 'tokens', 'param': None, 'code': 'rate_limit_exceeded'}}\"))", {
      status: 429, code: "rate_limit_exceeded", model: "gpt-4o", category: "rate_limit", kind: "TPM", provider: "openai"
    })
  })

  // langchain-ai/langchain:libs/community/langchain_community/llms/ollama.py (OllamaEndpointNotFoundError)
  it("LangChain community: OllamaEndpointNotFoundError", () => {
    read("langchain_community.llms.ollama.OllamaEndpointNotFoundError: Ollama call failed with status code 404. Maybe your model is not found and you should pull the model with `ollama pull llama3`.", {
      status: 404, model: "llama3", category: "model_not_found", provider: "ollama"
    })
  })

  it("LlamaIndex and tenacity around openai-python's errors", () => {
    read("llama_index.core.base.llms.types.ChatResponse: openai.RateLimitError: Error code: 429 - {'error': {'message': 'You exceeded your current quota, please check your plan and billing details.', 'type': 'insufficient_quota', 'param': None, 'code': 'insufficient_quota'}}", {
      status: 429, code: "insufficient_quota", category: "quota", provider: "openai"
    })
    // jd/tenacity: RetryError's str is `RetryError[<Future … raised RateLimitError>]`: the class is all it says
    read("tenacity.RetryError: RetryError[<Future at 0x7f8b1c2d3e50 state=finished raised RateLimitError>]", { status: null, category: "rate_limit", kind: "unknown" })
  })

  it("anthropic-typescript: `400 {envelope}` names Anthropic by its envelope", () => {
    read('Error: 400 {"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 215000 tokens > 200000 maximum"},"request_id":"req_011CSHfN3x5a1b2c3d4e5f6g"}', {
      status: 400, errorType: "invalid_request_error", message: "prompt is too long: 215000 tokens > 200000 maximum", category: "invalid_request", provider: "anthropic"
    })
  })

  // vercel/ai APICallError: `Cannot connect to API: …` (handleFetchError), the Gemini body in responseBody
  it("Vercel AI SDK: APICallError that could not connect, and a Gemini 400 in responseBody", () => {
    read("AI_APICallError: Cannot connect to API: connect ECONNREFUSED 127.0.0.1:11434", { status: null, category: "transport", provider: "ollama" })
    read("APICallError [AI_APICallError]: Bad Request\n    at /app/node_modules/@ai-sdk/provider-utils/dist/index.mjs:700:14 {\n  url: 'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse',\n  statusCode: 400,\n  responseBody: '{\\n  \"error\": {\\n    \"code\": 400,\\n    \"message\": \"API key not valid. Please pass a valid API key.\",\\n    \"status\": \"INVALID_ARGUMENT\"\\n  }\\n}\\n',\n  isRetryable: false\n}", {
      status: 400, model: "gemini-2.5-pro", message: "API key not valid. Please pass a valid API key.", category: "auth_key", provider: "google"
    })
  })

  // BerriAI/litellm proxy: the exception's str in an OpenAI-shaped body, the status as a string code
  it("LiteLLM proxy's error body", () => {
    read('{"error":{"message":"litellm.RateLimitError: RateLimitError: OpenAIException - Rate limit reached for gpt-4o in organization org-AbCdEf123 on requests per min (RPM): Limit 500, Used 500, Requested 1.","type":null,"param":null,"code":"429"}}', {
      status: 429, code: 429, model: "gpt-4o", category: "rate_limit", kind: "RPM"
    })
  })

  // openai-node / openai-python with a gateway's HTML page as the body
  it("openai-node and openai-python: a gateway's 502 page as the error", () => {
    read("InternalServerError: 502 <html>\n<head><title>502 Bad Gateway</title></head>\n<body>\n<center><h1>502 Bad Gateway</h1></center>\n<hr><center>cloudflare</center>\n</body>\n</html>", {
      status: 502, message: "502 Bad Gateway", category: "transport"
    })
    read("openai.InternalServerError: <html>\n<head><title>502 Bad Gateway</title></head>\n<body>\n<center><h1>502 Bad Gateway</h1></center>\n</body>\n</html>", {
      status: 502, category: "transport"
    })
  })

  it("google-genai python: a leaked key's 403", () => {
    read("google.genai.errors.ClientError: 403 PERMISSION_DENIED. {'error': {'code': 403, 'message': 'Your API key was reported as leaked. Please use another API key.', 'status': 'PERMISSION_DENIED'}}", {
      status: 403, errorType: "PERMISSION_DENIED", category: ["permission", "auth_key"], provider: "google"
    })
  })
})

describe("tracebacks as Python prints them (the request line names the model)", () => {
  it("anthropic-python, google-genai and botocore tracebacks", () => {
    read([
      "Traceback (most recent call last):",
      '  File "/app/bot.py", line 41, in answer',
      '    msg = client.messages.create(model="claude-sonnet-4-20250514", max_tokens=1024, messages=history)',
      '  File "/usr/local/lib/python3.12/site-packages/anthropic/_base_client.py", line 1064, in _request',
      "    raise self._make_status_error_from_response(err.response) from None",
      "anthropic.RateLimitError: Error code: 429 - {'type': 'error', 'error': {'type': 'rate_limit_error', 'message': 'This request would exceed the rate limit for your organization (5b1c2d3e) of 30,000 input tokens per minute. For details, refer to: https://docs.claude.com/en/api/rate-limits.'}, 'request_id': 'req_011CSHfN3x5a1b2c3d4e5f6g'}"
    ].join("\n"), { status: 429, model: "claude-sonnet-4-20250514", category: "rate_limit", kind: "TPM", provider: "anthropic" })
    read([
      "Traceback (most recent call last):",
      '  File "/app/main.py", line 9, in <module>',
      '    response = client.models.generate_content(model="gemini-2.5-flash", contents="hi")',
      '  File "/usr/local/lib/python3.12/site-packages/google/genai/_api_client.py", line 1137, in _request',
      "    errors.APIError.raise_for_response(response)",
      '  File "/usr/local/lib/python3.12/site-packages/google/genai/errors.py", line 102, in raise_for_response',
      "    raise ServerError(status_code, response_json, response)",
      "google.genai.errors.ServerError: 503 UNAVAILABLE. {'error': {'code': 503, 'message': 'The model is overloaded. Please try again later.', 'status': 'UNAVAILABLE'}}"
    ].join("\n"), { status: 503, model: "gemini-2.5-flash", message: "The model is overloaded. Please try again later.", category: "overload", provider: "google" })
    read([
      "Traceback (most recent call last):",
      '  File "/app/run.py", line 20, in <module>',
      '    resp = brt.converse(modelId="anthropic.claude-3-5-sonnet-20240620-v1:0", messages=msgs)',
      '  File "/usr/local/lib/python3.12/site-packages/botocore/client.py", line 1023, in _make_api_call',
      "    raise error_class(parsed_response, operation_name)",
      "botocore.errorfactory.ThrottlingException: An error occurred (ThrottlingException) when calling the Converse operation (reached max retries: 4): Too many tokens, please wait before trying again."
    ].join("\n"), { code: "ThrottlingException", model: "anthropic.claude-3-5-sonnet-20240620-v1:0", category: "rate_limit", provider: "bedrock" })
  })
})
