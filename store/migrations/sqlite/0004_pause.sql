-- A debate paused at a human checkpoint: the round it paused after (0 when it is not paused)
-- when it paused, and until when it waits (its checkpoint_timeout): an answer resumes it, and a
-- sweep ends the rounds of one whose wait is over.
ALTER TABLE debates ADD COLUMN paused_after INTEGER NOT NULL DEFAULT 0;
ALTER TABLE debates ADD COLUMN paused_at INTEGER NOT NULL DEFAULT 0;
ALTER TABLE debates ADD COLUMN paused_until INTEGER NOT NULL DEFAULT 0;
