CREATE TABLE deliveries (
	id          TEXT PRIMARY KEY,
	event       TEXT NOT NULL,
	received_at INTEGER NOT NULL
);

CREATE TABLE jobs (
	id          INTEGER PRIMARY KEY AUTOINCREMENT,
	delivery_id TEXT NOT NULL,
	dedupe_key  TEXT NOT NULL UNIQUE,
	pr_key      TEXT NOT NULL,
	head_sha    TEXT NOT NULL DEFAULT '',
	kind        TEXT NOT NULL,
	payload     BLOB NOT NULL,
	state       TEXT NOT NULL,
	attempts    INTEGER NOT NULL DEFAULT 0,
	lease_owner TEXT NOT NULL DEFAULT '',
	lease_until INTEGER NOT NULL DEFAULT 0,
	run_after   INTEGER NOT NULL DEFAULT 0,
	error       TEXT NOT NULL DEFAULT '',
	created_at  INTEGER NOT NULL,
	updated_at  INTEGER NOT NULL
);
CREATE INDEX jobs_claim ON jobs (state, run_after, id);
CREATE INDEX jobs_pr ON jobs (pr_key, state);

CREATE TABLE debates (
	id          TEXT PRIMARY KEY,
	job_id      INTEGER NOT NULL DEFAULT 0,
	repository  TEXT NOT NULL DEFAULT '',
	pr_number   INTEGER NOT NULL DEFAULT 0,
	head_sha    TEXT NOT NULL DEFAULT '',
	trigger_name TEXT NOT NULL DEFAULT '',
	protocol    TEXT NOT NULL DEFAULT '',
	decision    TEXT NOT NULL DEFAULT '',
	phases      INTEGER NOT NULL DEFAULT 0,
	checkpoint  BLOB,
	record      BLOB,
	prompt_tokens     INTEGER NOT NULL DEFAULT 0,
	completion_tokens INTEGER NOT NULL DEFAULT 0,
	started_at  INTEGER NOT NULL DEFAULT 0,
	ended_at    INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE publications (
	pr_key     TEXT NOT NULL,
	marker     TEXT NOT NULL,
	comment_id INTEGER NOT NULL,
	PRIMARY KEY (pr_key, marker)
);

CREATE TABLE check_runs (
	debate_id    TEXT PRIMARY KEY,
	check_run_id INTEGER NOT NULL
);

CREATE TABLE trust (
	repository TEXT NOT NULL,
	agent      TEXT NOT NULL,
	trust      REAL NOT NULL,
	overrides  INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (repository, agent)
);
