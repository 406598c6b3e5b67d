/**
 * Extractor: a client library's exception text (`openai.RateLimitError: ...`, Java/.NET/Go
 * exception class names): the class, and where the message after it starts.
 */
import { KNOWN_CLASS_RE } from "../draft.js"

/** `FooError`, `FooException`, also with underscores (`AI_APICallError`, Vercel's AI SDK). */
const GENERIC_CLASS_RE = /\b([A-Z][A-Za-z0-9_]{1,60}(?:Error|Exception))\b/

/** The module path written before a class name (`anthropic.` of `anthropic.RateLimitError`, PHP's `OpenAI\Exceptions\`), or "". */
export function modulePrefix(s: string, classEnd: number, name: string): string {
  let i = classEnd - name.length
  const end = i
  while (i > 0 && end - i < 80) {
    const c = s.charCodeAt(i - 1)
    if (!((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 46 || c === 45 || c === 47 || c === 64 || c === 92)) break
    i--
  }
  return s.slice(i, end)
}

/**
 * google-api-core's exceptions carry no Error/Exception suffix (`google.api_core.exceptions.ResourceExhausted:
 * 429 Quota exceeded …`, googleapis/python-api-core:google/api_core/exceptions.py, whose `__str__`
 * is `f"{self.code} {self.message}"`).
 */
const API_CORE_CLASS_RE = /\bapi_core\.exceptions\.([A-Z][A-Za-z]{2,40})\b/

export function findClass(s: string): { name: string; end: number; known: boolean } | null {
  if (s.indexOf("api_core.exceptions.") !== -1) {
    const g = API_CORE_CLASS_RE.exec(s)
    if (g !== null) return { name: g[1], end: g.index + g[0].length, known: false }
  }
  if (s.indexOf("Error") === -1 && s.indexOf("Exception") === -1 && s.indexOf("Timeout") === -1) return null
  const known = KNOWN_CLASS_RE.exec(s)
  if (known !== null) return { name: known[1], end: known.index + known[0].length, known: true }
  const generic = GENERIC_CLASS_RE.exec(s)
  if (generic !== null) return { name: generic[1], end: generic.index + generic[0].length, known: false }
  return null
}

/**
 * gRPC status names in client texts: Python's `StatusCode.RESOURCE_EXHAUSTED`, Go's `rpc error:
 * code = ResourceExhausted desc = ...`, google-api-core's `google.api_core.exceptions.ResourceExhausted`.
 */
const GRPC_STATUS_RE = /\b(?:StatusCode\.|code = |api_core\.exceptions\.)([A-Z][A-Za-z_]{2,40})\b/

/**
 * Java's grpc-java (`io.grpc.StatusRuntimeException: RESOURCE_EXHAUSTED: ...`, `StatusException:
 * UNAVAILABLE`) and Node's grpc-js (`Error: 14 UNAVAILABLE: No connection established`: the
 * numeric code, then the name).
 */
const GRPC_JAVA_NODE_RE = /\b(?:Status(?:Runtime)?Exception|Error): (?:1?\d )?([A-Z][A-Z_]{2,40})(?=:|\s|$)/

/** `ResourceExhausted: Worker local total request limit reached` (the distinctive names only: `Unavailable:` is any word). */
const CAMEL_GRPC_RE = /(?:^|[\s:])(ResourceExhausted|DeadlineExceeded|PermissionDenied|InvalidArgument|FailedPrecondition|Unauthenticated)(?=: )/

/** A gRPC status named in the text, as the envelope writes it (`RESOURCE_EXHAUSTED`), or null. */
export function findGrpcStatus(s: string): string | null {
  if (s.indexOf("StatusCode.") === -1 && s.indexOf("code = ") === -1 && s.indexOf("api_core") === -1) {
    const head = s.length > 8192 ? s.slice(0, 8192) : s
    if (s.indexOf("Exception: ") !== -1 || s.indexOf("Error: ") !== -1) {
      const j = GRPC_JAVA_NODE_RE.exec(head)
      if (j !== null && GRPC_STATUSES.has(j[1])) return j[1]
    }
    // the CamelCase name as tonic and grpc-go's status print it before the message
    const c = CAMEL_GRPC_RE.exec(head)
    return c === null ? null : grpcStatusName(c[1])
  }
  const m = GRPC_STATUS_RE.exec(s)
  if (m === null) return null
  const upper = grpcStatusName(m[1])
  return GRPC_STATUSES.has(upper) ? upper : null
}

/** A gRPC status name as the envelope writes it: `ResourceExhausted` -> `RESOURCE_EXHAUSTED` (`UNAVAILABLE`, `resource_exhausted` upper-cased as they are). */
function grpcStatusName(name: string): string {
  return (name.indexOf("_") !== -1 || name === name.toUpperCase() ? name : name.replace(/([a-z])([A-Z])/g, "$1_$2")).toUpperCase()
}

const GRPC_STATUSES: ReadonlySet<string> = new Set([
  "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED",
  "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE",
  "DATA_LOSS", "UNAUTHENTICATED"
])

export const REPEATED_CLASS_RE = /^[A-Za-z_][\w.]{0,80}(?:Error|Exception):[ \t]+/
