/**
 * The signature of a server error (CONTRACT section 7): what makes two 500s "the same incident"
 * for escalation tickets. Status, code and the masked message (numbers, ids, request ids,
 * durations and quoted values masked as for the event fingerprint, and the event's own model
 * name masked out, so "model X failed" from four models is one signature), plus the values of
 * the labels named in `tickets.groupBy` (model, service, provider). Not the event fingerprint,
 * which contains the model and the service.
 *
 * The ticket's `fingerprint` is `hash64Hex` of the signature: 16 hex characters, stable across
 * restarts and versions as long as `tickets.groupBy` does not change.
 */
import { escapeRegExp } from "../catalog/literalGate.js"
import type { FailureEvent } from "../classify/Event.js"
import { hash64Hex, maskMessage } from "../classify/classify.js"
import type { TicketGroupLabel } from "../config/Config.js"

/** The labels of `tickets.groupBy`, in the one order used in signatures (the config's order does not matter). */
export const TICKET_GROUP_LABELS: ReadonlyArray<TicketGroupLabel> = ["model", "service", "provider"]

export const MODEL_MASK = "<model>"

/**
 * The message with the event's model name replaced by `<model>`: the full name and its last path
 * segment (`Qwen/Qwen2.5-7B-Instruct` and `Qwen2.5-7B-Instruct`), case-insensitive, as whole names
 * (not a part of a longer name such as `gpt-4o-mini` for `gpt-4o`, or `llama3:8b` for `llama3`).
 */
export const maskModelName = (message: string, model: string | null): string => {
  if (model === null) return message
  const re = modelPattern(model)
  return re === null ? message : message.replace(re, MODEL_MASK)
}

/** Compiled patterns of recently seen model names (bounded: cleared when full). */
const modelPatterns = new Map<string, RegExp | null>()
const MODEL_PATTERNS = 1024

const modelPattern = (model: string): RegExp | null => {
  let re = modelPatterns.get(model)
  if (re !== undefined) return re
  const full = model.trim()
  re = null
  if (full.length >= 2) {
    const tail = full.slice(full.lastIndexOf("/") + 1)
    const names = tail.length >= 3 && tail !== full ? [full, tail] : [full]
    // the longer name first, so the full name is masked whole
    const alternatives = names.map(escapeRegExp).join("|")
    re = new RegExp(`(?<![A-Za-z0-9]|[A-Za-z0-9][-_.])(?:${alternatives})(?![A-Za-z0-9]|[-_.:/][A-Za-z0-9])`, "gi")
  }
  if (modelPatterns.size >= MODEL_PATTERNS) modelPatterns.clear()
  modelPatterns.set(model, re)
  return re
}

/** The masked message of the signature ("" for none). */
export const signatureMessage = (e: Pick<FailureEvent, "message" | "model">): string =>
  e.message === null ? "" : maskMessage(maskModelName(e.message, e.model))

/** The values of the `groupBy` labels for this event, in canonical order (null when unknown). */
export const ticketGroupOf = (
  e: Pick<FailureEvent, "model" | "service" | "provider">,
  groupBy: ReadonlyArray<TicketGroupLabel>
): Readonly<Partial<Record<TicketGroupLabel, string | null>>> => {
  const out: Partial<Record<TicketGroupLabel, string | null>> = {}
  for (const label of TICKET_GROUP_LABELS) if (groupBy.includes(label)) out[label] = e[label] ?? null
  return out
}

export interface TicketSignature {
  /** The stable hash: the ticket's `fingerprint`. */
  readonly fingerprint: string
  readonly message: string
  readonly group: Readonly<Partial<Record<TicketGroupLabel, string | null>>>
}

/** The signature of a server error and its hash. */
export const ticketSignature = (
  e: Pick<FailureEvent, "status" | "code" | "message" | "model" | "service" | "provider">,
  groupBy: ReadonlyArray<TicketGroupLabel>
): TicketSignature => {
  const message = signatureMessage(e)
  const group = ticketGroupOf(e, groupBy)
  const parts = [
    "ticket",
    e.status === null ? "" : String(e.status),
    e.code === null ? "" : String(e.code),
    message,
    ...Object.entries(group).map(([k, v]) => `${k}=${v === null ? "\u0000" : v}`)
  ]
  return { fingerprint: hash64Hex(parts.join("\u001f")), message, group }
}
