/**
 * The scan worker's events cross to the main thread packed (src/sources/tail/eventPack.ts): they
 * must come back exactly as they were, field by field, whatever their values, and through the
 * structured clone a worker's message goes through.
 */
import { describe, expect, it } from "vitest"
import type { FailureEvent } from "../../src/classify/Event.js"
import { classifyText } from "../../src/sources/pipeline.js"
import { PackBuilder, packEvents, unpackEvents } from "../../src/sources/tail/eventPack.js"

const LOG = [
  `{"level":50,"time":1765000000123,"status":429,"body":{"code":50603,"message":"Request was rejected due to rate limiting. Details: TPM limit reached.","data":null},"model":"deepseek-ai/DeepSeek-V3","requestId":"req-1"}`,
  `2026-12-06 05:10:48,123 ERROR app.client - request_id=req-2 model=Qwen/Qwen2.5-7B-Instruct HTTP 503 {"code":50508,"message":"System is too busy now. Please try again later.","data":null}`,
  `{"level":50,"time":1765000000456,"status":429,"body":{"code":50603,"message":"Request was rejected due to rate limiting. Details: TPM limit reached.","data":null},"model":"deepseek-ai/DeepSeek-V3","requestId":"req-3"}`,
  `openai.APIConnectionError: Connection error.`,
  `2026-12-06 05:10:49,001 ERROR [对话服务] 调用失败：HTTP 403，返回：{"code":30003,"message":"根据相关法律法规，使用该模型需完成实名认证","data":null}`
].join("\n")

describe("packed events", () => {
  it("come back field by field as they were sent, through a structured clone", () => {
    const events = classifyText(LOG, "file:/var/log/app.log").flatMap((r) => ("event" in r ? [r.event] : []))
    expect(events.length).toBe(5)
    // values of every kind: nulls, numbers, booleans, a numeric and a string code
    const odd: FailureEvent = { ...events[3]!, line: null, status: null, code: "rate_limit_exceeded", stream: true, retryable: false, bodyNotJson: true, rateLimitKind: null }
    const sent = [...events, odd, events[0]!]
    const back = unpackEvents(structuredClone(packEvents(sent)))
    expect(back).toEqual(sent)
    for (let i = 0; i < sent.length; i++) expect(Object.keys(back[i]!).sort()).toEqual(Object.keys(sent[i]!).sort())
  })

  it("keep each shared value once", () => {
    const events = classifyText(LOG, "file:/var/log/app.log").flatMap((r) => ("event" in r ? [r.event] : []))
    const many = Array.from({ length: 100 }, () => events).flat()
    const packed = packEvents(many)
    // per event only its own id, time, line, request id and sample are new values
    expect(packed.values.length).toBeLessThan(many.length * 5 + 60)
    expect(unpackEvents(packed)).toEqual(many)
  })

  it("pack an empty batch", () => {
    expect(unpackEvents(packEvents([]))).toEqual([])
  })

  it("are packed one by one past the builder's first size, and a finished pack is its own", () => {
    const events = classifyText(LOG, "file:/var/log/app.log").flatMap((r) => ("event" in r ? [r.event] : []))
    const b = new PackBuilder()
    const sent: FailureEvent[] = []
    for (let i = 0; i < 300; i++) {
      const e = { ...events[i % events.length]!, id: `id-${i}`, line: i }
      sent.push(e)
      b.add(e)
    }
    const first = b.finish()
    b.add(events[0]!)
    expect(b.size).toBe(301)
    expect(unpackEvents(first)).toEqual(sent)
    expect(unpackEvents(b.finish())).toEqual([...sent, events[0]!])
  })
})
