-- A debate paused at a human checkpoint: the round it paused after (0 when it is not paused)
-- and when it paused, so that an answer resumes it and a sweep ends it after its timeout.
ALTER TABLE debates ADD COLUMN paused_after INTEGER NOT NULL DEFAULT 0;
ALTER TABLE debates ADD COLUMN paused_at INTEGER NOT NULL DEFAULT 0;
