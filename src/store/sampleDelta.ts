/**
 * Samples stored as a delta against their series' first sample (issue 15).
 *
 * The samples of one series are the same record with a different timestamp and request id, so
 * most of a sample is a copy of the series' reference sample. The delta is a string of ops, each
 * starting with one code unit `h`:
 * - `h < COPY`: a literal of `h` code units, which follow as is;
 * - `h >= COPY`: a copy of `h - COPY` code units of the reference, from the offset given by the
 *   next code unit.
 * Header and offset code units stay below 0xD800 (no surrogates), and no op cuts a surrogate pair,
 * so the delta is valid text and SQLite stores it as UTF-8 (most ops are 3-5 bytes).
 *
 * Measured on the storm log's samples (~200 bytes, differing in a timestamp and a request id):
 * ~30 bytes a sample, ~1 µs to encode; zlib's deflateRaw with the reference as dictionary made
 * the same ~29 bytes but cost ~34 µs an event (a new zlib stream each call).
 */

const COPY = 0x4000
/** The longest literal or copy of one op (longer ones are split). */
const MAX_RUN = COPY - 1
/** Offsets are stored + 1 (no NUL) in one code unit below the surrogates: references longer than this are not used. */
const MAX_REF = 0xd7fe
/** A shorter match is cheaper as a literal than as a 3-5 byte copy. */
const MIN_COPY = 6
/** Code units of a literal between two searches of the reference. */
const PROBE_EVERY = 8
/** A search of the reference starts this far before the current position (fields move a little). */
const PROBE_BACK = 64

const isHigh = (c: number): boolean => c >= 0xd800 && c <= 0xdbff
const isLow = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff

/** Length of the common run of `t` from `i` (up to `end`) and `r` from `j`, not ending inside a surrogate pair of `t`. */
const runLength = (t: string, i: number, end: number, r: string, j: number): number => {
  let n = 0
  const max = Math.min(end - i, r.length - j, MAX_RUN)
  while (n < max && t.charCodeAt(i + n) === r.charCodeAt(j + n)) n++
  if (n > 0 && i + n < t.length && isHigh(t.charCodeAt(i + n - 1))) n--
  return n
}

/**
 * The delta of `t` against `ref`, or null when it would not be shorter than `t` (or `ref` is too
 * long to address). Greedy: copy while `t` follows `ref`; where it departs, look for the next
 * MIN_COPY code units of `t` in `ref` (from a little before the current position), emitting what
 * is not found as literal. `t` from `keepFrom` to `keepTo` is kept literal (whole in the delta).
 */
export const encodeDelta = (t: string, ref: string, keepFrom = -1, keepTo = -1): string | null => {
  if (ref.length === 0 || ref.length > MAX_REF || t.length < MIN_COPY) return null
  const out: string[] = []
  let size = 0
  let lit = 0 // start of the pending literal
  let i = 0
  let j = 0
  const flush = (end: number): void => {
    for (let a = lit; a < end; a += MAX_RUN) {
      const b = Math.min(end, a + MAX_RUN)
      out.push(String.fromCharCode(b - a), t.slice(a, b))
      size += 1 + b - a
    }
  }
  while (i < t.length) {
    // copies stop where the kept part starts and resume after it
    const end = i < keepFrom ? keepFrom : t.length
    if (i >= keepFrom && i < keepTo) {
      i++
      j++
      continue
    }
    // a copy never starts on the second half of a surrogate pair
    let n = isLow(t.charCodeAt(i)) ? 0 : runLength(t, i, end, ref, j)
    // lock-step first (a field of the same length changed: the pointers advance together); a
    // search of the reference every few code units finds where a shifted copy resumes
    if (n < MIN_COPY && n + i < end && i + MIN_COPY <= end && (i - lit) % PROBE_EVERY === 0 && !isLow(t.charCodeAt(i))) {
      const probe = t.slice(i, i + MIN_COPY)
      const at = ref.indexOf(probe, Math.max(0, j - PROBE_BACK))
      if (at >= 0) {
        j = at
        n = runLength(t, i, end, ref, j)
      }
    }
    if (n >= MIN_COPY || (n > 0 && i + n === t.length)) {
      flush(i)
      out.push(String.fromCharCode(COPY + n, j + 1))
      size += 2
      i += n
      j += n
      lit = i
      if (size >= t.length) return null
    } else {
      i++
      j++
    }
  }
  flush(i)
  if (size >= t.length) return null
  return out.join("")
}

/** The sample a delta of `encodeDelta(sample, ref)` stands for. */
export const decodeDelta = (delta: string, ref: string): string => {
  const out: string[] = []
  let k = 0
  while (k < delta.length) {
    const h = delta.charCodeAt(k++)
    if (h < COPY) {
      out.push(delta.slice(k, k + h))
      k += h
    } else {
      const from = delta.charCodeAt(k++) - 1
      out.push(ref.slice(from, from + h - COPY))
    }
  }
  return out.join("")
}
