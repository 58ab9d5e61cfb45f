-- Seed 000's failure tracking: every failed run or check of a pull request's task, append-only
-- (run_key makes a redelivered failure one row), and the task's streak of consecutive failures
-- with the same error fingerprint (count, the attempt after which a failure debate was held,
-- whether it escalated). dialectic_debates keeps the failure and planning debates and, once the
-- task runs again, whether the debate helped (seed 000's metrics).
CREATE TABLE failures (
	id          BIGSERIAL PRIMARY KEY,
	run_key     TEXT NOT NULL UNIQUE,
	pr_key      TEXT NOT NULL,
	task_id     TEXT NOT NULL,
	attempt     INTEGER NOT NULL,
	at          BIGINT NOT NULL,
	fingerprint TEXT NOT NULL,
	message     TEXT NOT NULL,
	head_sha    TEXT NOT NULL,
	files       TEXT NOT NULL DEFAULT ''
);
CREATE INDEX failures_task ON failures (pr_key, task_id, id);

CREATE TABLE failure_tasks (
	pr_key      TEXT NOT NULL,
	task_id     TEXT NOT NULL,
	task        TEXT NOT NULL,
	streak      INTEGER NOT NULL DEFAULT 0,
	fingerprint TEXT NOT NULL DEFAULT '',
	last_at     BIGINT NOT NULL DEFAULT 0,
	last_head   TEXT NOT NULL DEFAULT '',
	files       TEXT NOT NULL DEFAULT '',
	debated     INTEGER NOT NULL DEFAULT 0,
	escalated   INTEGER NOT NULL DEFAULT 0,
	patterns    TEXT NOT NULL DEFAULT '',
	updated_at  BIGINT NOT NULL DEFAULT 0,
	PRIMARY KEY (pr_key, task_id)
);

CREATE TABLE dialectic_debates (
	id          TEXT PRIMARY KEY,
	type        TEXT NOT NULL,
	pr_key      TEXT NOT NULL,
	task_id     TEXT NOT NULL DEFAULT '',
	head_sha    TEXT NOT NULL DEFAULT '',
	resolution  TEXT NOT NULL,
	agents      TEXT NOT NULL DEFAULT '',
	at          BIGINT NOT NULL,
	outcome     TEXT NOT NULL DEFAULT '',
	helped      INTEGER NOT NULL DEFAULT 0,
	needless    INTEGER NOT NULL DEFAULT 0,
	record      BYTEA
);
CREATE INDEX dialectic_debates_task ON dialectic_debates (pr_key, task_id, at);
