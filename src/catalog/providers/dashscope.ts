/**
 * Alibaba Cloud Model Studio / Bailian (百炼) / DashScope: Qwen (通义千问) and the other hosted
 * models. Native API `dashscope.aliyuncs.com/api/v1/services/…` answers
 * `{"code": "<Code>", "message", "request_id"}` with codes such as `Arrearage`,
 * `Throttling.RateQuota`, `InvalidApiKey`, `DataInspectionFailed`; the SDKs print it as
 * `status_code: 400, code: Arrearage, message: …` (Python) or
 * `com.alibaba.dashscope.exception.ApiException: {"statusCode":400,…,"code":"Arrearage"}` (Java).
 * The OpenAI-compatible mode (`/compatible-mode/v1`) answers the OpenAI envelope with snake_case
 * codes (`data_inspection_failed`, `invalid_parameter_error`, `Arrearage`) and messages such as
 * `<400> InternalError.Algo.InvalidParameter: …`; its 429 for a per-minute token throttle
 * (`Throttling.AllocationQuota`) copies OpenAI's `insufficient_quota` wording.
 * https://help.aliyun.com/zh/model-studio/error-code
 * https://www.alibabacloud.com/help/en/model-studio/error-code
 */
import type { ProviderFamily } from "../types.js"

const DOC = "https://help.aliyun.com/zh/model-studio/error-code"

export default {
  id: "dashscope",
  name: "Alibaba Cloud Model Studio / Bailian / DashScope",
  hosts: ["dashscope.aliyuncs.com", "dashscope-intl.aliyuncs.com"],
  markers: [
    // SDK packages and classes (`com.alibaba.dashscope.exception.ApiException`,
    // `dashscope.common.error`, LiteLLM's `DashscopeException`, langchain4j's `model.dashscope`)
    /\bdashscope\b/i,
    // the error-code pages the messages link to
    /(?:help\.aliyun\.com\/zh|alibabacloud\.com\/help\/en)\/model-studio\/error-code/i,
    // the prefix of the algorithm-side codes (`InternalError.Algo.DataInspectionFailed`)
    /\bInternalError\.Algo\b/,
    /百炼/,
    /\bBailian\b/
  ],
  // Dify's tongyi plugin and OpenCode's provider label
  weakMarkers: [/\[tongyi\]/, /\bprovider \(Alibaba\)/],
  entries: [
    {
      id: "dashscope.arrearage",
      // 400 Arrearage "Access denied, please make sure your account is in good standing." (overdue
      // payment); 429 PrepaidBillOverdue / PostpaidBillOverdue
      match: { code: ["Arrearage", "PrepaidBillOverdue", "PostpaidBillOverdue"] },
      category: "quota",
      identifies: true,
      samples: ["cnz-020", "cnz-021"],
      doc: DOC
    },
    {
      id: "dashscope.arrearage-wording",
      // a 400 whose words would otherwise read as a permission refusal
      match: { message: /access denied, please make sure your account is in good standing|the (?:prepaid|postpaid) bill is overdue/i },
      category: "quota",
      identifies: true,
      samples: ["cnz-022", "cnz-020"],
      doc: DOC
    },
    {
      id: "dashscope.invalid-api-key-401",
      // 401 InvalidApiKey "Invalid API-key provided." (the documented pair)
      match: { code: "InvalidApiKey", status: 401 },
      category: "auth_key",
      identifies: true,
      samples: ["cnz-026"],
      doc: DOC
    },
    {
      id: "dashscope.invalid-api-key",
      match: { code: "InvalidApiKey" },
      category: "auth_key",
      identifies: true,
      samples: ["cnz-026"],
      doc: DOC
    },
    {
      id: "dashscope.invalid-api-key-wording",
      match: { message: /invalid api-key provided|\bInvalidApiKey\b/i },
      category: "auth_key",
      identifies: true,
      samples: ["cnz-025", "cnz-026"],
      doc: DOC
    },
    {
      id: "dashscope.data-inspection",
      // 400 DataInspectionFailed / data_inspection_failed: content moderation refused the input or output
      match: { code: ["DataInspectionFailed", "data_inspection_failed"] },
      category: "invalid_request",
      identifies: true,
      samples: ["cnz-024"],
      doc: DOC
    },
    {
      id: "dashscope.data-inspection-wording",
      // "Input or output data may contain inappropriate content.", "Input text data may contain …"
      match: { message: /DataInspectionFailed|(?:input|output)(?: or output)?(?: text)? data may contain inappropriate content/i },
      category: "invalid_request",
      identifies: true,
      samples: ["cnz-024", "cnz-023"],
      doc: DOC
    },
    {
      id: "dashscope.invalid-parameter",
      // 400 InvalidParameter, the catch-all of a request DashScope refuses ("url error, please check
      // url", "Messages 以 user（tool）提问结束"); Tencent Cloud uses the same code, so it names no family
      match: { code: "InvalidParameter" },
      category: "invalid_request",
      samples: ["w22aa-001"],
      doc: DOC
    },
    {
      id: "dashscope.input-length",
      // 400 InvalidParameter "Range of input length should be [1, 30720]" (input longer than the model takes)
      match: { message: /range of input length should be \[1, ?[0-9]{1,8}\]/i },
      category: "invalid_request",
      identifies: true,
      samples: ["cnz-030", "cnz-031"],
      doc: DOC
    },
    {
      id: "dashscope.model-access-denied",
      // 403 AccessDenied.Unpurchased "Access to model denied. Please make sure you are eligible for
      // using the model." / Model.AccessDenied "Model access denied." / Workspace.AccessDenied
      match: { message: /\b(?:AccessDenied\.Unpurchased|Model\.AccessDenied|Workspace\.AccessDenied)\b|access to model denied\. please make sure you are eligible/i },
      category: "permission",
      identifies: true,
      samples: ["cnz-032", "s044"],
      doc: DOC
    },
    {
      id: "dashscope.rate-quota-wording",
      // 429 Throttling.RateQuota "Requests rate limit exceeded, please try again later."
      match: { message: /requests rate limit exceeded, please try (?:your request )?again later/i },
      category: "rate_limit",
      identifies: true,
      samples: ["cnz-029"],
      doc: DOC
    }
  ]
} satisfies ProviderFamily
