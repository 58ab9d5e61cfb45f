-- What the App says to commands that start nothing (/help, refusals): one row per answer, by
-- user and pull request, so that anyone's comments get a bounded number of answers. answer_key
-- is the command's job key: a retried job is one answer.
CREATE TABLE command_answers (
	answer_key TEXT PRIMARY KEY,
	pr_key     TEXT NOT NULL,
	login      TEXT NOT NULL,
	kind       TEXT NOT NULL,
	how        TEXT NOT NULL,
	at         BIGINT NOT NULL
);
CREATE INDEX command_answers_user ON command_answers (pr_key, login, at);

-- Each repository's budget: the debates started (every trigger: debate_key makes a retried job
-- one debate) and the model tokens each debate spent, by UTC day.
CREATE TABLE budget_debates (
	debate_key TEXT PRIMARY KEY,
	repository TEXT NOT NULL,
	started_at BIGINT NOT NULL
);
CREATE INDEX budget_debates_repo ON budget_debates (repository, started_at);

CREATE TABLE budget_tokens (
	debate_key TEXT PRIMARY KEY,
	repository TEXT NOT NULL,
	day        BIGINT NOT NULL,
	tokens     BIGINT NOT NULL
);
CREATE INDEX budget_tokens_repo ON budget_tokens (repository, day);
