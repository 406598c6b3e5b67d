/**
 * User-supplied regular expressions (config/userPattern.ts): what is refused when the config
 * loads, and that what is accepted matches like a case-insensitive RegExp and in linear time.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { compileUserPattern, type UserPattern } from "../../src/config/userPattern.js"

const accepted = (source: string): UserPattern => {
  const p = compileUserPattern(source)
  if (typeof p === "string") throw new Error(`refused ${source}: ${p}`)
  return p
}

describe("compileUserPattern", () => {
  it.each([
    ["(a+)+b", /backtrack catastrophically: a repeated group holds another repetition/],
    ["(a*)*", /another repetition/],
    ["(?:x+y?)+z", /another repetition/],
    ["(\\w+\\s?)+$", /another repetition/],
    ["(a|aa)+", /alternation/],
    ["(foo|bar)*baz", /alternation/],
    ["(a)\\1", /back-reference/],
    ["(?<n>a)\\k<n>", /back-reference/],
    ["quota(?=x)", /look-around/],
    ["(?<!over)quota", /look-around/],
    ["[a-", /not a valid regular expression/],
    ["", /is empty/],
    ["x".repeat(501), /longer than 500/]
  ])("refuses %s", (source, reason) => {
    const r = compileUserPattern(source)
    expect(typeof r).toBe("string")
    expect(r).toMatch(reason)
  })

  it.each([
    ["plan exhausted", "Your PLAN Exhausted today", true],
    ["^acme[- ]gateway: (quota|limit) reached", "acme gateway: quota reached", true],
    ["credits? (left|remaining): 0", "credit remaining: 0", true],
    ["\\bRPD\\b[^\\n]{0,40}limit", "RPD daily limit", true],
    ["余额不足", "错误: 余额不足，请充值", true],
    ["a{2,4}b", "ab", false],
    ["x+y+z+", "xxyz", true]
  ])("accepts %s, case-insensitively", (source, text, expected) => {
    expect(accepted(source).test(text)).toBe(expected)
  })

  it("matches as a case-insensitive JavaScript RegExp would, on random texts", () => {
    const sources = ["quota (exceeded|exhausted)", "[0-9]{3} too many", "^error: [a-z_]+$", "credit|balance", "rate.limit"]
    fc.assert(
      fc.property(fc.constantFrom(...sources), fc.string({ unit: fc.constantFrom("a", "e", "r", "o", "q", "u", "t", " ", "x", "c", "d", "1", "2", "9", "_", ":", "E", "Q", "\n", "m", "n", "y", "b", "l", "i", "h", "s", "."), maxLength: 60 }), (source, text) => {
        expect(accepted(source).test(text)).toBe(new RegExp(source, "i").test(text))
      }),
      { numRuns: 500 }
    )
  })

  it("takes time proportional to the input on adversarial texts (a bound, not a benchmark)", () => {
    // patterns at the edge of what is accepted, against inputs built to make a backtracking
    // engine explore every split: 1 MB each must finish well within the bound
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["a*a*a*a*a*b", "a".repeat(1 << 20)],
      ["\\d+\\d+\\d+x", "1".repeat(1 << 20)],
      ["(ab?)(ab?)(ab?)c", "ab".repeat(1 << 19)],
      ["[^\\n]{0,80}quota[^\\n]{0,80}exceeded", "quota ".repeat(1 << 17)]
    ]
    for (const [source, text] of cases) {
      const t0 = Date.now()
      expect(accepted(source).test(text)).toBe(false)
      expect(Date.now() - t0, source).toBeLessThan(10_000)
    }
  })
})
