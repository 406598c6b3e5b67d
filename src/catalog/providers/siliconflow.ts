/**
 * SiliconFlow (api.siliconflow.cn / .com): the service of `../shared/seed/service-errors.md`.
 * Body `{"code": <int>, "message", "data"}`.
 * https://docs.siliconflow.cn/en/faqs/error-code
 */
import type { ProviderFamily } from "../types.js"

export default {
  id: "siliconflow",
  name: "SiliconFlow",
  hosts: ["siliconflow.cn", "siliconflow.com"],
  markers: [/siliconflow/i, /硅基流动/],
  entries: [
    {
      id: "siliconflow.model-does-not-exist",
      match: { code: 20012 },
      category: "model_not_found",
      samples: ["s001", "s003"],
      doc: "https://docs.siliconflow.cn/en/faqs/error-code"
    },
    {
      id: "siliconflow.model-does-not-exist-wording",
      match: { message: /model does not exist\. please check it carefully/i },
      category: "model_not_found",
      samples: ["s002", "s005"]
    },
    {
      id: "siliconflow.realname",
      match: { code: 30003 },
      category: "auth_realname",
      samples: ["x001"]
    },
    {
      id: "siliconflow.balance",
      match: { code: 30001 },
      category: "quota",
      samples: ["s023"]
    },
    {
      id: "siliconflow.too-busy",
      match: { code: 50508 },
      category: "overload",
      samples: ["s035"]
    }
  ]
} satisfies ProviderFamily
