-- Calls of the LLM API, counted, never stored (CONTRACT sections 3, 6, 7, 9): every stored event
-- is a failed call; successful calls are recognised in the tailed logs and the webhook's records;
-- applications may post their own counts (`{"calls": [...]}`). The report's `calls` and
-- `failureRatio`, the ratio and burn-rate alert rules and `faultline_calls_total` read these.
--
-- Retention as the event buckets: minutes `database.retentionDays`, hours max(retentionDays, 400
-- days). `database.maxSize` never prunes them (they are the counts the report reads).

-- One row per (service, model, provider) seen in a call; `key` is their JSON array.
CREATE TABLE call_keys (
  id       INTEGER PRIMARY KEY,
  key      TEXT NOT NULL UNIQUE,
  service  TEXT,
  model    TEXT,
  provider TEXT
);

-- Calls per minute (t = start, epoch ms, UTC) and call key: `ok` successful, `failed` failed.
CREATE TABLE calls_minute (
  t      INTEGER NOT NULL,
  key    INTEGER NOT NULL,
  ok     INTEGER NOT NULL,
  failed INTEGER NOT NULL,
  PRIMARY KEY (t, key)
) WITHOUT ROWID;

CREATE TABLE calls_hour (
  t      INTEGER NOT NULL,
  key    INTEGER NOT NULL,
  ok     INTEGER NOT NULL,
  failed INTEGER NOT NULL,
  PRIMARY KEY (t, key)
) WITHOUT ROWID;

-- The ids of the webhook's `calls` posts already counted: a retry with the same id adds nothing.
CREATE TABLE call_posts (
  id TEXT    PRIMARY KEY,
  at INTEGER NOT NULL
) WITHOUT ROWID;

-- Failed calls already stored as events count as calls from now on; the events already stored
-- are counted here once.
INSERT INTO call_keys (key, service, model, provider)
  SELECT DISTINCT json_array(service, model, provider), service, model, provider FROM series;
INSERT INTO calls_minute (t, key, ok, failed)
  SELECT b.t, k.id, 0, SUM(b.count) FROM buckets_minute b JOIN series s ON s.id = b.series
    JOIN call_keys k ON k.key = json_array(s.service, s.model, s.provider)
  GROUP BY b.t, k.id;
INSERT INTO calls_hour (t, key, ok, failed)
  SELECT b.t, k.id, 0, SUM(b.count) FROM buckets_hour b JOIN series s ON s.id = b.series
    JOIN call_keys k ON k.key = json_array(s.service, s.model, s.provider)
  GROUP BY b.t, k.id;

-- Ratio and burn-rate rules (CONTRACT section 7): the calls of the group and failures / calls at
-- the alert's last decision (NULL for a rule that counts failures only).
ALTER TABLE alerts ADD COLUMN calls INTEGER;
ALTER TABLE alerts ADD COLUMN failure_ratio REAL;
