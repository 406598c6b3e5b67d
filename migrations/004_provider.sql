-- The provider (API, gateway or self-hosted server) that answered a failed call (CONTRACT
-- sections 3 and 5): kept on each event and on its series, so that GET /v1/events can filter by
-- it and the report can count byProvider from the buckets. Events stored before this migration
-- have none (NULL), as do events whose provider cannot be told.
ALTER TABLE events ADD COLUMN provider TEXT;
ALTER TABLE series ADD COLUMN provider TEXT;
