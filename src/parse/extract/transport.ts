/**
 * Extractor: transport failures — no proper answer from the service (ECONNREFUSED, TLS, DNS,
 * timeouts, proxies), by error code or by phrase.
 */

export const TRANSPORT_CODE_RE =
  /^(?:ECONNREFUSED|ECONNRESET|ECONNABORTED|ETIMEDOUT|ESOCKETTIMEDOUT|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|EPIPE|UND_ERR_[A-Z_]+|CERT_[A-Z_]+|ERR_TLS_[A-Z_]+|ERR_SSL_[A-Z_]+|UNABLE_TO_VERIFY_LEAF_SIGNATURE|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|ERR_PROXY_[A-Z_]+|ERR_SOCKET_[A-Z_]+|ERR_STREAM_[A-Z_]+)$/

const TRANSPORT_NAME_RE =
  /\b(?:ECONNREFUSED|ECONNRESET|ECONNABORTED|ETIMEDOUT|ESOCKETTIMEDOUT|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|UND_ERR_[A-Z_]+|CERT_[A-Z_]+|ERR_TLS_[A-Z_]+|ERR_SSL_[A-Z_]+|UNABLE_TO_VERIFY_LEAF_SIGNATURE|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|APIConnectionError|APITimeoutError|ConnectTimeout|ReadTimeout|ConnectError|ProxyError|SSLError|TimeoutError|ConnectTimeoutError|HeadersTimeoutError|BodyTimeoutError|SocketTimeoutException|ConnectException|UnknownHostException|HttpTimeoutException|ERR_STREAM_PREMATURE_CLOSE|NewConnectionError|ClientConnectorError|ServerDisconnectedError|RemoteDisconnected|SocketException|TimedOut|ReadTimeoutError|EndpointConnectionError|InvalidURL|MissingSchema|InvalidSchema|UnsupportedProtocol|ChunkedEncodingError|IncompleteRead|SSLHandshakeException|StreamResetException|PrematureCloseException|EOFException|NameResolutionError|ConnectTimeoutException|ReadTimeoutException|TaskCanceledException)\b/

/** Transport failure phrases, grouped by first letter so the regex engine checks each position once. */
const TRANSPORT_PHRASE_RE =
  /connect(?:ion)? timeout|(?:read|request|connect) timed out|请求超时|连接超时|网络错误|t(?:imed out|imeout of \d+ ?ms exceeded|emporary failure in name resolution|ls handshake|unneling socket)|c(?:onnection (?:error|refused|reset|aborted)|ertificate (?:verify failed|has expired|is not valid))|s(?:ocket hang up|elf[- ]signed certificate|sl routines)|n(?:ame or service not known|odename nor servname|etwork is unreachable|o route to host)|fetch failed|other side closed|premature close|client network socket disconnected|getaddrinfo|handshake failure|proxy (?:error|authentication required)|unable to verify|wrong version number|failed to establish a new connection|network ?error\b|semaphore timeout|failed to fetch\b|load failed\b|upstream connect error|disconnect\/reset before headers|(?:read|connect) timeout on endpoint|could not connect to the endpoint|context deadline exceeded|\bcancell?ed, context cancell?ed\b|\btimeout from https?:\/\/|Client\.Timeout exceeded|stream error: stream ID \d+|stream disconnected before completion|\bunexpected EOF\b|peer closed connection without sending complete message body|\bunable to connect to (?:the )?(?:api|server|endpoint|provider)\b|connection was forcibly closed by the remote host|\bissue connecting to\b|\boperation (?:was timeout|timed out)\b|\bunable to reach the (?:model |api |llm )?(?:provider|server|endpoint|api)\b|has been blocked by CORS policy|no such host|i\/o timeout|server sent GOAWAY|connection broken|connection prematurely closed|connection closed before message completed|error sending request for url|couldn't connect to server|failed to connect to [a-z0-9.-]{1,100}[ :\/]|empty reply from server|SSL_ERROR_SYSCALL|PKIX path building failed|stream was reset|HttpClient\.Timeout|(?:recv|send) failure|name resolution failed|UNAVAILABLE: io exception|operation was cancell?ed because it exceeded the configured timeout|stream failed: (?:Stream ended|Transport error)|I\/O error on (?:GET|POST|PUT|PATCH|DELETE) request for "https?:|curl error exit_code=|\b(?:get|post|put|patch|delete) "https?:\/\/[^"\s]{1,300}": EOF\b|\bfailed to [^\n]{1,60}: EOF\b(?![ \t]*(?:while|in|when))|\bInterruptedIOException: timeout\b|\b(?:TypeError|[Ee]rror): terminated\b|\bstream: EOF\b|WebSocket is closed before the connection is established|WebSocket connection to '[^'\n]{1,300}' failed|\b(?:received|sent) 10(?:06|07|11|12|13|14) \((?:abnormal closure|invalid frame payload data|internal error|service restart|try again later|bad gateway)\)|\bstream closed before\b|\bstream ended (?:before|unexpectedly|prematurely)\b|\btimeout after \d{1,6}(?:\.\d{1,3})? ?(?:ms|s|sec|secs|seconds)\b|\bnet::ERR_(?:CONNECTION_[A-Z_]{3,20}|NAME_NOT_RESOLVED|TIMED_OUT|INTERNET_DISCONNECTED|NETWORK_CHANGED|PROXY_CONNECTION_FAILED|TUNNEL_CONNECTION_FAILED|SSL_PROTOCOL_ERROR|CERT_[A-Z_]{3,30}|EMPTY_RESPONSE|HTTP2_PROTOCOL_ERROR|ADDRESS_UNREACHABLE)\b/i

/** The transport failure named in `s` (ECONNREFUSED, `socket hang up`, TLS, DNS, proxy ...), or null. */
export function transportSignature(s: string): string | null {
  const t = s.length > 16384 ? s.slice(0, 16384) : s
  const m = TRANSPORT_NAME_RE.exec(t) ?? TRANSPORT_PHRASE_RE.exec(t)
  return m === null ? null : m[0]
}

/**
 * The failure of an HTTP client's request (Node's fetch/undici, Python's requests/urllib3,
 * aiohttp, httpx via the OpenAI SDKs, Rust's reqwest, Go's `Post "https://…": <error>`): whatever
 * the host, a call to an HTTP API
 * failed, which a bare socket error (`ECONNREFUSED` of a database driver) does not say.
 */
const HTTP_CLIENT_TRANSPORT_RE =
  /fetch failed|\bUND_ERR_[A-Z_]+|\b(?:Connect|Headers|Body)TimeoutError\b|\breqwest::Error\b|\bNewConnectionError\b|\bClientConnectorError\b|\bAPIConnectionError\b|\bAPITimeoutError\b|\bFetchError: request to https?:|upstream connect error|on endpoint URL:|\b(?:Get|Post|Put|Patch|Delete) "https?:\/\/[^"\s]{1,300}": |stream error: stream ID \d+|stream disconnected before completion|\bTypeError: (?:Failed to fetch|network error|Load failed)\b|\bNetworkError when attempting to fetch resource\b|node:internal\/deps\/undici\/|\bClient\.Timeout (?:exceeded|or context cancellation)|\bAccess to fetch at 'https?:\/\/[^'\s]{1,300}' from origin '[^'\s]{1,200}' has been blocked by CORS policy|\bcurl: \(\d{1,2}\) [^\n]{0,200}?https?:\/\/|error sending request for url \(https?:|\bHttpTimeoutException\b|\bstream failed: (?:Stream ended|Transport error)|\bRetry failed after \d{1,3} tries\. Retry settings can be adjusted in ClientOptions\.Retry|\bI\/O error on (?:GET|POST|PUT|PATCH|DELETE) request for "https?:\/\/|\bcurl error exit_code=|\bHTTPSConnectionPool\(host='|\bMax retries exceeded with url: /

export function isHttpClientTransport(s: string): boolean {
  return HTTP_CLIENT_TRANSPORT_RE.test(s.length > 16384 ? s.slice(0, 16384) : s)
}
