/**
 * Not a provider: the error classes of the OpenAI-style client libraries (the official SDKs in
 * Python, Node, Go and Java name them alike, and so do LiteLLM and most wrappers) and the
 * OpenAI-style `error.type` / string `code` values that OpenAI-compatible APIs and relays copy.
 * Records matched here get no `provider` from it.
 * https://github.com/openai/openai-python#handling-errors
 */
import type { ProviderFamily } from "../types.js"

export default {
  id: "common",
  name: "OpenAI-style clients and envelopes (any provider)",
  hosts: [],
  markers: [],
  entries: [
    { id: "common.class.rate-limit", match: { errorClass: ["RateLimitError", "RateLimitException", "TooManyRequestsError"] }, category: "rate_limit", samples: ["s093"] },
    { id: "common.class.authentication", match: { errorClass: ["AuthenticationError", "AuthenticationException", "UnauthorizedError"] }, category: "auth_key", samples: ["s043"] },
    { id: "common.class.permission", match: { errorClass: ["PermissionDeniedError", "PermissionDeniedException", "ForbiddenError"] }, category: "permission", samples: ["s045"] },
    { id: "common.class.bad-request", match: { errorClass: ["BadRequestError", "UnprocessableEntityError", "BadRequestException", "ContextWindowExceededError", "ContentPolicyViolationError"] }, category: "invalid_request", samples: ["s038"] },
    { id: "common.class.not-found", match: { errorClass: ["NotFoundError"], message: /\bmodel\b/i }, category: "model_not_found", samples: ["s038"] },
    { id: "common.class.internal", match: { errorClass: ["InternalServerError", "InternalServerException", "APIError"], message: /internal|server error|unknown error/i }, category: "server_error", samples: ["s110"] },
    { id: "common.class.unavailable", match: { errorClass: ["ServiceUnavailableError", "ServiceUnavailableException", "OverloadedError"] }, category: "overload", samples: ["s099"] },
    { id: "common.class.timeout", match: { errorClass: ["APITimeoutError", "Timeout", "ConnectTimeout", "ReadTimeout", "TimeoutError", "SocketTimeoutException", "HttpTimeoutException"] }, category: "transport", samples: ["s110"] },
    { id: "common.class.connection", match: { errorClass: ["APIConnectionError", "ConnectError", "ConnectionError", "ProxyError", "SSLError", "RemoteProtocolError", "ConnectException", "UnknownHostException"] }, category: "transport", samples: ["s110"] },
    { id: "common.type.rate-limit", match: { type: ["rate_limit_exceeded", "rate_limit_error", "requests", "tokens", "rate_limited", "too_many_requests"] }, category: "rate_limit", samples: ["s080"] },
    { id: "common.code.rate-limit", match: { code: ["rate_limit_exceeded", "rate_limit_error", "rate_limited", "too_many_requests", "ratelimitexceeded"] }, category: "rate_limit", samples: ["s076"] },
    { id: "common.type.quota", match: { type: ["insufficient_quota", "billing_hard_limit_reached", "insufficient_balance", "billing_not_active"] }, category: "quota", samples: ["s091"] },
    { id: "common.code.quota", match: { code: ["insufficient_quota", "billing_hard_limit_reached", "insufficient_balance", "billing_not_active", "insufficient_user_quota"] }, category: "quota", samples: ["s091"] },
    { id: "common.type.auth", match: { type: ["invalid_api_key", "authentication_error", "unauthorized"] }, category: "auth_key", samples: ["s043"] },
    { id: "common.code.auth", match: { code: ["invalid_api_key", "authentication_error", "unauthorized", "invalid_authentication"] }, category: "auth_key", samples: ["s043"] },
    { id: "common.type.permission", match: { type: ["permission_error", "permission_denied", "forbidden"] }, category: "permission", samples: ["s045"] },
    { id: "common.code.model-not-found", match: { code: ["model_not_found", "model_not_available"] }, category: "model_not_found", samples: ["s038"] },
    { id: "common.type.model-not-found", match: { type: ["model_not_found", "not_found_error"], message: /\bmodel\b/i }, category: "model_not_found", samples: ["s038"] },
    { id: "common.type.invalid-request", match: { type: ["invalid_request_error", "context_length_exceeded", "invalid_request"] }, category: "invalid_request", samples: ["s038"] },
    { id: "common.code.context-length", match: { code: ["context_length_exceeded", "string_above_max_length"] }, category: "invalid_request", samples: ["s038"] },
    { id: "common.type.server", match: { type: ["server_error", "api_error", "internal_error", "internal_server_error"] }, category: "server_error", samples: ["s110"] },
    { id: "common.type.overload", match: { type: ["overloaded_error", "service_unavailable", "server_overloaded"] }, category: "overload", samples: ["s099"] },
    // gRPC status names (Google's envelope `status`, grpc clients' `StatusCode.X`, `code = X`)
    // https://grpc.github.io/grpc/core/md_doc_statuscodes.html
    { id: "common.grpc.resource-exhausted", match: { type: "RESOURCE_EXHAUSTED" }, category: "rate_limit", samples: ["s099", "wj-010", "wj-011"], doc: "https://cloud.google.com/apis/design/errors#handling_errors" },
    { id: "common.grpc.unavailable", match: { type: "UNAVAILABLE" }, category: "overload", samples: ["s099"] },
    { id: "common.grpc.permission-denied", match: { type: "PERMISSION_DENIED" }, category: "permission", samples: ["s049"] },
    { id: "common.grpc.unauthenticated", match: { type: "UNAUTHENTICATED" }, category: "auth_key", samples: ["s049"] },
    { id: "common.grpc.invalid-argument", match: { type: ["INVALID_ARGUMENT", "FAILED_PRECONDITION", "OUT_OF_RANGE"] }, category: "invalid_request", samples: ["s049"] },
    { id: "common.grpc.internal", match: { type: ["INTERNAL", "UNKNOWN", "DATA_LOSS"] }, category: "server_error", samples: ["s099"] },
    { id: "common.grpc.deadline-exceeded", match: { type: "DEADLINE_EXCEEDED" }, category: "transport", samples: ["s099"] },
    { id: "common.grpc.not-found-model", match: { type: "NOT_FOUND", message: /\bmodels?\b/i }, category: "model_not_found", samples: ["s049"] },
    // agent frameworks' own ids for an LLM call's failure: OpenHands' agent controller maps
    // litellm's AuthenticationError to `STATUS$ERROR_LLM_AUTHENTICATION`
    { id: "common.openhands.llm-authentication", match: { message: /STATUS\$ERROR_LLM_AUTHENTICATION\b/i }, category: "auth_key", samples: ["w19ab-022"], doc: "https://github.com/All-Hands-AI/OpenHands/blob/main/openhands/controller/agent_controller.py" }
  ]
} satisfies ProviderFamily
