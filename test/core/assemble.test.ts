import { describe, expect, it } from "vitest"
import { RecordAssembler, type AssembledRecord } from "../../src/parse/assemble.js"

/** Feed `text` line by line with byte offsets, as the tailer does; returns records and resume points. */
function assemble(text: string, assembler = new RecordAssembler()) {
  const records: AssembledRecord[] = []
  const resume: Array<{ offset: number; line: number } | null> = []
  let offset = 0
  const lines = text.split("\n")
  if (lines[lines.length - 1] === "") lines.pop()
  lines.forEach((line, i) => {
    const bytes = Buffer.byteLength(line, "utf8") + 1
    records.push(...assembler.push(line, i + 1, offset, offset + bytes))
    resume.push(assembler.resumePoint())
    offset += bytes
  })
  records.push(...assembler.flush())
  return { records, resume, end: offset }
}

const texts = (rs: ReadonlyArray<AssembledRecord>) => rs.map((r) => r.text)

describe("RecordAssembler", () => {
  it("emits a single-line record when the next line arrives, and the last one on flush", () => {
    const a = new RecordAssembler()
    expect(a.resumePoint()).toBeNull()
    expect(a.push('{"level":30,"msg":"a"}', 1, 0, 23)).toEqual([])
    expect(a.resumePoint()).toEqual({ offset: 0, line: 1 })
    const first = a.push('{"level":30,"msg":"b"}', 2, 23, 46)
    expect(first).toEqual([{ text: '{"level":30,"msg":"a"}', line: 1, startOffset: 0, endOffset: 23, truncated: false, lineCount: 1 }])
    expect(a.resumePoint()).toEqual({ offset: 23, line: 2 })
    expect(a.flush()).toEqual([{ text: '{"level":30,"msg":"b"}', line: 2, startOffset: 23, endOffset: 46, truncated: false, lineCount: 1 }])
    expect(a.resumePoint()).toBeNull()
    expect(a.flush()).toEqual([])
  })

  it("counts byte offsets of multi-byte lines and resumes at the oldest unfinished record", () => {
    const text = "2026-11-21 10:00:00 ERROR 调用失败：429\n  继续的一行\n2026-11-21 10:00:01 INFO ok\n"
    const { records, resume } = assemble(text)
    expect(records.map((r) => [r.line, r.startOffset, r.endOffset, r.lineCount])).toEqual([
      [1, 0, Buffer.byteLength("2026-11-21 10:00:00 ERROR 调用失败：429\n  继续的一行\n")],
      [3, Buffer.byteLength("2026-11-21 10:00:00 ERROR 调用失败：429\n  继续的一行\n"), Buffer.byteLength(text)]
    ].map(([l, s, e], i) => [l, s, e, i === 0 ? 2 : 1]))
    expect(resume).toEqual([
      { offset: 0, line: 1 },
      { offset: 0, line: 1 },
      { offset: records[1].startOffset, line: 3 }
    ])
  })

  it("groups a Python traceback with its log line and final exception line", () => {
    const text = [
      "2026-11-21 10:35:01,201 - ERROR - app.agent - LLM call failed",
      "Traceback (most recent call last):",
      '  File "/srv/app/agent.py", line 142, in run',
      "    response = client.chat.completions.create(model=model, messages=messages)",
      "openai.RateLimitError: Error code: 429 - {'error': {'message': 'Rate limit reached', 'code': 'rate_limit_exceeded'}}",
      "2026-11-21 10:35:02,300 - INFO - app.agent - next"
    ].join("\n")
    const { records } = assemble(text)
    expect(records.map((r) => [r.line, r.lineCount])).toEqual([[1, 5], [6, 1]])
  })

  it("groups a Node error with its stack frames and the dumped object up to its closing brace", () => {
    const text = [
      "2026-11-21T10:40:01.513Z ERROR RateLimitError: 429 Rate limit reached",
      "    at APIError.generate (/app/node_modules/openai/error.js:63:20)",
      "    at async ChatService.complete (/app/dist/chat.js:88:22) {",
      "  status: 429,",
      "  headers: { 'x-request-id': 'abc' }",
      "}",
      "2026-11-21T10:40:02.000Z INFO ok"
    ].join("\n")
    expect(assemble(text).records.map((r) => [r.line, r.lineCount])).toEqual([[1, 6], [7, 1]])
  })

  it("groups pretty-printed JSON by brace balance, aware of strings", () => {
    const text = ['{', '  "error": {', '    "message": "a } inside a string {",', '    "code": null', "  }", "}", '{"level":30}'].join("\n")
    expect(assemble(text).records.map((r) => [r.line, r.lineCount])).toEqual([[1, 6], [7, 1]])
  })

  it("continues `Error code: 429 - {` onto the body lines", () => {
    const text = ["ERROR: Error code: 429 - {", "  'error': {'message': 'slow down'}", "}", "next record"].join("\n")
    expect(assemble(text).records.map((r) => r.lineCount)).toEqual([3, 1])
  })

  it("attaches a JSON body line to a line that announces it", () => {
    const text = ["原因: OAI Compatible API error: 400 Bad Request", '{"code":20015,"message":"bad","data":null}', '{"level":30}'].join("\n")
    expect(assemble(text).records.map((r) => r.lineCount)).toEqual([2, 1])
  })

  it("groups a curl -i dump: status line, headers, blank line, body", () => {
    const text = [
      "HTTP/1.1 400 Bad Request",
      "Date: Sat, 21 Nov 2026 10:50:00 GMT",
      "Content-Type: application/json; charset=utf-8",
      "",
      '{"code":20012,"message":"Model does not exist. Please check it carefully.","data":null}',
      "HTTP/2 429",
      "content-type: application/json",
      "",
      "{",
      '  "code": 50603',
      "}",
      "after"
    ].join("\n")
    const { records } = assemble(text)
    expect(records.map((r) => [r.line, r.lineCount])).toEqual([[1, 5], [6, 6], [12, 1]])
    expect(records[0].text.split("\n")[3]).toBe("")
  })

  it("groups a curl -v dump, including its body and trailing connection line", () => {
    const text = [
      "*   Trying 203.0.113.10:443...",
      "> POST /v1/chat/completions HTTP/2",
      "> authorization: Bearer <API_KEY>",
      ">",
      "< HTTP/2 503",
      "< content-type: application/json",
      "<",
      '{"code":50508,"message":"System is too busy now. Please try again later.","data":null}',
      "* Connection #0 to host api.siliconflow.cn left intact",
      "2026-11-21 10:00:00 INFO next"
    ].join("\n")
    expect(assemble(text).records.map((r) => [r.line, r.lineCount])).toEqual([[1, 9], [10, 1]])
  })

  it("groups an HTML error page until </html>", () => {
    const text = ["upstream said:", "<html>", "<head><title>502 Bad Gateway</title></head>", "", "<body>", "</body>", "</html>", "next"].join("\n")
    expect(assemble(text).records.map((r) => r.lineCount)).toEqual([7, 1])
  })

  it("joins hard wraps: trailing backslash, indented continuation, open string", () => {
    const text = [
      "Last error: Rate limit reached on tokens per \\",
      "minute (TPM): Limit 6000",
      'Failed to get response: 401 "Api key is',
      'invalid"',
      "服务回复状态错误[429],返回数据为:{",
      "  rejected due to rate limiting.",
      "plain next"
    ].join("\n")
    expect(assemble(text).records.map((r) => [r.line, r.lineCount])).toEqual([[1, 2], [3, 2], [5, 2], [7, 1]])
  })

  it("starts a new record at a timestamped or JSON line even inside an unterminated brace", () => {
    const text = ["2026-11-21 10:00:00 ERROR body={\"code\": 1", "  \"message\": \"cut", "2026-11-21 10:00:01 INFO next", '{"level":30}'].join("\n")
    expect(assemble(text).records.map((r) => [r.line, r.lineCount])).toEqual([[1, 2], [3, 1], [4, 1]])
  })

  it("drops blank lines between records and never makes a record of them", () => {
    const { records } = assemble("\n\n   \nfirst\n\n\nsecond\n\n")
    expect(texts(records)).toEqual(["first", "second"])
  })

  it("strips one trailing CR of CRLF lines", () => {
    const { records } = assemble("first\r\n  more\r\nsecond\r\n")
    expect(texts(records)).toEqual(["first\n  more", "second"])
  })

  it("cuts a record over 64 KiB, flags it truncated and keeps its offsets", () => {
    const long = "x".repeat(70_000)
    const { records, end } = assemble(`ERROR ${long}\n  ${long}\nnext\n`)
    expect(records).toHaveLength(2)
    expect(records[0].truncated).toBe(true)
    expect(records[0].text.length).toBeLessThanOrEqual(64 * 1024)
    expect(records[0].text.startsWith("ERROR xxx")).toBe(true)
    expect(records[0].lineCount).toBe(2)
    expect(records[1]).toMatchObject({ text: "next", line: 3, truncated: false, endOffset: end })
  })

  it("cuts a multi-line record at 64 KiB and keeps consuming its continuation lines", () => {
    const line = "  " + "y".repeat(1000)
    const text = ["ERROR start {", ...Array.from({ length: 100 }, () => line), "}", "next"].join("\n")
    const { records } = assemble(text)
    expect(records.map((r) => [r.line, r.lineCount, r.truncated])).toEqual([[1, 102, true], [103, 1, false]])
    expect(records[0].text.length).toBeLessThanOrEqual(64 * 1024)
  })

  it("bounds a pending record to 200 lines so one unterminated brace cannot swallow the file", () => {
    const text = ["ERROR body={", ...Array.from({ length: 450 }, (_, i) => `  "k${i}": ${i},`), "next"].join("\n")
    const { records } = assemble(text)
    expect(records.map((r) => [r.line, r.lineCount, r.truncated])).toEqual([
      [1, 200, true],
      [201, 200, true],
      [401, 51, false],
      [452, 1, false]
    ])
  })

  it("accepts custom limits", () => {
    const a = new RecordAssembler({ maxChars: 10, maxLines: 2 })
    const { records } = assemble("0123456789abc\n  more\n  again\n", a)
    expect(records.map((r) => [r.text, r.lineCount, r.truncated])).toEqual([
      ["0123456789", 2, true],
      ["  again", 1, false]
    ])
  })
})
