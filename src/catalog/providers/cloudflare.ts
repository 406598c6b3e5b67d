/**
 * Cloudflare Workers AI (api.cloudflare.com/client/v4/accounts/<id>/ai/run/@cf/…, the Workers
 * `env.AI` binding). REST body `{"success": false, "errors": [{"code", "message"}]}`; the binding
 * throws `Error("<internal code>: <message>")` (`InferenceUpstreamError`). Not Cloudflare's edge
 * error pages (52x, 1015): those belong to whatever API sits behind Cloudflare, so `cloudflare`
 * alone (a `server: cloudflare` header, cf-ray) is no marker here.
 * https://developers.cloudflare.com/workers-ai/platform/errors/
 * Internal codes whose HTTP status differs from its meaning in the contract table: 3036 (429)
 * daily free allocation of neurons used up = quota; 3040 (429) out of capacity = overload.
 */
import type { ProviderFamily } from "../types.js"

export default {
  id: "cloudflare",
  name: "Cloudflare Workers AI",
  hosts: ["api.cloudflare.com"],
  markers: [/\bWorkers AI\b/, /InferenceUpstreamError/],
  weakMarkers: [/\/ai\/run\/@cf\//],
  entries: [
    {
      id: "cloudflare.daily-free-allocation",
      // 3036 (429) "You have used up your daily free allocation of 10,000 neurons. Please upgrade to
      // Cloudflare's Workers Paid plan if you would like to continue usage." (resets 00:00 UTC)
      match: { message: /used up your daily free allocation of [0-9,]{1,12} neurons/i },
      category: "quota",
      identifies: true,
      samples: ["wst-051"],
      doc: "https://developers.cloudflare.com/workers-ai/platform/errors/"
    },
    {
      id: "cloudflare.account-limited-3036",
      match: { code: 3036 },
      category: "quota",
      onlyForProvider: true,
      samples: ["wst-051"],
      doc: "https://developers.cloudflare.com/workers-ai/platform/errors/"
    },
    {
      id: "cloudflare.capacity-3040",
      // 3040 (429) "Capacity temporarily exceeded, please try again." / "No more data centers to
      // forward the request to"
      match: { message: /Capacity temporarily exceeded, please try again|No more data centers to forward the request to/i },
      category: "overload",
      identifies: true,
      samples: ["wst-050"],
      doc: "https://developers.cloudflare.com/workers-ai/platform/errors/"
    },
    {
      id: "cloudflare.out-of-capacity-code",
      match: { code: 3040 },
      category: "overload",
      onlyForProvider: true,
      samples: ["wst-050"],
      doc: "https://developers.cloudflare.com/workers-ai/platform/errors/"
    }
  ]
} satisfies ProviderFamily
