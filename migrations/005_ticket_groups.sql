-- One incident, one ticket (CONTRACT section 7): a ticket is one per server-error signature
-- (status, code, the masked message, plus the labels of `tickets.groupBy`), so one upstream
-- failure seen from many models and services is one ticket that counts them.
--
-- `tickets.fingerprint` is now the signature's hash (tickets written before keep theirs: the
-- identity sent to receivers, e.g. PagerDuty's dedup_key, must not change). `tickets.model` and
-- `tickets.service` hold the most frequent label value; the per-value counts are in
-- `ticket_labels`.

-- The model of the occurrence the diagnosis is about (`event_id`): its curl names it, and the
-- diagnosis lists the ticket's other models. Before, that was the ticket's one model.
ALTER TABLE tickets ADD COLUMN event_model TEXT;
UPDATE tickets SET event_model = model;

-- The values of the `tickets.groupBy` labels the ticket was opened for: JSON {"model": ...}, {} for none.
ALTER TABLE tickets ADD COLUMN group_labels TEXT NOT NULL DEFAULT '{}';

-- The most frequent provider (the `provider` field; `providers` lists them all with counts).
ALTER TABLE tickets ADD COLUMN provider TEXT;

-- Occurrences of a ticket per model, service and provider (NULL values are not counted here).
CREATE TABLE ticket_labels (
  ticket     INTEGER NOT NULL REFERENCES tickets (seq) ON DELETE CASCADE,
  label      TEXT    NOT NULL CHECK (label IN ('model', 'service', 'provider')),
  value      TEXT    NOT NULL,
  count      INTEGER NOT NULL,
  first_seen INTEGER NOT NULL,                  -- epoch ms, min occurred_at (ties of count: the earliest wins)
  last_seen  INTEGER NOT NULL,                  -- epoch ms, max occurred_at
  PRIMARY KEY (ticket, label, value)
) WITHOUT ROWID;

-- Tickets written by the previous schema were one per model and service: each lists its own
-- model and service with the ticket's count.
INSERT INTO ticket_labels (ticket, label, value, count, first_seen, last_seen)
  SELECT seq, 'model', model, count, first_seen, last_seen FROM tickets WHERE model IS NOT NULL;
INSERT INTO ticket_labels (ticket, label, value, count, first_seen, last_seen)
  SELECT seq, 'service', service, count, first_seen, last_seen FROM tickets WHERE service IS NOT NULL;
