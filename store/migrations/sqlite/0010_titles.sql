-- The dashboard's list: each debate's pull request title and the last phase it completed (a
-- running debate shows where it is), kept beside the checkpoint they are read from, so that the
-- list neither reads nor decodes checkpoints. Debates kept before this migration get theirs from
-- their checkpoint here. The index finds a pull request's debates newest first: the list shows
-- the latest debate of each pull request and folds the others under it.
ALTER TABLE debates ADD COLUMN title TEXT NOT NULL DEFAULT '';
ALTER TABLE debates ADD COLUMN last_phase TEXT NOT NULL DEFAULT '';
ALTER TABLE debates ADD COLUMN last_round INTEGER NOT NULL DEFAULT 0;
UPDATE debates SET
	title = COALESCE(json_extract(CAST(checkpoint AS TEXT), '$.title'), ''),
	last_phase = COALESCE(json_extract(CAST(checkpoint AS TEXT), '$.timeline[#-1].phase'), ''),
	last_round = COALESCE(json_extract(CAST(checkpoint AS TEXT), '$.timeline[#-1].round'), 0)
	WHERE checkpoint IS NOT NULL AND json_valid(CAST(checkpoint AS TEXT));
CREATE INDEX debates_pull_newest ON debates (repository, pr_number, started_at DESC, id DESC);
