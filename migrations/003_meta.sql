-- Facts about this database that outlive any one run (e.g. when the tailer first started:
-- `tail.startAt` applies only to files present at that very first start).
CREATE TABLE IF NOT EXISTS meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
