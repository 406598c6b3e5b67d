/**
 * Amazon Bedrock Runtime (bedrock-runtime.<region>.amazonaws.com: InvokeModel,
 * InvokeModelWithResponseStream, Converse, ConverseStream) as reported by the AWS SDKs and the
 * clients on them: botocore `An error occurred (ThrottlingException) when calling the InvokeModel
 * operation (reached max retries: 4): Too many tokens, please wait before trying again.`, JS SDK v3
 * `{name: "ThrottlingException", $metadata: {httpStatusCode: 429}}`, Go SDK v2 `operation error
 * Bedrock Runtime: Converse, https response error StatusCode: 400, RequestID: …, ValidationException:
 * …`, Swift `AWSBedrockRuntime.AccessDeniedException(…)`, LangChain `Error raised by bedrock
 * service: …`, LiteLLM `BedrockException - {"message": …}`. The error code is the exception name
 * (`x-amzn-ErrorType`, `__type`); streams deliver it lower-camel (`throttlingException`).
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_InvokeModel.html (Errors):
 * AccessDeniedException 403, InternalServerException 500, ModelErrorException 424,
 * ModelNotReadyException 429 (the SDK retries it), ModelTimeoutException 408,
 * ResourceNotFoundException 404, ServiceQuotaExceededException 400, ServiceUnavailableException 503,
 * ThrottlingException 429, ValidationException 400.
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/CommonErrors.html and
 * https://docs.aws.amazon.com/bedrock/latest/userguide/troubleshooting-api-error-codes.html
 * (AccessDeniedException, IncompleteSignature, InvalidClientTokenId, ExpiredTokenException…).
 * Exception names such as ValidationException or AccessDeniedException are shared with other AWS
 * services and Java libraries: only ThrottlingException-style Bedrock wordings identify Bedrock.
 */
import type { ProviderFamily } from "../types.js"

const INVOKE = "https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_InvokeModel.html"
const THROTTLING = "https://repost.aws/knowledge-center/bedrock-throttling-error"
const TROUBLESHOOTING = "https://docs.aws.amazon.com/bedrock/latest/userguide/troubleshooting-api-error-codes.html"

export default {
  id: "bedrock",
  name: "Amazon Bedrock",
  hosts: ["bedrock-runtime.amazonaws.com", "bedrock.amazonaws.com"],
  markers: [
    /\bbedrock-runtime(?:-fips)?\.[a-z0-9-]{2,30}\.amazonaws\.com/i,
    /\bBedrockException\b/,
    // aws-sdk-go-v2's OperationError (`operation error Bedrock Runtime: InvokeModel, exceeded maximum
    // number of attempts, 3, https response error StatusCode: 429, …`)
    /\boperation error Bedrock(?: Agent)? Runtime: [A-Z][A-Za-z]{2,40}, /,
    /\bBedrock Runtime: [A-Z][A-Za-z]{2,40}, https response error\b/,
    // the AWS SDK for Java v2 (`software.amazon.awssdk.services.bedrockruntime.model.ThrottlingException:
    // … (Service: BedrockRuntime, Status Code: 429, Request ID: …)`)
    /\bawssdk\.services\.bedrock(?:agent)?runtime\b/,
    /\(Service: BedrockRuntime, Status Code: \d{3}\b/,
    /\bAWSBedrockRuntime\b/,
    /\bBedrockRuntime(?:Exception|Client)\b/,
    /\bcom\.amazon\.bedrock\b/,
    /\bwhen calling the (?:InvokeModel|InvokeModelWithResponseStream|Converse|ConverseStream|InvokeAgent|ApplyGuardrail) operation\b/,
    /\bbedrock-runtime invoke-model\b/,
    // Bedrock's own messages (ThrottlingException, ServiceUnavailableException, AccessDeniedException)
    /\bToo many (?:tokens|requests)(?: per day)?, please wait before trying again\b/,
    /\bBedrock is unable to process your request\b/,
    /\bYou don.t have access to the model with the specified model ID\b/
  ],
  // the product name in prose ("Error raised by bedrock service", "[bedrock] Error") and the SDK
  // (botocore serves every AWS service)
  weakMarkers: [/\bbedrock\b/i, /\bbotocore\b/],
  entries: [
    {
      id: "bedrock.throttling",
      // 429 ThrottlingException (botocore ClientError code, JS SDK v3 `name`, stream event
      // `throttlingException`); the kind is read from the message ("Too many tokens per day")
      match: { code: ["ThrottlingException", "throttlingException"] },
      category: "rate_limit",
      identifies: true,
      samples: ["ab-037", "ab-041", "ab-048", "ab-050"],
      doc: INVOKE
    },
    {
      id: "bedrock.throttling-class",
      match: { errorClass: "ThrottlingException" },
      category: "rate_limit",
      identifies: true,
      samples: ["ab-040", "ab-048", "ab-050"],
      doc: INVOKE
    },
    {
      id: "bedrock.throttling-botocore",
      // "An error occurred (ThrottlingException) when calling the InvokeModel operation (reached max
      // retries: 2): …"; also `(throttlingException)` from EventStreamError
      match: { message: /an error occurred \(throttlingexception\) when calling the/i },
      category: "rate_limit",
      identifies: true,
      samples: ["ab-037", "ab-040", "ab-041"],
      doc: THROTTLING
    },
    {
      id: "bedrock.too-many-tokens",
      // ThrottlingException messages: "Too many tokens, please wait before trying again." (the
      // on-demand token quota; the window is not named)
      match: { message: /too many tokens, please wait before trying/i },
      category: "rate_limit",
      identifies: true,
      samples: ["ab-037", "ab-042", "ab-044", "ab-050"],
      doc: THROTTLING
    },
    {
      id: "bedrock.too-many-tokens-per-day",
      match: { message: /too many tokens per day, please wait before trying/i },
      category: "rate_limit",
      rateLimitKind: "TPD",
      identifies: true,
      samples: ["ab-040", "ab-043"],
      doc: THROTTLING
    },
    {
      id: "bedrock.too-many-requests",
      // "Too many requests, please wait before trying again. You have sent too many requests.  Wait
      // before trying again."
      match: { message: /too many requests, please wait before trying again/i },
      category: "rate_limit",
      identifies: true,
      samples: ["ab-041"],
      doc: THROTTLING
    },
    {
      id: "bedrock.access-denied",
      // 403 AccessDeniedException (IAM action missing, model access not granted, SCP deny,
      // Marketplace subscription); the name alone is generic AWS/Java, so it does not identify
      match: { code: "AccessDeniedException" },
      category: "permission",
      samples: ["ab-046"],
      doc: INVOKE
    },
    {
      id: "bedrock.no-access-to-model",
      // "You don't have access to the model with the specified model ID."
      match: { message: /you don.t have access to the model with the specified model id/i },
      category: "permission",
      identifies: true,
      samples: ["ab-053"],
      doc: "https://repost.aws/knowledge-center/bedrock-invokemodel-api-error"
    },
    {
      id: "bedrock.account-not-authorized",
      // "Your account is not authorized to invoke this API operation."
      match: { message: /your account is not authorized to invoke this api operation/i },
      category: "permission",
      identifies: true,
      samples: ["ab-046"],
      doc: "https://repost.aws/knowledge-center/bedrock-invokemodel-api-error"
    },
    {
      id: "bedrock.marketplace-access-denied",
      // "Model access is denied due to IAM user or service role is not authorized to perform the
      // required AWS Marketplace actions (aws-marketplace:ViewSubscriptions, …)"
      match: { message: /model access is denied due to [^\n]{0,80}(?:aws marketplace|not authorized|invalid_payment)/i },
      category: "permission",
      identifies: true,
      samples: ["ab-049"],
      doc: TROUBLESHOOTING
    },
    {
      id: "bedrock.validation",
      // 400 ValidationException (stream event `validationException`)
      match: { code: ["ValidationException", "validationException"] },
      category: "invalid_request",
      samples: ["ab-038", "ab-054", "ab-057"],
      doc: INVOKE
    },
    {
      id: "bedrock.validation-botocore",
      match: { message: /an error occurred \(validationexception\) when calling the (?:InvokeModel|InvokeModelWithResponseStream|Converse|ConverseStream) operation/i },
      category: "invalid_request",
      identifies: true,
      samples: ["ab-038", "ab-057", "ab-060"],
      doc: INVOKE
    },
    {
      id: "bedrock.on-demand-throughput",
      // "Invocation of model ID anthropic.claude-… with on-demand throughput isn’t supported. Retry
      // your request with the ID or ARN of an inference profile that contains this model."
      match: { message: /with on-demand throughput isn.t supported/i },
      category: "invalid_request",
      identifies: true,
      samples: ["ab-038"],
      doc: "https://docs.aws.amazon.com/bedrock/latest/userguide/inference-profiles-use.html"
    },
    {
      id: "bedrock.max-tokens-over-model-limit",
      // "The maximum tokens you requested exceeds the model limit of 4096. Try again with a maximum
      // tokens value that is lower than 4096."
      match: { message: /the maximum tokens you requested exceeds? the model limit of/i },
      category: "invalid_request",
      identifies: true,
      samples: ["ab-056"]
    },
    {
      id: "bedrock.model-identifier-invalid",
      // ValidationException "The provided model identifier is invalid."
      match: { message: /the provided model identifier is invalid/i },
      category: "model_not_found",
      identifies: true,
      samples: ["ab-063"],
      doc: "https://repost.aws/knowledge-center/bedrock-validation-exception-errors"
    },
    {
      id: "bedrock.resource-not-found",
      // 404 ResourceNotFoundException: the model (ARN) is not there / no longer served (Legacy)
      match: { code: "ResourceNotFoundException" },
      category: "model_not_found",
      samples: ["ab-062"],
      doc: INVOKE
    },
    {
      id: "bedrock.service-unavailable",
      // 503 ServiceUnavailableException "Bedrock is unable to process your request." (also a
      // stream event, `:exception-type: serviceUnavailableException`)
      match: { code: ["ServiceUnavailableException", "serviceUnavailableException"] },
      category: "overload",
      samples: ["ab-059"],
      doc: INVOKE
    },
    {
      id: "bedrock.unable-to-process",
      match: { message: /bedrock is unable to process your request/i },
      category: "overload",
      identifies: true,
      samples: ["ab-059"],
      doc: INVOKE
    }
  ]
} satisfies ProviderFamily
