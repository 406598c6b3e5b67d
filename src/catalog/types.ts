/**
 * The provider catalogue: what each provider family (API, gateway, self-hosted server, client
 * library) says when a call fails, as data. One file per family under `providers/`; adding a
 * provider is adding a file (and its samples in `fixtures/corpus/`), nothing else changes.
 */
import type { Category, RateLimitKind } from "../classify/Event.js"

/** What an entry matches; every given field must match. At least one field is required. */
export interface EntryMatch {
  /** HTTP status (one or several). */
  readonly status?: number | ReadonlyArray<number>
  /** The body's `code` (number or string; strings compared case-insensitively). */
  readonly code?: number | string | ReadonlyArray<number | string>
  /** The body's `error.type` / `type` / gRPC status name (case-insensitive). */
  readonly type?: string | ReadonlyArray<string>
  /** A client library's error class (`RateLimitError`, `ThrottlingException`, ...), exact. */
  readonly errorClass?: string | ReadonlyArray<string>
  /**
   * Wording in the message (or the record's text when no message was read): a RegExp with
   * the `i` flag. Keep it linear: literals, classes and bounded gaps such as `[^\n]{0,40}`.
   */
  readonly message?: RegExp
}

export interface CatalogEntry {
  /** `<family>.<slug>`, unique; named in `--explain` as `decidedBy.name`. */
  readonly id: string
  readonly match: EntryMatch
  readonly category: Category
  /** For `rate_limit` entries whose wording names the limit; else the kind is read from the text. */
  readonly rateLimitKind?: RateLimitKind
  /**
   * Apply only when the record was told to come from this family (by host, class names or
   * envelope): for codes that mean different things at different providers (`1113`, `17`).
   */
  readonly onlyForProvider?: boolean
  /**
   * The entry alone tells the provider (a code or class name only this family uses, such as
   * `ThrottlingException` or `1113`): a record matched by it gets this family's `provider`
   * when nothing else named one. Leave unset for codes that OpenAI-compatible relays copy.
   */
  readonly identifies?: boolean
  /** Ids of real samples (in `fixtures/corpus/`) that show this entry. At least one. */
  readonly samples: ReadonlyArray<string>
  /** Where the meaning is documented (URL), when it is. */
  readonly doc?: string
}

export interface ProviderFamily {
  /** The `provider` slug events carry: lower-case, `[a-z0-9-]`. */
  readonly id: string
  readonly name: string
  /** API hosts (suffix match on the host of any URL in the record). */
  readonly hosts: ReadonlyArray<string>
  /**
   * Other ways to tell the provider from the text: SDK class or module names, envelope
   * markers, product names. Case-sensitive unless the RegExp has `i`. Keep them specific: a
   * marker that names a model family (`claude`) would mislabel every relay serving it.
   */
  readonly markers: ReadonlyArray<RegExp>
  /**
   * Names that tell the provider only when nothing else does: an SDK's module or class names
   * (`openai.RateLimitError`) that also call every compatible API, product names in prose.
   */
  readonly weakMarkers?: ReadonlyArray<RegExp>
  readonly entries: ReadonlyArray<CatalogEntry>
}
