-- Thin event rows (issue 15). An occurrence keeps only what differs from one occurrence of its
-- series to the next: its times, id, source position, request id and sample. What follows from
-- its identity is stored once: the labels in `series` (category, kind, status, model, service,
-- provider; the fingerprint through its incident), and the other per-event fields (severity,
-- retryable, action, code, endpoint, stream, bodyNotJson, which the series key does not cover and
-- which can differ between occurrences) in `event_variants`, normally one per series. A message
-- often differs in its digits from one occurrence to the next: the variant keeps the first one
-- and an event row keeps its own only when it differs.
--
-- Samples: the first sample of a series is kept on the series row (`sample_ref`); an event's
-- sample is stored as a delta against it (store/sampleDelta.ts, `delta` = 1), or as is when the
-- series has no reference yet or the delta is not shorter (`delta` = 0).
--
-- `events` becomes a view with the columns of 001_core.sql (sample: the plain one, NULL for a
-- delta; EventStore reads events whole), so that ad-hoc SQL, the diagnosis queries and old tooling keep reading it; an INSERT
-- into the view (tests, tools writing the old way) stores a thin row with a plain sample.

-- The source labels (file:<path>, webhook, stdin): few, interned.
CREATE TABLE event_sources (
  id   INTEGER PRIMARY KEY,
  name TEXT    NOT NULL UNIQUE
);

-- The per-event fields that the series key does not cover. `key` is JSON
-- [series, severity, retryable, action, code, message IS NULL, endpoint, stream, body_not_json];
-- `message` is the first message of the variant (NULL: its events have none).
CREATE TABLE event_variants (
  id            INTEGER PRIMARY KEY,
  key           TEXT    NOT NULL UNIQUE,
  series        INTEGER NOT NULL REFERENCES series (id),
  severity      TEXT    NOT NULL,
  retryable     INTEGER NOT NULL CHECK (retryable IN (0, 1)),
  action        TEXT    NOT NULL,
  code,                                      -- no affinity, as incidents.code
  message       TEXT,
  endpoint      TEXT,
  stream        INTEGER CHECK (stream IN (0, 1)),
  body_not_json INTEGER NOT NULL CHECK (body_not_json IN (0, 1))
);

-- The series' first sample: the reference its events' samples are stored against.
ALTER TABLE series ADD COLUMN sample_ref TEXT;

-- One row per stored FailureEvent (CONTRACT section 5), joined back with series, event_variants
-- and event_sources when read.
CREATE TABLE event_rows (
  seq          INTEGER PRIMARY KEY,        -- rowid: insertion order
  id           TEXT    NOT NULL,
  occurred_at  INTEGER NOT NULL,           -- epoch ms
  ingested_ms  INTEGER NOT NULL,           -- ingested_at - occurred_at (a small number: fewer bytes)
  series       INTEGER NOT NULL,           -- series.id (= event_variants.series of `variant`)
  variant      INTEGER NOT NULL,           -- event_variants.id
  source       INTEGER NOT NULL,           -- event_sources.id
  line         INTEGER,
  -- the request id, or where it is in `sample` as stored (it usually is: the record names it):
  -- INTEGER length * 8192 + offset (0-based, in characters)
  request_id,
  message      TEXT,                       -- NULL: the variant's message; else this event's
  sample       TEXT    NOT NULL,           -- the sample as is, or its delta against series.sample_ref ...
  delta        INTEGER NOT NULL CHECK (delta IN (0, 1)) -- ... when 1
);
-- A duplicate id is not stored twice (INSERT ... ON CONFLICT(id) DO NOTHING); getEvent.
CREATE UNIQUE INDEX event_rows_id ON event_rows (id);
-- GET /v1/events, newest first by (occurred_at, id): the time index serves unfiltered pages, the
-- series index filtered ones (a label filter is a set of series). Neither repeats the id (the
-- largest column): SQLite sorts only the events that share one millisecond ("USE TEMP B-TREE FOR
-- RIGHT PART OF ORDER BY") and stops at the page's end.
CREATE INDEX event_rows_time ON event_rows (occurred_at);
CREATE INDEX event_rows_series_time ON event_rows (series, occurred_at);

-- Moving the events of 001-005 -----------------------------------------------------------------

-- Events the store did not write (no incident or series of theirs): give them both, as the store
-- would have. The counts of such incidents are those of their events.
INSERT INTO incidents (fingerprint, category, rate_limit_kind, severity, retryable, status, code, model, service,
  message, action, count, first_seen, last_seen, sample, sample_event_id)
SELECT fingerprint, category, rate_limit_kind, severity, retryable, status, code, model, service, message, action,
  count(*), min(occurred_at), max(occurred_at), sample, id
FROM events WHERE fingerprint NOT IN (SELECT fingerprint FROM incidents)
GROUP BY fingerprint;

-- the series with their labels, to find an event's series (the key is JSON made in JS: not rebuilt here)
CREATE TEMP TABLE series_labels (
  id INTEGER PRIMARY KEY, fingerprint TEXT, category TEXT, rate_limit_kind TEXT, status INTEGER, model TEXT,
  service TEXT, provider TEXT,
  UNIQUE (fingerprint, category, rate_limit_kind, status, model, service, provider)
);
INSERT OR IGNORE INTO series_labels
  SELECT s.id, i.fingerprint, s.category, s.rate_limit_kind, s.status, s.model, s.service, s.provider
  FROM series s JOIN incidents i ON i.id = s.incident;

INSERT INTO series (key, incident, category, rate_limit_kind, status, model, service, provider)
SELECT DISTINCT e.fingerprint || CASE WHEN e.provider IS NULL
    THEN json_array(e.category, e.rate_limit_kind, e.status, e.model, e.service)
    ELSE json_array(e.category, e.rate_limit_kind, e.status, e.model, e.service, e.provider) END,
  i.id, e.category, e.rate_limit_kind, e.status, e.model, e.service, e.provider
FROM events e JOIN incidents i ON i.fingerprint = e.fingerprint
WHERE NOT EXISTS (SELECT 1 FROM series_labels l WHERE l.fingerprint = e.fingerprint AND l.category = e.category
  AND l.rate_limit_kind IS e.rate_limit_kind AND l.status IS e.status AND l.model IS e.model
  AND l.service IS e.service AND l.provider IS e.provider)
ON CONFLICT (key) DO NOTHING;

DELETE FROM series_labels;
INSERT OR IGNORE INTO series_labels
  SELECT s.id, i.fingerprint, s.category, s.rate_limit_kind, s.status, s.model, s.service, s.provider
  FROM series s JOIN incidents i ON i.id = s.incident;

INSERT INTO event_sources (name) SELECT DISTINCT source FROM events;

-- each event with its series, then the distinct variants
CREATE TEMP TABLE moved AS
SELECT e.seq AS seq, l.id AS series, e.severity AS severity, e.retryable AS retryable, e.action AS action,
  e.code AS code, e.message AS message, e.endpoint AS endpoint, e.stream AS stream, e.body_not_json AS body_not_json
FROM events e JOIN series_labels l ON l.fingerprint = e.fingerprint AND l.category = e.category
  AND l.rate_limit_kind IS e.rate_limit_kind AND l.status IS e.status AND l.model IS e.model
  AND l.service IS e.service AND l.provider IS e.provider;

INSERT INTO event_variants (key, series, severity, retryable, action, code, message, endpoint, stream, body_not_json)
SELECT json_array(series, severity, retryable, action, code, message IS NULL, endpoint, stream, body_not_json),
  series, severity, retryable, action, code, min(message), endpoint, stream, body_not_json
FROM moved
GROUP BY series, severity, retryable, action, code, message IS NULL, endpoint, stream, body_not_json;

INSERT INTO event_rows (seq, id, occurred_at, ingested_ms, series, variant, source, line, request_id, message, sample, delta)
SELECT e.seq, e.id, e.occurred_at, e.ingested_at - e.occurred_at, m.series, v.id, src.id, e.line, e.request_id,
  CASE WHEN e.message IS v.message THEN NULL ELSE e.message END, e.sample, 0
FROM events e
  JOIN moved m ON m.seq = e.seq
  JOIN event_variants v ON v.key = json_array(m.series, m.severity, m.retryable, m.action, m.code, m.message IS NULL, m.endpoint, m.stream, m.body_not_json)
  JOIN event_sources src ON src.name = e.source
ORDER BY e.seq;

DROP TABLE temp.moved;
DROP TABLE temp.series_labels;
DROP TABLE events;

-- The layout of 001_core.sql, read-only but for INSERT (below).
CREATE VIEW events AS
SELECT e.seq AS seq, e.id AS id, e.occurred_at AS occurred_at, e.occurred_at + e.ingested_ms AS ingested_at,
  src.name AS source,
  e.line AS line, s.service AS service, s.status AS status, v.code AS code, coalesce(e.message, v.message) AS message, s.model AS model,
  CASE WHEN typeof(e.request_id) = 'integer' THEN substr(e.sample, e.request_id % 8192 + 1, e.request_id / 8192)
    ELSE e.request_id END AS request_id,
  v.endpoint AS endpoint, v.stream AS stream, s.category AS category,
  s.rate_limit_kind AS rate_limit_kind, v.severity AS severity, v.retryable AS retryable, v.action AS action,
  i.fingerprint AS fingerprint, v.body_not_json AS body_not_json,
  CASE WHEN e.delta = 0 THEN e.sample END AS sample, s.provider AS provider
FROM event_rows e
  JOIN event_variants v ON v.id = e.variant
  JOIN series s ON s.id = e.series
  JOIN incidents i ON i.id = s.incident
  JOIN event_sources src ON src.id = e.source;

-- An event inserted the old way: its incident (count 0: raw inserts write no aggregates), series,
-- source and variant when new, then the thin row with its sample as is.
CREATE TRIGGER events_insert INSTEAD OF INSERT ON events
BEGIN
  INSERT OR IGNORE INTO incidents (fingerprint, category, rate_limit_kind, severity, retryable, status, code, model,
    service, message, action, count, first_seen, last_seen, sample, sample_event_id)
  VALUES (NEW.fingerprint, NEW.category, NEW.rate_limit_kind, NEW.severity, NEW.retryable, NEW.status, NEW.code,
    NEW.model, NEW.service, NEW.message, NEW.action, 0, NEW.occurred_at, NEW.occurred_at, NEW.sample, NEW.id);
  INSERT OR IGNORE INTO series (key, incident, category, rate_limit_kind, status, model, service, provider)
  SELECT NEW.fingerprint || CASE WHEN NEW.provider IS NULL
      THEN json_array(NEW.category, NEW.rate_limit_kind, NEW.status, NEW.model, NEW.service)
      ELSE json_array(NEW.category, NEW.rate_limit_kind, NEW.status, NEW.model, NEW.service, NEW.provider) END,
    i.id, NEW.category, NEW.rate_limit_kind, NEW.status, NEW.model, NEW.service, NEW.provider
  FROM incidents i WHERE i.fingerprint = NEW.fingerprint;
  INSERT OR IGNORE INTO event_sources (name) VALUES (NEW.source);
  INSERT OR IGNORE INTO event_variants (key, series, severity, retryable, action, code, message, endpoint, stream, body_not_json)
  SELECT json_array(s.id, NEW.severity, NEW.retryable, NEW.action, NEW.code, NEW.message IS NULL, NEW.endpoint, NEW.stream, NEW.body_not_json),
    s.id, NEW.severity, NEW.retryable, NEW.action, NEW.code, NEW.message, NEW.endpoint, NEW.stream, NEW.body_not_json
  FROM series s WHERE s.key = NEW.fingerprint || CASE WHEN NEW.provider IS NULL
      THEN json_array(NEW.category, NEW.rate_limit_kind, NEW.status, NEW.model, NEW.service)
      ELSE json_array(NEW.category, NEW.rate_limit_kind, NEW.status, NEW.model, NEW.service, NEW.provider) END;
  INSERT INTO event_rows (id, occurred_at, ingested_ms, series, variant, source, line, request_id, message, sample, delta)
  SELECT NEW.id, NEW.occurred_at, NEW.ingested_at - NEW.occurred_at, v.series, v.id, (SELECT id FROM event_sources WHERE name = NEW.source),
    NEW.line, NEW.request_id, CASE WHEN NEW.message IS v.message THEN NULL ELSE NEW.message END, NEW.sample, 0
  FROM event_variants v
  WHERE v.key = json_array((SELECT id FROM series WHERE key = NEW.fingerprint || CASE WHEN NEW.provider IS NULL
      THEN json_array(NEW.category, NEW.rate_limit_kind, NEW.status, NEW.model, NEW.service)
      ELSE json_array(NEW.category, NEW.rate_limit_kind, NEW.status, NEW.model, NEW.service, NEW.provider) END),
    NEW.severity, NEW.retryable, NEW.action, NEW.code, NEW.message IS NULL, NEW.endpoint, NEW.stream, NEW.body_not_json);
END;
