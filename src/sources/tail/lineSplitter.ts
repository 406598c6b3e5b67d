/**
 * Splits bytes read from a file into lines, on Buffers (no readline, no per-chunk string
 * concatenation). It owns the read buffer: `prepare()` says where the next read goes,
 * `commit(n)` records how many bytes arrived, `next()` hands out complete lines with their
 * byte offsets and 1-based numbers. A line ends at `\n`; a `\r` before it is stripped.
 * Bytes are decoded as UTF-8 per line (invalid sequences become U+FFFD).
 *
 * Memory is bounded: a line longer than `maxLineBytes` is cut to its first `maxLineBytes` bytes
 * (the rest is skipped up to its newline, never buffered), and an idle file keeps a 16 KiB buffer.
 * An over-long line is still one line: it is handed out once, when its newline arrives, with
 * its whole extent (`start`..`end`), so the numbers of the lines after it stay right and the
 * position to resume from (`offset`) never points inside it.
 */

/** A followed file's buffer: enough for small appends; backlogs grow it to `chunkSize` reads. */
const SMALL_CAPACITY = 16 * 1024
const SMALL_WINDOW = 8 * 1024

export interface Line {
  readonly text: string
  /** 1-based line number. */
  readonly lineNo: number
  /** File offset of the line's first byte. */
  readonly start: number
  /** File offset just past the line's terminator (where the next line starts). */
  readonly end: number
  /** What the splitter's `mark` said about the line's bytes (0 without one). */
  readonly marks: number
}

/** Flags for one line's bytes `[from, to)`, found before they are decoded (the pre-filter's `lineSignals`). */
export type LineMark = (bytes: Buffer, from: number, to: number) => number

export class LineSplitter {
  private buf: Buffer
  private view: Buffer
  /** Index in `buf` of the first byte not yet handed out. */
  private pos = 0
  /** Index in `buf` just past the last byte read. */
  private end = 0
  /** File offset of `buf[0]`. */
  private base: number
  private lineNo: number
  /** Length offered by the last `prepare()`, and whether the read filled it. */
  private requested = 0
  private lastFull = false
  /**
   * An over-long line whose newline has not arrived yet: its first `maxLineBytes` bytes (decoded,
   * with their marks) and where it starts; the bytes read after them are dropped.
   */
  private long: { readonly text: string; readonly marks: number; readonly start: number } | null = null

  constructor(
    offset: number,
    line: number,
    private readonly chunkSize = 64 * 1024,
    private readonly maxLineBytes = 1024 * 1024,
    private readonly mark: LineMark | null = null
  ) {
    this.base = offset
    this.lineNo = line
    this.buf = Buffer.allocUnsafe(Math.min(chunkSize * 2, SMALL_CAPACITY))
    this.view = this.buf.subarray(0, 0)
  }

  /** File offset of the first byte not handed out as (part of) a line. */
  get offset(): number {
    return this.long !== null ? this.long.start : this.base + this.pos
  }

  /** An over-long line is being skipped up to its newline. */
  get skipping(): boolean {
    return this.long !== null
  }

  /** 1-based number of the line starting at `offset`. */
  get line(): number {
    return this.lineNo
  }

  /** File offset where the next read must start. */
  get readOffset(): number {
    return this.base + this.end
  }

  /** Bytes read but not yet handed out (a partial line, or lines beyond a batch limit). */
  get buffered(): number {
    return this.end - this.pos
  }

  /** Forget everything buffered and continue at `offset` (line `line`). */
  reset(offset: number, line: number): void {
    this.base = offset
    this.lineNo = line
    this.pos = 0
    this.end = 0
    this.long = null
    this.view = this.buf.subarray(0, 0)
  }

  /**
   * Where the next read goes: moves unconsumed bytes to the front and sizes the buffer. A file
   * followed at its end reads small appends into a small buffer; once a read fills its whole
   * window (a backlog), reads grow to `chunkSize`, and the buffer shrinks back when caught up.
   */
  prepare(): { readonly buffer: Buffer; readonly at: number; readonly length: number } {
    if (this.pos > 0) {
      if (this.end > this.pos) this.buf.copyWithin(0, this.pos, this.end)
      this.base += this.pos
      this.end -= this.pos
      this.pos = 0
    }
    const window = this.lastFull ? this.chunkSize : Math.min(this.chunkSize, SMALL_WINDOW)
    if (!this.lastFull && this.buf.length > SMALL_CAPACITY && this.end + window <= SMALL_CAPACITY) {
      const small = Buffer.allocUnsafe(SMALL_CAPACITY)
      this.buf.copy(small, 0, 0, this.end)
      this.buf = small
    } else if (this.buf.length - this.end < window) {
      const grown = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.end + window))
      this.buf.copy(grown, 0, 0, this.end)
      this.buf = grown
    }
    this.view = this.buf.subarray(0, this.end)
    this.requested = Math.min(this.chunkSize, this.buf.length - this.end)
    return { buffer: this.buf, at: this.end, length: this.requested }
  }

  /** `n` bytes were read into the space given by `prepare()`. */
  commit(n: number): void {
    this.lastFull = n >= this.requested
    this.end += n
    this.view = this.buf.subarray(0, this.end)
  }

  /** The next complete line, or null when only a partial line (or nothing) is buffered. */
  next(): Line | null {
    const line = this.advance()
    return line === null ? null : { ...line }
  }

  /**
   * `next()` without a new object per line: the line returned is this splitter's, overwritten by
   * the next call (the scanner reads each line once; a backlog has millions).
   */
  advance(): Line | null {
    const pos = this.pos
    if (pos >= this.end) return null
    const nl = this.view.indexOf(10, pos)
    if (this.long !== null) {
      // the rest of an over-long line: dropped up to its newline, then the line is handed out once
      if (nl === -1) {
        this.pos = this.end
        return null
      }
      return this.emitLong(nl + 1)
    }
    if (nl === -1) {
      if (this.end - pos < this.maxLineBytes) return null
      // over-long: keep its first maxLineBytes, skip the rest (wherever the reads happen to cut it)
      const stop = pos + this.maxLineBytes
      this.long = {
        text: this.buf.toString("utf8", pos, stop),
        marks: this.mark === null ? 0 : this.mark(this.buf, pos, stop),
        start: this.base + pos
      }
      this.pos = this.end
      return null
    }
    // the same cut whether the line arrived in one read or in many
    const stop = nl - pos > this.maxLineBytes ? pos + this.maxLineBytes : nl > pos && this.buf[nl - 1] === 13 ? nl - 1 : nl
    return this.emit(pos, stop, nl + 1)
  }

  /** The buffered bytes after the last newline as a line (the writer is gone), or null. */
  rest(): Line | null {
    if (this.long !== null) {
      this.pos = this.end
      return { ...this.emitLong(this.end) }
    }
    if (this.pos >= this.end) return null
    const stop = this.end - this.pos > this.maxLineBytes ? this.pos + this.maxLineBytes : this.buf[this.end - 1] === 13 ? this.end - 1 : this.end
    return { ...this.emit(this.pos, stop, this.end) }
  }

  /** Hand out the over-long line being skipped; its last byte is just before `next` (an index in buf). */
  private emitLong(next: number): Line {
    const long = this.long!
    this.long = null
    const line = this.current
    line.text = long.text
    line.lineNo = this.lineNo
    line.start = long.start
    line.end = this.base + next
    line.marks = long.marks
    this.pos = next
    this.lineNo++
    return line
  }

  private readonly current: { text: string; lineNo: number; start: number; end: number; marks: number } = { text: "", lineNo: 0, start: 0, end: 0, marks: 0 }

  private emit(from: number, stop: number, next: number): Line {
    const line = this.current
    line.text = this.buf.toString("utf8", from, stop)
    line.lineNo = this.lineNo
    line.start = this.base + from
    line.end = this.base + next
    line.marks = this.mark === null ? 0 : this.mark(this.buf, from, stop)
    this.pos = next
    this.lineNo++
    return line
  }
}
