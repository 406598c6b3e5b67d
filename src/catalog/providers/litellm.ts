/**
 * LiteLLM: the Python library (exceptions `litellm.RateLimitError`, `litellm.exceptions.*`, mapped
 * onto the OpenAI classes and prefixed with the upstream, e.g. `AzureException`, `OpenAIException`)
 * and the LiteLLM proxy (OpenAI-style JSON errors with a string `code` such as `"429"`/`"401"`,
 * messages ending in `Received Model Group=… Available Model Group Fallbacks=…`).
 * The library's messages name the upstream, which then is the provider; the markers below are the
 * proxy's own, for errors the proxy itself decides (keys, budgets, routing).
 * https://docs.litellm.ai/docs/exception_mapping
 */
import type { ProviderFamily } from "../types.js"

export default {
  id: "litellm",
  name: "LiteLLM (library and proxy)",
  hosts: [],
  markers: [
    /LiteLLM Proxy/,
    /litellm\.proxy\./,
    /Litellm_proxyException/,
    /LiteLLM_VerificationTokenTable/,
    /Invalid proxy server token passed/
  ],
  entries: [
    {
      id: "litellm.proxy-invalid-token",
      // 401 from the proxy: the virtual key is unknown
      match: { message: /invalid proxy server token passed/i },
      category: "auth_key",
      identifies: true,
      samples: ["oag-064", "oag-065"],
      doc: "https://docs.litellm.ai/docs/proxy/virtual_keys"
    },
    {
      id: "litellm.proxy-token-not-found-type",
      match: { type: "token_not_found_in_db" },
      category: "auth_key",
      identifies: true,
      samples: ["oag-064"]
    },
    {
      id: "litellm.no-deployments-available",
      // the router has every deployment of the model group in cooldown or over its rpm/tpm;
      // the proxy answers 429
      match: { message: /no deployments available for selected model/i },
      category: "rate_limit",
      identifies: true,
      samples: ["oag-098"],
      doc: "https://docs.litellm.ai/docs/routing"
    },
    {
      id: "litellm.router-rate-limit-class",
      match: { errorClass: "RouterRateLimitErrorBasic" },
      category: "rate_limit",
      identifies: true,
      samples: ["oag-098"]
    },
    {
      id: "litellm.provider-not-provided",
      // client-side BadRequestError: the model string has no provider prefix (no request sent)
      match: { message: /llm provider not provided\. pass in the llm provider/i },
      category: "invalid_request",
      identifies: true,
      samples: ["oag-092", "oag-093"],
      doc: "https://docs.litellm.ai/docs/providers"
    },
    {
      id: "litellm.bad-gateway-class",
      // LiteLLM maps an upstream HTTP 502 to BadGatewayError
      match: { errorClass: "BadGatewayError" },
      category: "transport",
      samples: ["oag-108"],
      doc: "https://docs.litellm.ai/docs/exception_mapping"
    }
  ]
} satisfies ProviderFamily
