-- The dashboard (GET /): the cost of a debate beside its tokens, and indexes that let the list
-- be read newest first, a page at a time, over all repositories or one, and the debate of a job,
-- so that the list finds the jobs whose debate has not begun.
ALTER TABLE debates ADD COLUMN cost_usd REAL NOT NULL DEFAULT 0;
CREATE INDEX debates_newest ON debates (started_at DESC, id DESC);
CREATE INDEX debates_repository_newest ON debates (repository, started_at DESC, id DESC);
CREATE INDEX debates_job ON debates (job_id);
