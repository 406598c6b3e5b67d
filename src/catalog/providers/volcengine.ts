/**
 * Volcengine Ark / Doubao (火山方舟, ark.cn-beijing.volces.com/api/v3, OpenAI-compatible; BytePlus
 * ModelArk abroad). Body: a flat `{"code", "message", "param", "type", "request_id"?}` or the
 * OpenAI-style `{"error": {"code", "message", "param", "type"}}`; `code` is a dotted string
 * (`InvalidEndpointOrModel.NotFound`), `type` the HTTP reason (`BadRequest`, `Unauthorized`,
 * `Forbidden`, `NotFound`, `TooManyRequests`, `InternalServerError`), and every message ends with
 * `Request id: 021…` (a 0-2 + millisecond-timestamp id).
 * https://www.volcengine.com/docs/82379/1299023 (公共错误码) and https://www.volcengine.com/docs/82379/1099476
 * Documented statuses follow the contract table, except: 403 AccountOverdueError (overdue balance:
 * quota), 404 for an endpoint/model id that does not exist (model_not_found), 429 SetLimitExceeded
 * (the account's own "safe experience" inference cap: quota, not a rate limit).
 * The older MaaS v2 SDK (`volcengine.maas`, MaasException) shares the codes.
 */
import type { ProviderFamily } from "../types.js"

const DOC = "https://www.volcengine.com/docs/82379/1299023"

export default {
  id: "volcengine",
  name: "Volcengine Ark (Doubao)",
  hosts: ["volces.com", "volcengineapi.com", "bytepluses.com"],
  markers: [
    /volcenginesdkarkruntime|volcengine-go-sdk\/service\/arkruntime|com\.volcengine\.ark|volcengine\.maas|MaasException/,
    /火山方舟|火山引擎/,
    // codes only Ark uses (a relay that passes the body through still names Ark as the upstream)
    /InvalidEndpointOrModel\.|InvalidEndpoint\.(?:NotFound|ClosedEndpoint)|AccountOverdueError|ModelAccount(?:Rpm|Tpm|Ipm)RateLimitExceeded|RateLimitExceeded\.Endpoint(?:RPM|TPM)Exceeded/,
    // the message suffix: `Request id: 0217…` (an Ark request id is 021 + digits + hex)
    /Request ?id: ?\s?021\d{12}[0-9a-f]/i
  ],
  entries: [
    {
      id: "volcengine.account-overdue",
      // 403 Forbidden AccountOverdueError "The request failed because your account has an overdue balance."
      match: { code: ["AccountOverdueError", "OperationDenied.ServiceOverdue", "ServiceOverdue"] },
      category: "quota",
      identifies: true,
      samples: ["cnr-001", "wg-019"],
      doc: DOC
    },
    {
      id: "volcengine.account-overdue-wording",
      match: { message: /your account has an overdue balance/i },
      category: "quota",
      identifies: true,
      samples: ["cnr-001"],
      doc: DOC
    },
    {
      id: "volcengine.set-limit-exceeded",
      // 429 SetLimitExceeded "Your account … has reached the set inference limit for the … model, and the
      // model service has been paused … adjust or close the "Safe Experience Mode"": a cap the user set
      match: { message: /has reached the set inference limit|close the "?safe experience mode/i },
      category: "quota",
      identifies: true,
      samples: ["cnr-005"],
      doc: DOC
    },
    {
      id: "volcengine.set-limit-exceeded-code",
      match: { code: "SetLimitExceeded" },
      category: "quota",
      identifies: true,
      samples: ["cnr-005"],
      doc: DOC
    },
    {
      id: "volcengine.model-or-endpoint-not-found",
      // 404 NotFound InvalidEndpointOrModel.NotFound "The model or endpoint %s does not exist or you do not have access to it."
      match: { code: "InvalidEndpointOrModel.NotFound" },
      category: "model_not_found",
      identifies: true,
      samples: ["cnr-002", "cnr-004"],
      doc: DOC
    },
    {
      id: "volcengine.model-or-endpoint-not-found-wording",
      match: { message: /the model or endpoint [^\n]{1,100}? does not exist or you do not have access to it/i },
      category: "model_not_found",
      identifies: true,
      samples: ["cnr-002", "cnr-004"],
      doc: DOC
    },
    {
      id: "volcengine.endpoint-not-found",
      // 404 NotFound InvalidEndpoint.NotFound "The request targeted an endpoint that does not exist or is invalid."
      // (the `model` parameter carries the endpoint id `ep-…` or the model id)
      match: { code: "InvalidEndpoint.NotFound" },
      category: "model_not_found",
      identifies: true,
      samples: ["cnr-011"],
      doc: DOC
    },
    {
      id: "volcengine.endpoint-not-found-wording",
      match: { message: /the request targeted an endpoint that does not exist or is invalid/i },
      category: "model_not_found",
      identifies: true,
      samples: ["cnr-003", "cnr-011"],
      doc: DOC
    },
    {
      id: "volcengine.authentication",
      // 401 Unauthorized AuthenticationError "The API key or AK/SK in the request is missing or invalid."
      match: { code: "AuthenticationError" },
      category: "auth_key",
      samples: ["cnr-008"],
      doc: DOC
    },
    {
      id: "volcengine.authentication-wording",
      match: { message: /the API key (?:or AK\/SK )?in the request is missing or invalid/i },
      category: "auth_key",
      identifies: true,
      samples: ["cnr-008", "cnr-009"],
      doc: DOC
    },
    {
      id: "volcengine.invalid-parameter",
      // 400 BadRequest InvalidParameter / MissingParameter (Alibaba and Tencent use the same names)
      match: { code: ["InvalidParameter", "MissingParameter"] },
      category: "invalid_request",
      onlyForProvider: true,
      samples: ["cnr-012"],
      doc: DOC
    },
    {
      id: "volcengine.invalid-parameter-wording",
      // "One or more parameters specified in the request are not valid." /
      // "The parameter max_tokens specified in the request are not valid: …"
      match: { message: /(?:one or more parameters|the parameter [^\n]{1,60}?) specified in the request (?:is|are) not valid|is missing one or multiple required parameters/i },
      category: "invalid_request",
      identifies: true,
      samples: ["cnr-010", "cnr-012"],
      doc: DOC
    },
    {
      id: "volcengine.rate-limit-rpm",
      // 429 TooManyRequests RateLimitExceeded.EndpointRPMExceeded ("The Requests Per Minute (RPM) limit of the
      // associated endpoint for your account has been exceeded") / ModelAccountRpmRateLimitExceeded
      // ("RPM (Requests Per Minute) limit of the model … is exceeded")
      match: { code: ["RateLimitExceeded.EndpointRPMExceeded", "ModelAccountRpmRateLimitExceeded", "APIAccountRpmRateLimitExceeded"] },
      category: "rate_limit",
      rateLimitKind: "RPM",
      identifies: true,
      samples: ["cnr-018"],
      doc: DOC
    },
    {
      id: "volcengine.rate-limit-tpm",
      // 429 RateLimitExceeded.EndpointTPMExceeded / ModelAccountTpmRateLimitExceeded
      match: { code: ["RateLimitExceeded.EndpointTPMExceeded", "ModelAccountTpmRateLimitExceeded"] },
      category: "rate_limit",
      rateLimitKind: "TPM",
      identifies: true,
      samples: ["cnr-007"],
      doc: DOC
    },
    {
      id: "volcengine.rate-limit-wording",
      // "TPM (Tokens Per Minute) limit of the model doubao-seed-1-6 is exceeded. Please try again later"
      match: { message: /\b(?:RPM \(Requests|TPM \(Tokens) Per Minute\) limit of the (?:model|associated endpoint)/i },
      category: "rate_limit",
      identifies: true,
      samples: ["cnr-007", "cnr-018"],
      doc: DOC
    }
  ]
} satisfies ProviderFamily
