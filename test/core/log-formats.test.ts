import { describe, expect, it } from "vitest"
import { RecordAssembler } from "../../src/parse/assemble.js"
import { parseRecord } from "../../src/parse/parse.js"
import { readRecord } from "../support/readRecord.js"

/**
 * Issue 14, the logging layer: the SDKs' own error texts (test/core/sdk-formats.test.ts) as each
 * logging framework renders them in a production log — key names, nesting, escaping and where the
 * stack goes, read from the frameworks' sources and documentation (cited per case). Values are
 * made up. A multi-line rendering is also fed line by line to the tailer's assembler, which must
 * keep it one record.
 */

const read = readRecord

const json = (o: unknown): string => JSON.stringify(o)

const TPM =
  "Rate limit reached for gpt-4o in organization org-AbCdEf123 on tokens per min (TPM): Limit 30000, Used 29874, Requested 1712. Please try again in 3.172s. Visit https://platform.openai.com/account/rate-limits to learn more."
const OPENAI_429 = `Error code: 429 - {'error': {'message': '${TPM}', 'type': 'tokens', 'param': None, 'code': 'rate_limit_exceeded'}}`
const REQ = "req_011CVaBcDeFgHiJkLmNoPqRs"
const ANTHROPIC_529 = `Error code: 529 - {'type': 'error', 'error': {'type': 'overloaded_error', 'message': 'Overloaded'}, 'request_id': '${REQ}'}`
const DEEPSEEK_402 = "Error code: 402 - {'error': {'message': 'Insufficient Balance', 'type': 'unknown_error', 'param': None, 'code': 'invalid_request_error'}}"
const PY_TRACE = [
  "Traceback (most recent call last):",
  '  File "/app/llm.py", line 41, in complete',
  "    resp = client.chat.completions.create(**kwargs)",
  '  File "/usr/local/lib/python3.12/site-packages/openai/_base_client.py", line 1059, in request',
  "    raise self._make_status_error_from_response(err.response) from None"
]
const PY_429_TRACE = [...PY_TRACE, `openai.RateLimitError: ${OPENAI_429}`].join("\n")
const BEDROCK =
  "An error occurred (ThrottlingException) when calling the InvokeModel operation (reached max retries: 4): Too many tokens, please wait before trying again."
const GO_OPENAI_429 = `error, status code: 429, status: 429 Too Many Requests, message: ${TPM}`

describe("Python logging", () => {
  // cpython Lib/logging/__init__.py: Formatter.format appends formatException(exc_info) on the
  // lines under the message; basicConfig's default format is `%(levelname)s:%(name)s:%(message)s`
  it("logger.exception: the message line, then the traceback", () => {
    read(["2026-11-25 11:02:03,456 ERROR app.llm: LLM call failed", ...PY_429_TRACE.split("\n")].join("\n"), {
      status: 429, code: "rate_limit_exceeded", message: TPM, model: "gpt-4o", category: "rate_limit", kind: "TPM", provider: "openai", oneRecord: true
    })
    read(["ERROR:app.llm:LLM call failed", ...PY_TRACE, `anthropic.InternalServerError: ${ANTHROPIC_529}`].join("\n"), {
      status: 529, message: "Overloaded", category: ["overload", "unknown"], provider: "anthropic", oneRecord: true
    })
  })

  it("logger.error('…: %s', e): str(e) without the class", () => {
    read(`2026-11-25 11:02:03,456 - app.llm - ERROR - deepseek call failed: ${DEEPSEEK_402}`, {
      status: 402, message: "Insufficient Balance", category: "quota"
    })
  })

  // a chained traceback: `The above exception was the direct cause of the following exception:`
  it("a chained timeout traceback (httpx.ReadTimeout, then openai.APITimeoutError)", () => {
    read([
      "2026-11-25 11:02:03,456 ERROR app.llm: LLM call failed",
      "Traceback (most recent call last):",
      '  File "/usr/local/lib/python3.12/site-packages/httpx/_transports/default.py", line 101, in map_httpcore_exceptions',
      "    yield",
      "httpx.ReadTimeout: The read operation timed out",
      "",
      "The above exception was the direct cause of the following exception:",
      "",
      "Traceback (most recent call last):",
      '  File "/usr/local/lib/python3.12/site-packages/openai/_base_client.py", line 1003, in request',
      "    raise APITimeoutError(request=request) from err",
      "openai.APITimeoutError: Request timed out."
    ].join("\n"), { status: null, category: "transport", provider: "openai" })
  })

  // nhairs/python-json-logger (pythonjsonlogger/core.py add_fields): the traceback under `exc_info`
  it("python-json-logger: `exc_info` holds the traceback", () => {
    read(json({ asctime: "2026-11-25 11:02:03,456", levelname: "ERROR", name: "app.llm", message: "LLM call failed", model: "gpt-4o", exc_info: PY_429_TRACE }), {
      status: 429, code: "rate_limit_exceeded", message: TPM, model: "gpt-4o", category: "rate_limit", kind: "TPM", provider: "openai"
    })
  })
})

describe("structlog", () => {
  // hynek/structlog src/structlog/processors.py format_exc_info (`exception`: the traceback text),
  // dict_tracebacks -> tracebacks.py ExceptionDictTransformer (`exception`: a list of
  // {exc_type, exc_value, syntax_error, is_cause, frames})
  it("JSONRenderer with format_exc_info", () => {
    read(json({ event: "llm call failed", model: "claude-sonnet-4-20250514", level: "error", timestamp: "2026-11-25T11:02:03.456Z", exception: [...PY_TRACE, `anthropic.InternalServerError: ${ANTHROPIC_529}`].join("\n") }), {
      status: 529, message: "Overloaded", model: "claude-sonnet-4-20250514", category: ["overload", "unknown"], provider: "anthropic"
    })
  })

  it("JSONRenderer with dict_tracebacks", () => {
    read(json({
      event: "llm call failed", model: "gpt-4o", level: "error", timestamp: "2026-11-25T11:02:03.456Z",
      exception: [{ exc_type: "RateLimitError", exc_value: OPENAI_429, exc_notes: [], syntax_error: null, is_cause: false, frames: [{ filename: "/usr/local/lib/python3.12/site-packages/openai/_base_client.py", lineno: 1059, name: "request", locals: null }], is_group: false, exceptions: [] }]
    }), { status: 429, code: "rate_limit_exceeded", message: TPM, model: "gpt-4o", category: "rate_limit", kind: "TPM", provider: "openai" })
  })

  // structlog/dev.py ConsoleRenderer: `timestamp [level    ] event   key=value`, the exception under it
  it("ConsoleRenderer (plain_traceback)", () => {
    read(["2026-11-25T11:02:03.456789Z [error    ] llm call failed                model=gpt-4o provider=openai", ...PY_429_TRACE.split("\n")].join("\n"), {
      status: 429, code: "rate_limit_exceeded", model: "gpt-4o", category: "rate_limit", kind: "TPM", provider: "openai", oneRecord: true
    })
  })
})

describe("loguru", () => {
  // Delgan/loguru loguru/_defaults.py LOGURU_FORMAT (`{time} | {level: <8} | {name}:{function}:{line} - {message}`),
  // _better_exceptions.py (the `> File` marker and the variables under the frames with diagnose=True)
  it("logger.exception in the default format with backtrace/diagnose", () => {
    read([
      "2026-11-25 11:02:03.456 | ERROR    | app.llm:complete:41 - LLM call failed",
      "Traceback (most recent call last):",
      "",
      '  File "/app/main.py", line 12, in <module>',
      "    complete(prompt)",
      "    └ <function complete at 0x7f3a2c1d0e00>",
      "",
      '> File "/app/llm.py", line 41, in complete',
      "    resp = client.chat.completions.create(model=model, messages=msgs)",
      "           │      │    │           │            │              └ [{'role': 'user', 'content': '…'}]",
      "           │      │    │           │            └ 'gpt-4o'",
      "           │      │    │           └ <function Completions.create at 0x7f3a2b9c8f40>",
      "           └ <openai.OpenAI object at 0x7f3a2c1e2d50>",
      "",
      `openai.RateLimitError: ${OPENAI_429}`
    ].join("\n"), { status: 429, code: "rate_limit_exceeded", message: TPM, model: "gpt-4o", category: "rate_limit", kind: "TPM", provider: "openai", oneRecord: true })
  })

  // loguru/_handler.py _serialize_record: {"text": the formatted line, "record": {…, "exception":
  // {"type", "value", "traceback"}, "extra": {…}, "message": …}}
  it("serialize=True: `record.exception` and `record.extra`", () => {
    read(json({
      text: `2026-11-25 11:02:03.456 | ERROR    | app.llm:complete:41 - LLM call failed\n${PY_429_TRACE}\n`,
      record: {
        elapsed: { repr: "0:00:01.204", seconds: 1.204 }, exception: { type: "RateLimitError", value: OPENAI_429, traceback: true },
        extra: { model: "gpt-4o" }, file: { name: "llm.py", path: "/app/llm.py" }, function: "complete", level: { icon: "❌", name: "ERROR", no: 40 },
        line: 41, message: "LLM call failed", module: "llm", name: "app.llm", process: { id: 1, name: "MainProcess" }, thread: { id: 1, name: "MainThread" },
        time: { repr: "2026-11-25 11:02:03.456000+00:00", timestamp: 1764068523.456 }
      }
    }), { status: 429, code: "rate_limit_exceeded", message: TPM, model: "gpt-4o", category: "rate_limit", kind: "TPM", provider: "openai" })
    read(json({
      text: "2026-11-25 11:02:03.456 | ERROR    | app.llm:complete:41 - bedrock call failed\n",
      record: { exception: { type: "ThrottlingException", value: BEDROCK, traceback: true }, extra: { model_id: "anthropic.claude-3-5-sonnet-20240620-v1:0" }, level: { name: "ERROR", no: 40 }, message: "bedrock call failed", name: "app.llm" }
    }), { code: "ThrottlingException", model: "anthropic.claude-3-5-sonnet-20240620-v1:0", category: "rate_limit", provider: "bedrock" })
  })
})

const NODE_TPM_STACK = `Error: 429 ${TPM}\n    at APIError.generate (/app/node_modules/openai/core/error.js:66:20)\n    at OpenAI.makeStatusError (/app/node_modules/openai/client.js:156:32)`

describe("Node: pino, winston, bunyan", () => {
  // pinojs/pino-std-serializers lib/err.js: {type: constructor name, message, stack, …the error's
  // own enumerable properties} (openai-node's APIError: status, headers, request_id, error, code, param, type)
  it("pino `err` of openai-node's RateLimitError", () => {
    read(json({
      level: 50, time: 1764068523456, pid: 1, hostname: "chat-api-7d9f", model: "gpt-4o",
      err: { type: "RateLimitError", message: `429 ${TPM}`, stack: NODE_TPM_STACK, status: 429, headers: { "x-request-id": "req_8f2a" }, request_id: "req_8f2a", error: { message: TPM, type: "tokens", param: null, code: "rate_limit_exceeded" }, code: "rate_limit_exceeded", param: null },
      msg: "chat completion failed"
    }), { status: 429, code: "rate_limit_exceeded", message: TPM, model: "gpt-4o", category: "rate_limit", kind: "TPM", provider: "openai" })
  })

  it("pino `err` of the Anthropic SDK's 529 and of a timeout", () => {
    read(json({
      level: 50, time: 1764068523456, model: "claude-sonnet-4-20250514",
      err: { type: "InternalServerError", message: '529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}', stack: "Error: 529 …\n    at APIError.generate (/app/node_modules/@anthropic-ai/sdk/core/error.js:61:14)", status: 529, error: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } }, requestID: REQ },
      msg: "messages.create failed"
    }), { status: 529, message: "Overloaded", model: "claude-sonnet-4-20250514", category: ["overload", "unknown"], provider: "anthropic" })
    read(json({ level: 50, time: 1764068523456, err: { type: "APIConnectionTimeoutError", message: "Request timed out.", stack: "Error: Request timed out.\n    at OpenAI.makeRequest (/app/node_modules/openai/client.js:332:23)" }, msg: "llm call failed" }), {
      status: null, category: "transport", provider: "openai"
    })
  })

  // winstonjs/logform errors.js ({stack: true}: the error's own properties, message and stack on info),
  // winston/lib/winston/logger.js (a meta Error: `${message} ${err.message}`)
  it("winston format.errors({stack: true}) + json", () => {
    read(json({ status: 402, headers: {}, error: { message: "Insufficient Balance", type: "unknown_error", param: null, code: "invalid_request_error" }, code: "invalid_request_error", param: null, type: "unknown_error", level: "error", message: "deepseek call failed 402 Insufficient Balance", stack: "Error: 402 Insufficient Balance\n    at APIError.generate (/app/node_modules/openai/core/error.js:66:20)", timestamp: "2026-11-25T11:02:03.456Z" }), {
      status: 402, message: "Insufficient Balance", category: "quota"
    })
  })

  // trentm/node-bunyan lib/bunyan.js stdSerializers.err: {message, name, stack, code, signal}
  it("bunyan `err` (only message, name, stack, code, signal)", () => {
    read(json({ name: "chat-api", hostname: "h1", pid: 7, level: 50, err: { message: `429 ${TPM}`, name: "Error", stack: NODE_TPM_STACK, code: "rate_limit_exceeded" }, model: "gpt-4o", msg: "chat completion failed", time: "2026-11-25T11:02:03.456Z", v: 0 }), {
      status: 429, code: "rate_limit_exceeded", model: "gpt-4o", category: "rate_limit", kind: "TPM", provider: "openai"
    })
  })
})

describe("Go: zap, logrus, slog, zerolog", () => {
  // uber-go/zap zapcore/error.go encodeError (`error`, and `errorVerbose` for a fmt.Formatter),
  // config.go NewProductionConfig (`level`, `ts`, `caller`, `msg`, `stacktrace`)
  it("zap production JSON", () => {
    read(json({ level: "error", ts: 1764068523.456, caller: "llm/client.go:88", msg: "chat completion failed", model: "gpt-4o", error: GO_OPENAI_429, stacktrace: "main.(*Client).Complete\n\t/app/llm/client.go:88\nmain.main\n\t/app/main.go:20" }), {
      status: 429, message: TPM, model: "gpt-4o", category: "rate_limit", kind: "TPM", provider: "openai"
    })
    read(json({ level: "error", ts: 1764068523.456, caller: "llm/client.go:88", msg: "chat completion failed", error: 'complete: Post "https://api.openai.com/v1/chat/completions": dial tcp 104.18.7.192:443: i/o timeout', errorVerbose: 'Post "https://api.openai.com/v1/chat/completions": dial tcp 104.18.7.192:443: i/o timeout\ncomplete\nmain.(*Client).Complete\n\t/app/llm/client.go:90' }), {
      status: null, category: "transport", provider: "openai"
    })
  })

  // zap's development console encoder: tab-separated, the fields as JSON, the stack on the lines under
  it("zap development console with the stack under it", () => {
    read([
      `2026-11-25T11:02:03.456Z\tERROR\tllm/client.go:88\tchat completion failed\t{"model": "gpt-4o", "error": "${GO_OPENAI_429}"}`,
      "main.(*Client).Complete",
      "\t/app/llm/client.go:88",
      "main.main",
      "\t/app/main.go:20"
    ].join("\n"), { status: 429, model: "gpt-4o", category: "rate_limit", kind: "TPM", provider: "openai", oneRecord: true })
  })

  // sirupsen/logrus text_formatter.go (key=value, values quoted with %q when needed; ErrorKey "error"), json_formatter.go
  it("logrus text and JSON formatters", () => {
    read(`time="2026-11-25T11:02:03Z" level=error msg="chat completion failed" error=${JSON.stringify(GO_OPENAI_429)} model=gpt-4o`, {
      status: 429, message: TPM, model: "gpt-4o", category: "rate_limit", kind: "TPM", provider: "openai"
    })
    read(json({ error: GO_OPENAI_429, level: "error", model: "gpt-4o", msg: "chat completion failed", time: "2026-11-25T11:02:03Z" }), {
      status: 429, message: TPM, model: "gpt-4o", category: "rate_limit", kind: "TPM", provider: "openai"
    })
  })

  // log/slog text_handler.go (strconv.Quote of a value that needs it), json_handler.go; anthropic-sdk-go's
  // apierror Error(): `%s "%s": %d %s %s`
  const ANTHROPIC_GO = `POST "https://api.anthropic.com/v1/messages": 529  {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"${REQ}"}`
  it("slog TextHandler and JSONHandler", () => {
    read(`time=2026-11-25T11:02:03.456Z level=ERROR msg="messages.new failed" model=claude-sonnet-4-20250514 err=${JSON.stringify(ANTHROPIC_GO)}`, {
      status: 529, message: "Overloaded", model: "claude-sonnet-4-20250514", category: ["overload", "unknown"], provider: "anthropic"
    })
    read(json({ time: "2026-11-25T11:02:03.456Z", level: "ERROR", msg: "messages.new failed", model: "claude-sonnet-4-20250514", err: ANTHROPIC_GO }), {
      status: 529, message: "Overloaded", model: "claude-sonnet-4-20250514", category: ["overload", "unknown"], provider: "anthropic"
    })
  })

  // rs/zerolog globals.go ErrorFieldName "error", MessageFieldName "message"; googleapis/go-genai
  // types.go APIError.Error(): `Error %d, Message: %s, Status: %s, Details: %v`
  it("zerolog `error` of go-genai's APIError", () => {
    read(json({ level: "error", error: "Error 429, Message: Resource has been exhausted (e.g. check quota)., Status: RESOURCE_EXHAUSTED, Details: []", model: "gemini-2.0-flash", time: "2026-11-25T11:02:03Z", message: "generate content failed" }), {
      status: 429, model: "gemini-2.0-flash", category: ["rate_limit", "quota"], provider: "google"
    })
  })
})

const JAVA_OPENAI = `com.openai.errors.RateLimitException: 429: ${TPM}`
const JAVA_BEDROCK =
  "software.amazon.awssdk.services.bedrockruntime.model.ThrottlingException: Too many tokens, please wait before trying again. (Service: BedrockRuntime, Status Code: 429, Request ID: 5b3c2e9a-1f0d-4c8e-9b7a-2d6e4f8a1c3b)"
const DOTNET_429 = `System.ClientModel.ClientResultException: HTTP 429 (tokens: rate_limit_exceeded)\n\n${TPM}\n   at OpenAI.ClientPipelineExtensions.ProcessMessageAsync(ClientPipeline pipeline, PipelineMessage message, RequestOptions options)\n   at OpenAI.Chat.ChatClient.CompleteChatAsync(IEnumerable\`1 messages, ChatCompletionOptions options, CancellationToken cancellationToken)`

describe("JVM: log4j2, logback", () => {
  // apache/logging-log4j2 log4j-layout-template-json EcsLayout.json (`error.type`, `error.message`,
  // `error.stack_trace` as flat keys), log4j-core JsonLayout (`thrown`: {name, message, localizedMessage, extendedStackTrace})
  it("log4j2 JsonTemplateLayout (ECS)", () => {
    read(json({ "@timestamp": "2026-11-25T11:02:03.456Z", "ecs.version": "1.2.0", "log.level": "ERROR", message: "Chat completion failed", "process.thread.name": "http-nio-8080-exec-3", "log.logger": "com.acme.llm.ChatService", "error.type": "com.openai.errors.RateLimitException", "error.message": `429: ${TPM}`, "error.stack_trace": `${JAVA_OPENAI}\n\tat com.openai.core.handlers.ErrorHandler.handle(ErrorHandler.kt:52)` }), {
      status: 429, message: TPM, model: "gpt-4o", category: "rate_limit", kind: "TPM", provider: "openai"
    })
  })

  it("log4j2 JsonLayout `thrown`", () => {
    read(json({ instant: { epochSecond: 1764068523, nanoOfSecond: 456000000 }, thread: "main", level: "ERROR", loggerName: "com.acme.llm.BedrockClient", message: "Bedrock call failed", thrown: { commonElementCount: 0, localizedMessage: JAVA_BEDROCK.slice(JAVA_BEDROCK.indexOf(": ") + 2), message: JAVA_BEDROCK.slice(JAVA_BEDROCK.indexOf(": ") + 2), name: "software.amazon.awssdk.services.bedrockruntime.model.ThrottlingException", extendedStackTrace: [{ class: "software.amazon.awssdk.core.internal.http.CombinedResponseHandler", method: "handleErrorResponse", file: "CombinedResponseHandler.java", line: 125, exact: false, location: "sdk-core-2.29.0.jar", version: "?" }] }, endOfBatch: false, loggerFqcn: "org.apache.logging.slf4j.Log4jLogger", threadId: 1, threadPriority: 5 }), {
      status: 429, code: "ThrottlingException", category: "rate_limit", provider: "bedrock"
    })
  })

  // logfellow/logstash-logback-encoder (`@timestamp`, `message`, `logger_name`, `level`, `stack_trace`, MDC keys)
  it("logback + LogstashEncoder `stack_trace`", () => {
    read(json({ "@timestamp": "2026-11-25T11:02:03.456Z", "@version": "1", message: "Bedrock call failed", logger_name: "com.acme.llm.BedrockClient", thread_name: "http-nio-8080-exec-3", level: "ERROR", level_value: 40000, stack_trace: `${JAVA_BEDROCK}\n\tat software.amazon.awssdk.core.internal.http.CombinedResponseHandler.handleErrorResponse(CombinedResponseHandler.java:125)`, modelId: "anthropic.claude-3-5-sonnet-20240620-v1:0" }), {
      status: 429, code: "ThrottlingException", model: "anthropic.claude-3-5-sonnet-20240620-v1:0", category: "rate_limit", provider: "bedrock"
    })
  })

  it("logback's default pattern with the stack under the line", () => {
    read([`2026-11-25 11:02:03.456 ERROR 1 --- [nio-8080-exec-3] c.acme.llm.ChatService : Chat completion failed`, JAVA_OPENAI, "\tat com.openai.core.handlers.ErrorHandler.handle(ErrorHandler.kt:52)", "\tat com.acme.llm.ChatService.complete(ChatService.java:41)"].join("\n"), {
      status: 429, model: "gpt-4o", category: "rate_limit", kind: "TPM", provider: "openai", oneRecord: true
    })
  })
})

describe(".NET: Serilog, Microsoft.Extensions.Logging", () => {
  // serilog/serilog-formatting-compact CompactJsonFormatter (`@t`, `@mt`, `@l`, `@x`, properties by
  // their names), RenderedCompactJsonFormatter (`@m`)
  it("Serilog compact JSON", () => {
    read(json({ "@t": "2026-11-25T11:02:03.4560000Z", "@mt": "Chat completion failed for {Model}", "@m": 'Chat completion failed for "gpt-4o"', "@l": "Error", "@x": DOTNET_429, Model: "gpt-4o", SourceContext: "Acme.Llm.ChatService" }), {
      status: 429, model: "gpt-4o", category: "rate_limit", kind: "TPM", provider: "openai"
    })
  })

  // dotnet/runtime Microsoft.Extensions.Logging.Console JsonConsoleFormatter (`Timestamp`, `EventId`,
  // `LogLevel`, `Category`, `Message`, `Exception`, `State`), SimpleConsoleFormatter (`fail: Category[0]`, indented lines)
  it("MEL JSON console and simple console", () => {
    read(json({ Timestamp: "2026-11-25T11:02:03.456Z", EventId: 0, LogLevel: "Error", Category: "Acme.Llm.ChatService", Message: "Chat completion failed for gpt-4o", Exception: DOTNET_429, State: { Message: "Chat completion failed for gpt-4o", Model: "gpt-4o", "{OriginalFormat}": "Chat completion failed for {Model}" } }), {
      status: 429, model: "gpt-4o", category: "rate_limit", kind: "TPM", provider: "openai"
    })
    read(["fail: Acme.Llm.ChatService[0]", "      Chat completion failed for gpt-4o", ...DOTNET_429.split("\n").map((l) => `      ${l}`)].join("\n"), {
      status: 429, model: "gpt-4o", category: "rate_limit", kind: "TPM", provider: "openai", oneRecord: true
    })
  })
})

describe("Rust tracing", () => {
  // tokio-rs/tracing tracing-subscriber fmt::format Full (`timestamp LEVEL target: message field=value`)
  // and Json (`fields`: {message, …}); reqwest Error Display (`HTTP status client error (429 Too Many Requests) for url (…)`)
  const REQWEST = "HTTP status client error (402 Payment Required) for url (https://api.deepseek.com/chat/completions)"
  it("fmt and JSON", () => {
    read(`2026-11-25T11:02:03.456789Z ERROR llm_gateway::upstream: upstream call failed error=${REQWEST} model="deepseek-chat"`, {
      status: 402, model: "deepseek-chat", category: "quota", provider: "deepseek"
    })
    read(json({ timestamp: "2026-11-25T11:02:03.456789Z", level: "ERROR", fields: { message: "upstream call failed", error: REQWEST, model: "deepseek-chat" }, target: "llm_gateway::upstream" }), {
      status: 402, model: "deepseek-chat", category: "quota", provider: "deepseek"
    })
  })
})

describe("clouds and containers", () => {
  // cloud.google.com/logging/docs/structured-logging (`severity`, `message` on stdout); an exported
  // LogEntry (`jsonPayload` or `textPayload`, `resource`, `severity`)
  const GENAI_429 = "google.genai.errors.ClientError: 429 RESOURCE_EXHAUSTED. {'error': {'code': 429, 'message': 'Resource exhausted. Please try again later.', 'status': 'RESOURCE_EXHAUSTED'}}"
  it("GCP structured logging on stdout and exported LogEntries", () => {
    read(json({ severity: "ERROR", message: `generate_content failed: ${GENAI_429}`, model: "gemini-2.0-flash", "logging.googleapis.com/trace": "projects/p/traces/abc" }), {
      status: 429, model: "gemini-2.0-flash", category: "rate_limit", provider: "google"
    })
    read(json({ insertId: "1x2y3z", jsonPayload: { message: `generate_content failed: ${GENAI_429}`, model: "gemini-2.0-flash" }, resource: { type: "cloud_run_revision", labels: { service_name: "chat-api" } }, timestamp: "2026-11-25T11:02:03.456Z", severity: "ERROR", logName: "projects/p/logs/run.googleapis.com%2Fstdout" }), {
      status: 429, model: "gemini-2.0-flash", category: "rate_limit", provider: "google"
    })
    read(json({ insertId: "1x2y3z", textPayload: `2026-11-25 11:02:03,456 ERROR app.llm: deepseek call failed: ${DEEPSEEK_402}`, resource: { type: "cloud_run_revision" }, timestamp: "2026-11-25T11:02:03.456Z", severity: "ERROR" }), {
      status: 402, message: "Insufficient Balance", category: "quota"
    })
  })

  // aws/aws-lambda-python-runtime-interface-client (JSON log format: `errorType`, `errorMessage`,
  // `stackTrace`), aws-lambda-nodejs-runtime-interface-client (`errorType`, `errorMessage`, `trace`)
  it("AWS Lambda JSON logs", () => {
    read(json({ timestamp: "2026-11-25T11:02:03Z", level: "ERROR", message: "bedrock call failed", logger: "root", requestId: "8f5c1e2d-3b4a-4c5d-8e9f-0a1b2c3d4e5f", errorType: "ThrottlingException", errorMessage: BEDROCK, stackTrace: ['  File "/var/task/app.py", line 20, in handler\n'] }), {
      code: "ThrottlingException", category: "rate_limit", provider: "bedrock"
    })
    read(`2026-11-25T11:02:03.456Z\t8f5c1e2d-3b4a-4c5d-8e9f-0a1b2c3d4e5f\tERROR\tInvoke Error \t${json({ errorType: "RateLimitError", errorMessage: `429 ${TPM}`, status: 429, trace: ["Error: 429 Rate limit reached", "    at APIError.generate (/var/task/node_modules/openai/core/error.js:66:20)"] })}`, {
      status: 429, model: "gpt-4o", category: "rate_limit", kind: "TPM", provider: "openai"
    })
  })

  // moby/moby daemon/logger/jsonfilelog (`{"log": line + "\n", "stream", "time"}`); the CRI log format
  // (kubelet: `time stream P|F line`)
  it("Docker json-file and the Kubernetes CRI prefix", () => {
    read(json({ log: `2026-11-25 11:02:03,456 ERROR app.llm: deepseek call failed: ${DEEPSEEK_402}\n`, stream: "stderr", time: "2026-11-25T11:02:03.456789012Z" }), {
      status: 402, message: "Insufficient Balance", category: "quota"
    })
    read(json({ log: `${json({ level: 50, time: 1764068523456, err: { type: "RateLimitError", message: `429 ${TPM}`, status: 429 }, model: "gpt-4o", msg: "chat completion failed" })}\n`, stream: "stdout", time: "2026-11-25T11:02:03.456789012Z" }), {
      status: 429, model: "gpt-4o", category: "rate_limit", kind: "TPM", provider: "openai"
    })
    read(`2026-11-25T11:02:03.456789012Z stderr F ${json({ level: "error", ts: 1764068523.456, msg: "chat completion failed", model: "gpt-4o", error: GO_OPENAI_429 })}`, {
      status: 429, model: "gpt-4o", category: "rate_limit", kind: "TPM", provider: "openai"
    })
    read("2026-11-25T11:02:03.456789012Z stdout F 2026-11-25 11:02:03 [ERROR] 调用上游失败: Error code: 403 - {'error': {'message': '该令牌额度已用尽，余额不足', 'type': 'new_api_error', 'code': 'insufficient_user_quota'}}", {
      status: 403, code: "insufficient_user_quota", category: "quota"
    })
  })
})

describe("OpenTelemetry and Sentry", () => {
  // OpenTelemetry semantic conventions: exceptions (`exception.type`, `exception.message`), HTTP
  // (`http.response.status_code`), GenAI (`gen_ai.system`, `gen_ai.request.model`), as a log record's
  // and a span's attributes
  it("a log record with exception attributes", () => {
    read(json({ timestamp: "2026-11-25T11:02:03.456Z", severity_text: "ERROR", body: "LLM call failed", attributes: { "exception.type": "openai.RateLimitError", "exception.message": OPENAI_429, "gen_ai.system": "openai", "gen_ai.request.model": "gpt-4o", "http.response.status_code": 429 }, resource: { "service.name": "chat-api" } }), {
      status: 429, code: "rate_limit_exceeded", message: TPM, model: "gpt-4o", category: "rate_limit", kind: "TPM", provider: "openai"
    })
  })

  it("a span with an exception event", () => {
    read(json({ name: "chat claude-sonnet-4-20250514", kind: "SPAN_KIND_CLIENT", status: { code: "STATUS_CODE_ERROR", message: ANTHROPIC_529 }, attributes: { "gen_ai.operation.name": "chat", "gen_ai.system": "anthropic", "gen_ai.request.model": "claude-sonnet-4-20250514", "error.type": "529" }, events: [{ name: "exception", attributes: { "exception.type": "anthropic.InternalServerError", "exception.message": ANTHROPIC_529 } }] }), {
      status: 529, message: "Overloaded", model: "claude-sonnet-4-20250514", category: ["overload", "unknown"], provider: "anthropic"
    })
  })

  // getsentry/sentry-python (event `exception.values[]`: {type, value, module, mechanism, stacktrace})
  it("a Sentry event", () => {
    read(json({ event_id: "9f8e7d6c5b4a39281706f5e4d3c2b1a0", level: "error", platform: "python", logger: "app.llm", exception: { values: [{ type: "RateLimitError", value: OPENAI_429, module: "openai", mechanism: { type: "logging", handled: true }, stacktrace: { frames: [{ filename: "openai/_base_client.py", lineno: 1059 }] } }] }, tags: { model: "gpt-4o" } }), {
      status: 429, code: "rate_limit_exceeded", message: TPM, model: "gpt-4o", category: "rate_limit", kind: "TPM", provider: "openai"
    })
  })
})

/** Records the assembler makes of `text`, as the tailer feeds it. */
function records(text: string): string[] {
  const a = new RecordAssembler()
  const out: string[] = []
  text.split("\n").forEach((l, i) => out.push(...a.push(l, i + 1, 0, 0).map((r) => r.text)))
  out.push(...a.flush().map((r) => r.text))
  return out
}

describe("more renderings", () => {
  // a container runtime writes each line of a traceback as its own entry: the final exception line is
  // read alone (the frames before it are no failure)
  it("a traceback through Docker json-file and the CRI format: the exception line's entry is the failure", () => {
    const lines = [...PY_TRACE, `openai.RateLimitError: ${OPENAI_429}`]
    for (const text of [
      lines.map((l) => json({ log: `${l}\n`, stream: "stderr", time: "2026-11-25T11:02:03.456789012Z" })).join("\n"),
      lines.map((l) => `2026-11-25T11:02:03.456789012Z stderr F ${l}`).join("\n")
    ]) {
      const rs = records(text)
      expect(rs).toHaveLength(lines.length)
      expect(rs.slice(0, -1).map((r) => parseRecord(r)._tag)).toEqual(rs.slice(0, -1).map(() => "Ignored"))
      read(rs[rs.length - 1], { status: 429, code: "rate_limit_exceeded", model: "gpt-4o", category: "rate_limit", kind: "TPM", provider: "openai" })
    }
  })

  it("Python logging of repr(e)", () => {
    read(`2026-11-25 11:02:03,456 ERROR app.llm: LLM call failed: RateLimitError("${OPENAI_429}")`, { status: 429, code: "rate_limit_exceeded", model: "gpt-4o", category: "rate_limit", kind: "TPM", provider: "openai" })
  })

  // @smithy/smithy-client's ServiceException (name, $fault, $metadata.httpStatusCode) through pino's err serializer
  it("pino `err` of an AWS SDK v3 ThrottlingException", () => {
    read(json({ level: 50, time: 1764068523456, err: { type: "ThrottlingException", message: "Too many tokens, please wait before trying again.", stack: "ThrottlingException: Too many tokens, please wait before trying again.\n    at de_ThrottlingExceptionRes (/app/node_modules/@aws-sdk/client-bedrock-runtime/dist-cjs/index.js:1450:21)", name: "ThrottlingException", $fault: "client", $metadata: { httpStatusCode: 429, requestId: "5b3c2e9a", attempts: 3, totalRetryDelay: 812 } }, modelId: "anthropic.claude-3-5-sonnet-20240620-v1:0", msg: "converse failed" }), {
      status: 429, code: "ThrottlingException", model: "anthropic.claude-3-5-sonnet-20240620-v1:0", category: "rate_limit", provider: "bedrock"
    })
  })

  // winston's json() without errors(): an Error's own enumerable properties only (no message, no stack)
  it("winston json() of an openai-node APIError under `error`", () => {
    read(json({ level: "error", message: "call failed", error: { status: 429, headers: {}, request_id: "req_8f2a", error: { message: TPM, type: "tokens", param: null, code: "rate_limit_exceeded" }, code: "rate_limit_exceeded", param: null, type: "tokens" }, timestamp: "2026-11-25T11:02:03.456Z" }), {
      status: 429, code: "rate_limit_exceeded", message: TPM, model: "gpt-4o", category: "rate_limit", kind: "TPM"
    })
  })

  // structlog's ConsoleRenderer prints values with repr()
  it("structlog ConsoleRenderer key=value with repr'd error", () => {
    read(`2026-11-25T11:02:03.456789Z [error    ] llm call failed                error="${ANTHROPIC_529}" model=claude-sonnet-4-20250514`, {
      status: 529, message: "Overloaded", model: "claude-sonnet-4-20250514", category: ["overload", "unknown"], provider: "anthropic"
    })
  })

  it("AWS Lambda's unhandled error and text log lines", () => {
    read(json({ errorMessage: "An error occurred (ThrottlingException) when calling the Converse operation (reached max retries: 4): Too many requests, please wait before trying again.", errorType: "ThrottlingException", requestId: "8f5c", stackTrace: ['  File "/var/task/app.py", line 20, in handler\n'] }), {
      code: "ThrottlingException", category: "rate_limit", provider: "bedrock"
    })
    read(`[ERROR]\t2026-11-25T11:02:03.456Z\t8f5c1e2d-3b4a-4c5d-8e9f-0a1b2c3d4e5f\tLLM call failed: ${OPENAI_429}`, { status: 429, model: "gpt-4o", category: "rate_limit", kind: "TPM", provider: "openai" })
  })

  it("a relay's Chinese balance message in a JSON log's body", () => {
    read(json({ level: "error", time: "2026-11-25T11:02:03+08:00", msg: "上游返回错误", status_code: 402, body: '{"error":{"message":"余额不足，请充值","type":"insufficient_quota","code":"insufficient_quota"}}', model: "deepseek-chat" }), {
      status: 402, code: "insufficient_quota", message: "余额不足，请充值", model: "deepseek-chat", category: "quota"
    })
  })

  it("slog TextHandler of a Gemini call's deadline", () => {
    read('time=2026-11-25T11:02:03.456Z level=ERROR msg="generate failed" model=gemini-2.0-flash err="Post \\"https://generativelanguage.googleapis.com/v1beta/models/gemini-2.0-flash:generateContent\\": context deadline exceeded"', {
      status: null, model: "gemini-2.0-flash", category: "transport", provider: "google"
    })
  })

  // log4j2 PatternLayout `%d [%t] %-5level %logger{36} - %msg%n` (%throwable appended), Serilog's console template
  it("log4j2 and Serilog text layouts: the exception under the line", () => {
    read([
      "2026-11-25 11:02:03.456 [http-nio-8080-exec-3] ERROR c.a.l.BedrockClient - Bedrock call failed",
      "software.amazon.awssdk.services.bedrockruntime.model.ThrottlingException: Too many tokens, please wait before trying again. (Service: BedrockRuntime, Status Code: 429, Request ID: 5b3c2e9a)",
      "\tat software.amazon.awssdk.core.internal.http.CombinedResponseHandler.handleErrorResponse(CombinedResponseHandler.java:125)"
    ].join("\n"), { status: 429, code: "ThrottlingException", category: "rate_limit", provider: "bedrock", oneRecord: true })
    read("[11:02:03 ERR] Chat completion failed for gpt-4o\nSystem.ClientModel.ClientResultException: HTTP 429 (tokens: rate_limit_exceeded)", {
      status: 429, code: "rate_limit_exceeded", model: "gpt-4o", category: "rate_limit", oneRecord: true
    })
  })
})
