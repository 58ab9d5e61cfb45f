-- Two budgets of answers per user and pull request, counted apart so that using up one never
-- silences the other: 'command' (answers to commands that start nothing: /help, /debate help,
-- refusals of commands) and 'thread' (answers to replies in the review threads of the bot's
-- findings: questions, refusals of dismissals). Rows kept before this migration get theirs from
-- their kind (a question is a thread's, help a command's) and, for a refusal, from the job
-- that was answered: answer_key is its job's key, and a reply job's refusal is a thread's.
ALTER TABLE command_answers ADD COLUMN budget TEXT NOT NULL DEFAULT 'command';
UPDATE command_answers SET budget = 'thread'
	WHERE kind = 'question' OR (kind = 'refusal' AND answer_key IN (SELECT dedupe_key FROM jobs WHERE kind = 'reply'));
DROP INDEX command_answers_user;
CREATE INDEX command_answers_budget ON command_answers (pr_key, login, budget, at);
