ALTER TABLE jobs ADD COLUMN cancel TEXT NOT NULL DEFAULT '';
ALTER TABLE jobs ADD COLUMN priority INTEGER NOT NULL DEFAULT 0;

CREATE TABLE command_starts (
	job_key    TEXT PRIMARY KEY,
	pr_key     TEXT NOT NULL,
	started_at INTEGER NOT NULL
);
CREATE INDEX command_starts_pr ON command_starts (pr_key, started_at);
