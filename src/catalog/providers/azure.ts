/**
 * Azure OpenAI / Azure AI Foundry (`<resource>.openai.azure.com/openai/deployments/<deployment>/…`,
 * `*.cognitiveservices.azure.com`, `*.services.ai.azure.com`). Body `{"error": {"code", "message"}}`
 * where `code` is a string (`"429"`, `"DeploymentNotFound"`, `"content_filter"`), content-filter
 * answers add `innererror`. Clients: openai-python `AzureOpenAI`, Azure.AI.OpenAI for .NET
 * (`Azure.RequestFailedException`, later `System.ClientModel.ClientResultException`), LangChain
 * `AzureChatOpenAI`, LiteLLM (`AzureException`).
 * https://learn.microsoft.com/en-us/azure/ai-services/openai/quotas-limits
 */
import type { ProviderFamily } from "../types.js"

export default {
  id: "azure",
  name: "Azure OpenAI / AI Foundry",
  hosts: ["openai.azure.com", "cognitiveservices.azure.com", "services.ai.azure.com"],
  markers: [
    /Azure OpenAI/,
    /\bazure-openai\b/i,
    // Azure's documented 401 wording (the key is a Cognitive Services subscription key)
    /invalid subscription key or wrong API endpoint/,
    /AzureException/,
    /Azure\.RequestFailedException/,
    /AzureChatOpenAI/,
    /aka\.ms\/oai\/quotaincrease/i,
    /\/openai\/deployments\//
  ],
  // azure-core's exceptions (Python `azure.core.exceptions.HttpResponseError`, Java
  // `com.azure.core.exception.HttpResponseException`): every Azure SDK raises them, so they tell
  // Azure only when nothing names another API
  weakMarkers: [/\bazure\.core\.exceptions\.[A-Z]/, /\bcom\.azure\.core\.exception\.[A-Z]/],
  entries: [
    {
      id: "azure.deployment-not-found",
      // 404: the deployment (Azure's model name) does not exist
      match: { code: "DeploymentNotFound" },
      category: "model_not_found",
      identifies: true,
      samples: ["oag-090"],
      doc: "https://learn.microsoft.com/en-us/azure/ai-services/openai/how-to/create-resource"
    },
    {
      id: "azure.deployment-not-found-wording",
      match: { message: /the api deployment for this resource does not exist/i },
      category: "model_not_found",
      identifies: true,
      samples: ["oag-022", "oag-091"]
    },
    {
      id: "azure.token-rate-limit",
      // 429: "Requests to the ChatCompletions_Create Operation under Azure OpenAI API version … have
      // exceeded token rate limit of your current OpenAI S0 pricing tier. Please retry after N seconds."
      match: { message: /have exceeded token rate limit of your current/i },
      category: "rate_limit",
      rateLimitKind: "TPM",
      identifies: true,
      samples: ["oag-006", "oag-008", "oag-010"],
      doc: "https://learn.microsoft.com/en-us/azure/ai-services/openai/quotas-limits"
    },
    {
      id: "azure.call-rate-limit",
      // same shape, "exceeded call rate limit" (the requests-per-minute quota)
      match: { message: /have exceeded call rate limit of your current/i },
      category: "rate_limit",
      rateLimitKind: "RPM",
      identifies: true,
      samples: ["oag-101"],
      doc: "https://learn.microsoft.com/en-us/azure/ai-services/openai/quotas-limits"
    },
    {
      id: "azure.peak-load",
      // 429 on standard deployments under peak load (the message recommends Provisioned Throughput)
      match: { message: /experiencing high demand and cannot process your request/i },
      category: "rate_limit",
      samples: ["oag-009"]
    },
    {
      id: "azure.content-filter",
      match: { code: "content_filter" },
      category: "invalid_request",
      samples: ["oag-041", "oag-044"],
      doc: "https://learn.microsoft.com/en-us/azure/ai-services/openai/concepts/content-filter"
    },
    {
      id: "azure.content-filter-wording",
      match: { message: /filtered due to the prompt triggering azure openai/i },
      category: "invalid_request",
      identifies: true,
      samples: ["oag-040", "oag-042"],
      doc: "https://learn.microsoft.com/en-us/azure/ai-services/openai/concepts/content-filter"
    },
    {
      id: "azure.invalid-subscription-key",
      // 401 (.NET prints the reason as "PermissionDenied"): a key/endpoint mismatch, not a permission
      match: { message: /access denied due to invalid subscription key or wrong api endpoint/i },
      category: "auth_key",
      identifies: true,
      samples: ["oag-068", "oag-069"]
    }
  ]
} satisfies ProviderFamily
