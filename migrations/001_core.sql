-- faultline core schema: events, incidents, read checkpoints, ingest counters and the
-- pre-aggregated buckets the report reads (CONTRACT sections 5, 6, 9).
--
-- Times are INTEGER epoch milliseconds (UTC). Booleans are 0/1 (NULL where the event says null).
-- Retention (EventStore.prune): events and the per-minute tables (buckets_minute, timeline_minute)
-- live `database.retentionDays`; the per-hour and per-day ones max(retentionDays, 400 days);
-- incidents, series, sources and ingest_counters are never pruned.

-- Every stored FailureEvent (CONTRACT section 5).
CREATE TABLE events (
  seq             INTEGER PRIMARY KEY,       -- rowid: insertion order
  id              TEXT    NOT NULL,
  occurred_at     INTEGER NOT NULL,          -- epoch ms; served back as ISO-8601 (toISOString)
  ingested_at     INTEGER NOT NULL,          -- epoch ms
  source          TEXT    NOT NULL,          -- file:<path> | webhook | stdin
  line            INTEGER,
  service         TEXT,
  status          INTEGER,
  -- `code` has no declared type on purpose: no type affinity, so an integer code is stored as
  -- INTEGER and a string code (even "50603") as TEXT; both read back exactly as written.
  code,
  message         TEXT,
  model           TEXT,
  request_id      TEXT,
  endpoint        TEXT,
  stream          INTEGER CHECK (stream IN (0, 1)),
  category        TEXT    NOT NULL,
  rate_limit_kind TEXT,
  severity        TEXT    NOT NULL,
  retryable       INTEGER NOT NULL CHECK (retryable IN (0, 1)),
  action          TEXT    NOT NULL,
  fingerprint     TEXT    NOT NULL,
  body_not_json   INTEGER NOT NULL CHECK (body_not_json IN (0, 1)),
  sample          TEXT    NOT NULL
);
-- A duplicate id is not stored twice (INSERT ... ON CONFLICT(id) DO NOTHING).
CREATE UNIQUE INDEX events_id ON events (id);
-- GET /v1/events: keyset pagination newest first, (occurred_at DESC, id DESC), and since/until.
-- Each filter index ends with the same key, so a filtered page is an index range scan without a
-- sort. rateLimitKind is served by the category index (a kind implies category rate_limit);
-- status is a residual filter (the store looks the status up in `series` first: unseen -> empty
-- page, seen with one category -> the category index).
CREATE INDEX events_time          ON events (occurred_at, id);
CREATE INDEX events_category_time ON events (category, occurred_at, id);
CREATE INDEX events_model_time    ON events (model, occurred_at, id);
CREATE INDEX events_service_time  ON events (service, occurred_at, id);

-- One row per fingerprint ("the same failure"), all time. message/code/action/sample are those
-- of the latest occurrence (by occurred_at).
CREATE TABLE incidents (
  id              INTEGER PRIMARY KEY,
  fingerprint     TEXT    NOT NULL UNIQUE,
  category        TEXT    NOT NULL,
  rate_limit_kind TEXT,
  severity        TEXT    NOT NULL,
  retryable       INTEGER NOT NULL,
  status          INTEGER,
  code,                                      -- no affinity, as events.code
  model           TEXT,
  service         TEXT,
  message         TEXT,
  action          TEXT    NOT NULL,
  count           INTEGER NOT NULL,
  first_seen      INTEGER NOT NULL,          -- epoch ms, min occurred_at
  last_seen       INTEGER NOT NULL,          -- epoch ms, max occurred_at
  sample          TEXT    NOT NULL,
  sample_event_id TEXT    NOT NULL
);

-- Read positions of tailed files (sources/Batch.ts SourceCheckpoint), committed with their events.
CREATE TABLE sources (
  key         TEXT    PRIMARY KEY,
  path        TEXT    NOT NULL,
  byte_offset INTEGER NOT NULL,
  line        INTEGER NOT NULL,
  size        INTEGER NOT NULL,
  head_hash   TEXT    NOT NULL,
  head_length INTEGER NOT NULL,
  updated_at  INTEGER NOT NULL               -- epoch ms
);

-- Cumulative ingest counters per source label (file:<path>, webhook, stdin).
CREATE TABLE ingest_counters (
  source     TEXT    PRIMARY KEY,
  lines_read INTEGER NOT NULL DEFAULT 0,
  ignored    INTEGER NOT NULL DEFAULT 0,
  failures   INTEGER NOT NULL DEFAULT 0,
  updated_at INTEGER NOT NULL
);

-- A series is one fingerprint with one label combination (category, rateLimitKind, status, model,
-- service). The contract makes the fingerprint cover those labels, so a series is normally one
-- incident; keeping the labels here keeps the report exact even if two label sets ever share a
-- fingerprint. `key` = fingerprint + JSON [category, rateLimitKind, status, model, service] (NULLs
-- included, so a combination with NULLs is still unique). The store caches this table.
CREATE TABLE series (
  id              INTEGER PRIMARY KEY,
  key             TEXT    NOT NULL UNIQUE,
  incident        INTEGER NOT NULL REFERENCES incidents (id),
  category        TEXT    NOT NULL,
  rate_limit_kind TEXT,
  status          INTEGER,
  model           TEXT,
  service         TEXT
);

-- Event counts per time bucket (minute, hour, UTC day) x series, t = bucket start (epoch ms,
-- UTC-aligned), with the first and last occurrence inside the bucket: everything the report
-- counts (by category, kind, status, model, timeline, top fingerprints with firstSeen/lastSeen)
-- is a sum over these rows. The report reads whole days, hours and minutes from them and only the
-- partial minutes at the window's edges from `events`.
CREATE TABLE buckets_minute (
  t          INTEGER NOT NULL,
  series     INTEGER NOT NULL,
  count      INTEGER NOT NULL,
  first_seen INTEGER NOT NULL,
  last_seen  INTEGER NOT NULL,
  PRIMARY KEY (t, series)
) WITHOUT ROWID;

CREATE TABLE buckets_hour (
  t          INTEGER NOT NULL,
  series     INTEGER NOT NULL,
  count      INTEGER NOT NULL,
  first_seen INTEGER NOT NULL,
  last_seen  INTEGER NOT NULL,
  PRIMARY KEY (t, series)
) WITHOUT ROWID;

CREATE TABLE buckets_day (
  t          INTEGER NOT NULL,
  series     INTEGER NOT NULL,
  count      INTEGER NOT NULL,
  first_seen INTEGER NOT NULL,
  last_seen  INTEGER NOT NULL,
  PRIMARY KEY (t, series)
) WITHOUT ROWID;

-- Event counts per time bucket x category: the timeline of an unfiltered report (the common case)
-- reads these few rows instead of the per-series buckets.
CREATE TABLE timeline_minute (
  t        INTEGER NOT NULL,
  category TEXT    NOT NULL,
  count    INTEGER NOT NULL,
  PRIMARY KEY (t, category)
) WITHOUT ROWID;

CREATE TABLE timeline_hour (
  t        INTEGER NOT NULL,
  category TEXT    NOT NULL,
  count    INTEGER NOT NULL,
  PRIMARY KEY (t, category)
) WITHOUT ROWID;
