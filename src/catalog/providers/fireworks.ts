/**
 * Fireworks AI (api.fireworks.ai/inference/v1). Body `{"error": {"message", "param", "code",
 * "type": "error"}}` or flat `{"message", "param", "code", "type"}` with gRPC-style upper-case
 * codes (`NOT_FOUND`, `PRECONDITION_FAILED`, `INVALID_ARGUMENT`). Model ids
 * `accounts/<account>/models/<model>`. LiteLLM wraps it as `Fireworks_aiException`.
 * https://docs.fireworks.ai/guides/inference-error-codes
 * Status outside the contract table: 412 PRECONDITION_FAILED when the account is suspended
 * (monthly spending limit reached or unpaid invoices): a billing problem, retrying will not help.
 */
import type { ProviderFamily } from "../types.js"

export default {
  id: "fireworks",
  name: "Fireworks AI",
  hosts: ["fireworks.ai"],
  markers: [/Fireworks_?aiException/i, /\baccounts\/fireworks\/models\//],
  weakMarkers: [/\bFireworks\b/],
  entries: [
    {
      id: "fireworks.account-suspended",
      // 412 PRECONDITION_FAILED "Account <a> is suspended, possibly due to reaching the monthly
      // spending limit or failure to pay past invoices. Please go to https://fireworks.ai/account/billing …"
      match: { message: /is suspended, possibly due to reaching the monthly spending limit/i },
      category: "quota",
      identifies: true,
      samples: ["wst-031"],
      doc: "https://docs.fireworks.ai/guides/inference-error-codes"
    },
    {
      id: "fireworks.usage-limits",
      // 429 {"error": "Too Many Requests", "message": "You have exceeded your usage limits. Please try
      // again later or contact Fireworks to explore dedicated capacity."}
      match: { message: /exceeded your usage limits\. Please try again later or contact Fireworks/i },
      category: "rate_limit",
      identifies: true,
      samples: ["wst-032"]
    }
  ]
} satisfies ProviderFamily
