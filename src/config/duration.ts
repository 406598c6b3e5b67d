/** Durations as people write them in configs and query strings: `500ms`, `30s`, `15m`, `24h`, `7d`. */
const unitMs: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }
const durationRe = /^(\d{1,9})(ms|s|m|h|d|w)$/

/** Milliseconds, or null when the text is not a duration. */
export const parseDuration = (text: string): number | null => {
  const m = durationRe.exec(text.trim())
  return m === null ? null : Number(m[1]) * unitMs[m[2]!]!
}

/** `since`/`until`: an ISO-8601 instant or a duration back from `now`. Epoch ms, or null. */
export const parseInstantOrAgo = (text: string, now: number): number | null => {
  const ago = parseDuration(text)
  if (ago !== null) return now - ago
  if (!/^\d{4}-\d{2}-\d{2}/.test(text)) return null
  const t = Date.parse(text)
  return Number.isNaN(t) ? null : t
}

export const formatDuration = (ms: number): string => {
  for (const [u, f] of [["d", 86_400_000], ["h", 3_600_000], ["m", 60_000], ["s", 1_000]] as const) {
    if (ms >= f && ms % f === 0) return `${ms / f}${u}`
  }
  return `${ms}ms`
}
