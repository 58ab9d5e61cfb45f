-- What a local debate (`debatebot debate`) was started from: the diff's text, the git range at its
-- resolved commits, or the question, with the flags and configuration, as JSON. `debate --resume`
-- rebuilds the change from it. Empty for the App's debates, which resume from the pull request.
ALTER TABLE debates ADD COLUMN source BYTEA;
