-- Findings a maintainer dismissed (a reply "false positive" or "/debate dismiss" on the bot's
-- review comment), per repository, by the finding's fingerprint: its rule, file and the code of
-- the cited line and its neighbours. Later debates of the repository drop the findings whose
-- fingerprint is here, and the dashboard lists them and undoes them (the row is deleted).
CREATE TABLE dismissals (
	repository   TEXT NOT NULL,
	fingerprint  TEXT NOT NULL,
	rule         TEXT NOT NULL,
	path         TEXT NOT NULL,
	line         BIGINT NOT NULL,
	pr_number    BIGINT NOT NULL,
	dismissed_by TEXT NOT NULL,
	reason       TEXT NOT NULL,
	comment_url  TEXT NOT NULL,
	excerpt      TEXT NOT NULL,
	at           BIGINT NOT NULL,
	PRIMARY KEY (repository, fingerprint)
);
CREATE INDEX dismissals_at ON dismissals (repository, at);
