-- faultline alerting (CONTRACT section 7): alerts and their event-time windows, silences, the
-- notification outbox with every delivery attempt, escalation tickets.
--
-- Times are INTEGER epoch milliseconds (UTC); JSON columns are TEXT. Nothing here refers to the
-- tables of 001_core.sql: alerting keeps its own state (the diagnosis only reads `events`).

-- One row per alert: a group (rule + group labels) that reached its rule's threshold. A group
-- has at most one firing alert; once resolved, the next firing of the group is a new alert.
CREATE TABLE alerts (
  seq              INTEGER PRIMARY KEY,
  id               TEXT    NOT NULL UNIQUE,
  rule             TEXT    NOT NULL,
  group_key        TEXT    NOT NULL,            -- rule{label="value",...}: the one identity everywhere
  labels           TEXT    NOT NULL,            -- JSON: alertname, category, severity + group labels
  state            TEXT    NOT NULL CHECK (state IN ('firing', 'resolved')),
  severity         TEXT    NOT NULL,
  category         TEXT    NOT NULL,
  count            INTEGER NOT NULL,            -- events in the window at the last decision
  threshold        INTEGER NOT NULL,
  window_ms        INTEGER NOT NULL,
  action           TEXT    NOT NULL,
  starts_at        INTEGER NOT NULL,            -- when the threshold was reached (clock)
  ends_at          INTEGER,                     -- when it resolved (clock)
  last_event_at    INTEGER NOT NULL,            -- newest occurred_at counted for the group
  below_since      INTEGER,                     -- since when the count is below threshold
  last_notified_at INTEGER,                     -- last firing/repeat decision, sent or muted
  notified         INTEGER NOT NULL DEFAULT 0 CHECK (notified IN (0, 1)), -- a firing notification went out
  updated_at       INTEGER NOT NULL
);
CREATE UNIQUE INDEX alerts_firing_group ON alerts (group_key) WHERE state = 'firing';
CREATE INDEX alerts_state ON alerts (state, seq);

-- Sliding windows on event time: matching events counted per group and per second of
-- occurred_at. Bounded: at most window/1s rows per group; pruned by the evaluation loop.
CREATE TABLE alert_buckets (
  group_key TEXT    NOT NULL,
  rule      TEXT    NOT NULL,
  second    INTEGER NOT NULL,                   -- floor(occurred_at / 1000)
  count     INTEGER NOT NULL,
  PRIMARY KEY (group_key, second)
) WITHOUT ROWID;
CREATE INDEX alert_buckets_rule ON alert_buckets (rule, second);

-- The newest few events of each group, shown in notifications (at most 5 per group).
CREATE TABLE alert_samples (
  group_key   TEXT    NOT NULL,
  occurred_at INTEGER NOT NULL,
  event_id    TEXT    NOT NULL,
  event       TEXT    NOT NULL,                 -- JSON FailureEvent, sample cut to 1 KiB
  PRIMARY KEY (group_key, occurred_at, event_id)
) WITHOUT ROWID;

-- Silences mute notifications of alerts whose labels match every matcher, from starts_at to ends_at.
CREATE TABLE silences (
  seq        INTEGER PRIMARY KEY,
  id         TEXT    NOT NULL UNIQUE,
  matchers   TEXT    NOT NULL,                  -- JSON [{label, value, isRegex}]
  starts_at  INTEGER NOT NULL,
  ends_at    INTEGER NOT NULL,                  -- DELETE sets it to the time of deletion
  comment    TEXT,
  created_by TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX silences_ends ON silences (ends_at);

-- The outbox: one row per (notification, receiver), written in the transaction that decided it.
-- `id` is the delivery id sent as X-Faultline-Delivery on every attempt. Rows of one receiver
-- and one order_key (group key, or ticket:<fingerprint>) are delivered in seq order.
CREATE TABLE outbox (
  seq             INTEGER PRIMARY KEY,
  id              TEXT    NOT NULL UNIQUE,
  notification_id TEXT    NOT NULL,             -- the decision, shared by its receivers
  receiver        TEXT    NOT NULL,
  receiver_type   TEXT    NOT NULL,
  kind            TEXT    NOT NULL CHECK (kind IN ('alert', 'ticket')),
  status          TEXT    NOT NULL CHECK (status IN ('firing', 'resolved', 'open', 'reopened')),
  reason          TEXT    NOT NULL,             -- firing | repeat | refresh | resolved | open | reopened
  ref_id          TEXT    NOT NULL,             -- alerts.id or tickets.id
  order_key       TEXT    NOT NULL,
  payload         TEXT    NOT NULL,             -- JSON, receiver-neutral; encoded per receiver when sent
  state           TEXT    NOT NULL CHECK (state IN ('pending', 'delivered', 'dead', 'muted')),
  attempts        INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER NOT NULL,
  created_at      INTEGER NOT NULL,
  delivered_at    INTEGER,
  last_error      TEXT,
  silence_id      TEXT                          -- state muted: the silence that matched
);
CREATE INDEX outbox_due ON outbox (receiver, state, next_attempt_at);
CREATE INDEX outbox_order ON outbox (receiver, order_key, state, seq);
CREATE INDEX outbox_ref ON outbox (ref_id, seq);
CREATE INDEX outbox_state ON outbox (state, seq);

-- Every delivery attempt.
CREATE TABLE notification_attempts (
  seq         INTEGER PRIMARY KEY,
  delivery_id TEXT    NOT NULL REFERENCES outbox (id) ON DELETE CASCADE,
  attempt     INTEGER NOT NULL,
  at          INTEGER NOT NULL,
  duration_ms INTEGER NOT NULL,
  status_code INTEGER,                          -- null: no HTTP answer (transport error, timeout)
  outcome     TEXT    NOT NULL CHECK (outcome IN ('delivered', 'failed', 'dead')),
  error       TEXT
);
CREATE INDEX notification_attempts_delivery ON notification_attempts (delivery_id, seq);

-- faultline_notifications_total{receiver,outcome}: monotonic, survives pruning of outbox rows.
CREATE TABLE notification_counters (
  receiver TEXT    NOT NULL,
  outcome  TEXT    NOT NULL,                    -- delivered | failed | dead | muted
  count    INTEGER NOT NULL,
  PRIMARY KEY (receiver, outcome)
) WITHOUT ROWID;

-- Escalation tickets: one per server_error fingerprint.
CREATE TABLE tickets (
  seq             INTEGER PRIMARY KEY,
  id              TEXT    NOT NULL UNIQUE,
  fingerprint     TEXT    NOT NULL UNIQUE,
  state           TEXT    NOT NULL CHECK (state IN ('open', 'acknowledged', 'resolved')),
  count           INTEGER NOT NULL,
  first_seen      INTEGER NOT NULL,             -- min occurred_at
  last_seen       INTEGER NOT NULL,             -- max occurred_at
  opened_at       INTEGER NOT NULL,             -- clock
  acknowledged_at INTEGER,
  resolved_at     INTEGER,                      -- clock; an occurrence after it reopens the ticket
  reopened_count  INTEGER NOT NULL DEFAULT 0,
  model           TEXT,
  service         TEXT,
  status          INTEGER,
  code,                                         -- no affinity: integer or string, as events.code
  message         TEXT,
  sample          TEXT    NOT NULL,
  event_id        TEXT    NOT NULL,             -- the occurrence the diagnosis is about
  diagnosis       TEXT    NOT NULL,             -- JSON (CONTRACT section 8)
  updated_at      INTEGER NOT NULL
);
CREATE INDEX tickets_state ON tickets (state, seq);
