package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Kinds of answers: to commands that start nothing (help, refusal), and to replies in the
// review threads of the bot's findings (question, refusal).
const (
	AnswerHelp     = "help"
	AnswerRefusal  = "refusal"
	AnswerQuestion = "question"
)

// The budgets of answers one user gets on one pull request, each counted apart so that using up
// one never silences the other: a row of command_answers names its budget.
const (
	// CommandBudget is the budget of the answers to commands that start nothing: /help,
	// /debate help and the refusals of commands.
	CommandBudget = "command"
	// ThreadBudget is the budget of the answers to replies in the review threads of the bot's
	// findings: questions, and the refusals of dismissals.
	ThreadBudget = "thread"
)

// How a command or reply that starts nothing is answered.
const (
	// AnsweredComment is a comment on the pull request (or in the thread).
	AnsweredComment = "comment"
	// AnsweredReaction is a reaction on the command's comment (or the reply): the comment answer
	// came before.
	AnsweredReaction = "reaction"
	// AnsweredNone is silence: the user's answers of that budget on the pull request are spent
	// for now.
	AnsweredNone = "none"
)

// AnswerLimits bound what one user gets from one Budget (CommandBudget or ThreadBudget) on one
// pull request within Window: at most Total answers (comments and reactions), of which
// Comments[kind] answers of each kind may be comments (a kind it does not name gets none); the
// rest are reactions.
type AnswerLimits struct {
	Budget   string
	Window   time.Duration
	Total    int
	Comments map[string]int
}

// validBudget refuses a budget that is neither of the two: its answers would count against
// nothing that mutes anyone.
func validBudget(budget string) error {
	if budget != CommandBudget && budget != ThreadBudget {
		return fmt.Errorf("unknown answer budget %q (want %q or %q)", budget, CommandBudget, ThreadBudget)
	}
	return nil
}

// serialized runs fn in a transaction that no other call of serialized with the same lock runs
// beside, on any replica: SQLite's write transactions are serialized already (one connection,
// immediate locking); PostgreSQL takes a transaction-scoped advisory lock on the name.
func (s *Store) serialized(ctx context.Context, lock string, fn func(*sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if s.dialect == "postgres" {
		if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(hashtext($1))", lock); err != nil {
			return err
		}
	}
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// Answers counts the answers of budget login got on pr within window before at: a cheap read
// that decides, before anything is asked of GitHub, whether a command (CommandBudget) or a reply
// in a thread (ThreadBudget) is answered at all.
func (s *Store) Answers(ctx context.Context, pr, login, budget string, at time.Time, window time.Duration) (int, error) {
	if err := validBudget(budget); err != nil {
		return 0, fmt.Errorf("failed to count the answers to %s on %s: %w", login, pr, err)
	}
	var n int
	if err := s.db.QueryRowContext(ctx, s.q("SELECT COUNT(*) FROM command_answers WHERE pr_key = ? AND login = ? AND budget = ? AND at > ?"),
		pr, login, budget, at.Add(-window).UnixNano()).Scan(&n); err != nil {
		return 0, fmt.Errorf("failed to count the %s answers to %s on %s: %w", budget, login, pr, err)
	}
	return n, nil
}

// Answer decides and records how a command or a reply that starts nothing (kind: AnswerHelp,
// AnswerRefusal or AnswerQuestion) is answered, counted against lim.Budget alone: a comment
// while the user's comments of that kind and budget on pr within the window are under
// lim.Comments[kind], a reaction after them, nothing once Total answers of the budget were
// given. The count and the record are one serialized step, so that replicas answering together
// cannot both take the last place; the same key again (a retried job) gets the answer it got.
func (s *Store) Answer(ctx context.Context, key, pr, login, kind string, at time.Time, lim AnswerLimits) (string, error) {
	if err := validBudget(lim.Budget); err != nil {
		return "", fmt.Errorf("failed to record the answer to %s on %s: %w", login, pr, err)
	}
	how := AnsweredNone
	err := s.serialized(ctx, "answers/"+lim.Budget+"/"+pr+"/"+login, func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, s.q("SELECT how FROM command_answers WHERE answer_key = ?"), key).Scan(&how)
		if err == nil || !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		var total, comments int
		if err := tx.QueryRowContext(ctx, s.q(`SELECT COUNT(*), COALESCE(SUM(CASE WHEN kind = ? AND how = ? THEN 1 ELSE 0 END), 0)
			FROM command_answers WHERE pr_key = ? AND login = ? AND budget = ? AND at > ?`),
			kind, AnsweredComment, pr, login, lim.Budget, at.Add(-lim.Window).UnixNano()).Scan(&total, &comments); err != nil {
			return err
		}
		switch {
		case total >= lim.Total:
			how = AnsweredNone
			return nil // silence is not recorded: it costs nothing to repeat
		case comments < lim.Comments[kind]:
			how = AnsweredComment
		default:
			how = AnsweredReaction
		}
		_, err = tx.ExecContext(ctx, s.q("INSERT INTO command_answers (answer_key, pr_key, login, budget, kind, how, at) VALUES (?, ?, ?, ?, ?, ?, ?)"),
			key, pr, login, lim.Budget, kind, how, at.UnixNano())
		return err
	})
	if err != nil {
		return "", fmt.Errorf("failed to record the %s answer to %s on %s: %w", lim.Budget, login, pr, err)
	}
	return how, nil
}

// StartDebate counts a debate against its repository's hourly budget (every trigger: pushes,
// labels, commands, CI failures, planning): it reports false, with the time the oldest counted
// debate leaves the window, when limit debates were started in repository within window before
// at. The same key twice (a retried job) is counted once and allowed again. limit 0 is no limit
// (the debate is still counted).
func (s *Store) StartDebate(ctx context.Context, repository, key string, limit int, at time.Time, window time.Duration) (ok bool, next time.Time, err error) {
	err = s.serialized(ctx, "budget/"+repository, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, s.q("SELECT COUNT(*) FROM budget_debates WHERE debate_key = ?"), key).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			ok = true
			return nil
		}
		var oldest sql.NullInt64
		if err := tx.QueryRowContext(ctx, s.q("SELECT COUNT(*), MIN(started_at) FROM budget_debates WHERE repository = ? AND started_at > ?"),
			repository, at.Add(-window).UnixNano()).Scan(&n, &oldest); err != nil {
			return err
		}
		if limit > 0 && n >= limit {
			next = time.Unix(0, oldest.Int64).Add(window)
			return nil
		}
		ok = true
		_, err := tx.ExecContext(ctx, s.q("INSERT INTO budget_debates (debate_key, repository, started_at) VALUES (?, ?, ?)"), key, repository, at.UnixNano())
		return err
	})
	if err != nil {
		return false, time.Time{}, fmt.Errorf("failed to count a debate of %s against its budget: %w", repository, err)
	}
	return ok, next, nil
}

// day is the UTC day of t, counted from the Unix epoch.
func day(t time.Time) int64 { return t.UTC().Unix() / 86400 }

// NextDay is the start of the UTC day after t's: when a day's token budget is fresh again.
func NextDay(t time.Time) time.Time { return time.Unix((day(t)+1)*86400, 0).UTC() }

// SpendTokens records the model tokens a debate (key) spent so far, counted against its
// repository's UTC day of at: the largest total recorded for the key counts, so that the
// checkpoints of a debate and its end may each record what it spent until then. A debate keeps
// the day it was first recorded on.
func (s *Store) SpendTokens(ctx context.Context, repository, key string, tokens int64, at time.Time) error {
	greatest := "MAX"
	if s.dialect == "postgres" {
		greatest = "GREATEST"
	}
	_, err := s.db.ExecContext(ctx, s.q(`INSERT INTO budget_tokens (debate_key, repository, day, tokens) VALUES (?, ?, ?, ?)
		ON CONFLICT (debate_key) DO UPDATE SET tokens = `+greatest+`(budget_tokens.tokens, excluded.tokens)`), key, repository, day(at), tokens)
	if err != nil {
		return fmt.Errorf("failed to record the tokens of debate %s of %s: %w", key, repository, err)
	}
	return nil
}

// TokensSpent sums the model tokens the debates of repository spent on the UTC day of at.
func (s *Store) TokensSpent(ctx context.Context, repository string, at time.Time) (int64, error) {
	var n int64
	if err := s.db.QueryRowContext(ctx, s.q("SELECT COALESCE(SUM(tokens), 0) FROM budget_tokens WHERE repository = ? AND day = ?"),
		repository, day(at)).Scan(&n); err != nil {
		return 0, fmt.Errorf("failed to read the tokens %s spent today: %w", repository, err)
	}
	return n, nil
}
