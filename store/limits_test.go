package store

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

var limits = AnswerLimits{Budget: CommandBudget, Window: time.Hour, Total: 5, Comments: map[string]int{AnswerHelp: 2, AnswerRefusal: 1}}

var threadLimits = AnswerLimits{Budget: ThreadBudget, Window: time.Hour, Total: 4, Comments: map[string]int{AnswerQuestion: 2, AnswerRefusal: 1}}

// Answers to one user on one pull request: help by comment twice, refusals once, reactions after
// them, nothing after Total; another user and another pull request are counted apart; an hour
// later it starts again; a retried job gets the answer it got.
func TestAnswerLimits(t *testing.T) {
	forEach(t, func(t *testing.T, open func(testing.TB) *Store) {
		s, ctx := open(t), context.Background()
		at := time.Unix(1_700_000_000, 0)
		var got []string
		for i, kind := range []string{AnswerHelp, AnswerRefusal, AnswerHelp, AnswerRefusal, AnswerHelp, AnswerHelp, AnswerRefusal} {
			how, err := s.Answer(ctx, fmt.Sprintf("k%d", i), "o/r#1", "mallory", kind, at, limits)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, how)
		}
		want := []string{AnsweredComment, AnsweredComment, AnsweredComment, AnsweredReaction, AnsweredReaction, AnsweredNone, AnsweredNone}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("answers = %v, want %v", got, want)
		}
		if how, _ := s.Answer(ctx, "k0", "o/r#1", "mallory", AnswerHelp, at, limits); how != AnsweredComment {
			t.Errorf("a retried job was answered %s, want the comment it got", how)
		}
		if n, err := s.Answers(ctx, "o/r#1", "mallory", CommandBudget, at, time.Hour); err != nil || n != 5 {
			t.Errorf("Answers = %d, %v; want 5", n, err)
		}
		for _, other := range [][2]string{{"o/r#1", "bob"}, {"o/r#2", "mallory"}} {
			if how, _ := s.Answer(ctx, "x"+other[0]+other[1], other[0], other[1], AnswerHelp, at, limits); how != AnsweredComment {
				t.Errorf("%s on %s was answered %s, want a comment", other[1], other[0], how)
			}
		}
		later := at.Add(time.Hour + time.Second)
		if how, _ := s.Answer(ctx, "k-later", "o/r#1", "mallory", AnswerRefusal, later, limits); how != AnsweredComment {
			t.Errorf("an hour later a refusal was answered %s, want a comment", how)
		}
	})
}

// Concurrent answers (as from replicas) never give more than the limits.
func TestAnswerLimitsConcurrent(t *testing.T) {
	forEach(t, func(t *testing.T, open func(testing.TB) *Store) {
		s, ctx := open(t), context.Background()
		at := time.Unix(1_700_000_000, 0)
		var mu sync.Mutex
		count := map[string]int{}
		var wg sync.WaitGroup
		for i := 0; i < 12; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				how, err := s.Answer(ctx, fmt.Sprintf("c%d", i), "o/r#1", "mallory", AnswerHelp, at, limits)
				if err != nil {
					t.Error(err)
				}
				mu.Lock()
				count[how]++
				mu.Unlock()
			}()
		}
		wg.Wait()
		if count[AnsweredComment] != 2 || count[AnsweredReaction] != 3 || count[AnsweredNone] != 7 {
			t.Errorf("answers = %v, want 2 comments, 3 reactions, 7 silences", count)
		}
	})
}

// Concurrent answers of both budgets (as from replicas) never give more than each budget's
// limits, and neither takes the other's places.
func TestAnswerBudgetsConcurrent(t *testing.T) {
	forEach(t, func(t *testing.T, open func(testing.TB) *Store) {
		s, ctx := open(t), context.Background()
		at := time.Unix(1_700_000_000, 0)
		var mu sync.Mutex
		count := map[string]int{}
		var wg sync.WaitGroup
		for i := 0; i < 16; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				kind, lim := AnswerHelp, limits
				if i%2 == 1 {
					kind, lim = AnswerQuestion, threadLimits
				}
				how, err := s.Answer(ctx, fmt.Sprintf("c%d", i), "o/r#1", "mallory", kind, at, lim)
				if err != nil {
					t.Error(err)
				}
				mu.Lock()
				count[lim.Budget+"/"+how]++
				mu.Unlock()
			}()
		}
		wg.Wait()
		want := map[string]int{
			CommandBudget + "/" + AnsweredComment: 2, CommandBudget + "/" + AnsweredReaction: 3, CommandBudget + "/" + AnsweredNone: 3,
			ThreadBudget + "/" + AnsweredComment: 2, ThreadBudget + "/" + AnsweredReaction: 2, ThreadBudget + "/" + AnsweredNone: 4,
		}
		if fmt.Sprint(count) != fmt.Sprint(want) {
			t.Errorf("answers = %v, want %v", count, want)
		}
	})
}

// The two budgets are counted apart: a user whose command answers are spent is still answered
// in threads, and the reverse; a refusal in a thread does not take the command refusal's comment
// (nor the reverse); each budget is still spent by its own answers; a retried job keeps its answer
// whichever budget asks; a budget that is neither is refused.
func TestAnswerBudgetsAreApart(t *testing.T) {
	forEach(t, func(t *testing.T, open func(testing.TB) *Store) {
		s, ctx := open(t), context.Background()
		at := time.Unix(1_700_000_000, 0)
		answer := func(key, kind string, lim AnswerLimits) string {
			t.Helper()
			how, err := s.Answer(ctx, key, "o/r#1", "mallory", kind, at, lim)
			if err != nil {
				t.Fatal(err)
			}
			return how
		}
		count := func(budget string) int {
			t.Helper()
			n, err := s.Answers(ctx, "o/r#1", "mallory", budget, at, time.Hour)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
		if how := answer("t-refusal", AnswerRefusal, threadLimits); how != AnsweredComment {
			t.Errorf("the first refusal in a thread was answered %s, want a comment", how)
		}
		if how := answer("c-refusal", AnswerRefusal, limits); how != AnsweredComment {
			t.Errorf("a command's refusal after a thread's was answered %s, want a comment: the thread's refusal took the command's", how)
		}
		for i := 0; i < 4; i++ {
			answer(fmt.Sprintf("c-help-%d", i), AnswerHelp, limits)
		}
		if c, th := count(CommandBudget), count(ThreadBudget); c != 5 || th != 1 {
			t.Errorf("counts = %d command, %d thread; want 5 and 1", c, th)
		}
		if how := answer("c-help-spent", AnswerHelp, limits); how != AnsweredNone {
			t.Errorf("help over the command budget was answered %s, want nothing", how)
		}
		var got []string
		for i := 0; i < 4; i++ {
			got = append(got, answer(fmt.Sprintf("t-question-%d", i), AnswerQuestion, threadLimits))
		}
		want := []string{AnsweredComment, AnsweredComment, AnsweredReaction, AnsweredNone}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("questions with the command budget spent = %v, want %v", got, want)
		}
		if c, th := count(CommandBudget), count(ThreadBudget); c != 5 || th != 4 {
			t.Errorf("counts = %d command, %d thread; want 5 and 4", c, th)
		}
		if how := answer("t-refusal", AnswerRefusal, limits); how != AnsweredComment {
			t.Errorf("a retried job was answered %s, want the comment it got", how)
		}
		if _, err := s.Answer(ctx, "x", "o/r#1", "mallory", AnswerHelp, at, AnswerLimits{Window: time.Hour, Total: 5}); err == nil || !strings.Contains(err.Error(), "unknown answer budget") {
			t.Errorf("an answer without a budget: %v, want an error naming the unknown budget", err)
		}
		if _, err := s.Answers(ctx, "o/r#1", "mallory", "commands", at, time.Hour); err == nil {
			t.Error("a count of an unknown budget was not refused")
		}
	})
}

// Migration 0011 gives the answers kept before it their budget: a question and a refused reply
// (its answer_key is a reply job's key) the thread's, help and a refused command the command's.
func TestAnswerBudgetsMigrationBackfills(t *testing.T) {
	forEach(t, func(t *testing.T, open func(testing.TB) *Store) {
		s, ctx := open(t), context.Background()
		for _, q := range []string{
			"DELETE FROM schema_migrations WHERE version = 11",
			"DROP INDEX command_answers_budget",
			"ALTER TABLE command_answers DROP COLUMN budget",
			"CREATE INDEX command_answers_user ON command_answers (pr_key, login, at)",
		} {
			if _, err := s.db.ExecContext(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		for key, kind := range map[string]string{"reply-key": "reply", "command-key": "review"} {
			j := &Job{Key: key, PR: "o/r#1", Kind: kind, Payload: []byte("{}")}
			if e, err := s.Enqueue(ctx, "d-"+key, "test", j); err != nil || !e.Accepted {
				t.Fatalf("enqueue %s: %+v %v", key, e, err)
			}
		}
		rows := map[string]string{"q": AnswerQuestion, "h": AnswerHelp, "reply-key": AnswerRefusal, "command-key": AnswerRefusal, "gone-key": AnswerRefusal}
		for key, kind := range rows {
			if _, err := s.db.ExecContext(ctx, s.q("INSERT INTO command_answers (answer_key, pr_key, login, kind, how, at) VALUES (?, 'o/r#1', 'mallory', ?, 'comment', 1)"), key, kind); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.migrate(ctx); err != nil {
			t.Fatalf("migrating again: %v", err)
		}
		want := map[string]string{"q": ThreadBudget, "h": CommandBudget, "reply-key": ThreadBudget, "command-key": CommandBudget, "gone-key": CommandBudget}
		for key, w := range want {
			var got string
			if err := s.db.QueryRowContext(ctx, s.q("SELECT budget FROM command_answers WHERE answer_key = ?"), key).Scan(&got); err != nil {
				t.Fatal(err)
			}
			if got != w {
				t.Errorf("answer %s (%s) migrated to budget %q, want %q", key, rows[key], got, w)
			}
		}
		if n, err := s.Answers(ctx, "o/r#1", "mallory", ThreadBudget, time.Unix(0, 2), time.Hour); err != nil || n != 2 {
			t.Errorf("thread answers after the migration = %d, %v; want 2", n, err)
		}
	})
}

// The hourly debate budget of a repository: the same key counts once, the oldest debate's start
// plus the window is when the next may run, 0 is no limit, and concurrent starts take no more
// than the limit.
func TestStartDebateBudget(t *testing.T) {
	forEach(t, func(t *testing.T, open func(testing.TB) *Store) {
		s, ctx := open(t), context.Background()
		at := time.Unix(1_700_000_000, 0)
		for i := 0; i < 2; i++ {
			if ok, _, err := s.StartDebate(ctx, "o/r", fmt.Sprintf("d%d", i), 2, at.Add(time.Duration(i)*time.Minute), time.Hour); err != nil || !ok {
				t.Fatalf("debate %d: %v, %v", i, ok, err)
			}
		}
		ok, next, err := s.StartDebate(ctx, "o/r", "d2", 2, at.Add(5*time.Minute), time.Hour)
		if err != nil || ok || !next.Equal(at.Add(time.Hour)) {
			t.Errorf("the third debate: ok %v, next %v (want %v), %v", ok, next, at.Add(time.Hour), err)
		}
		if ok, _, _ := s.StartDebate(ctx, "o/r", "d1", 2, at.Add(5*time.Minute), time.Hour); !ok {
			t.Error("a retried debate was refused")
		}
		if ok, _, _ := s.StartDebate(ctx, "o/other", "d9", 2, at, time.Hour); !ok {
			t.Error("another repository's debate was refused")
		}
		if ok, _, _ := s.StartDebate(ctx, "o/r", "d3", 0, at.Add(5*time.Minute), time.Hour); !ok {
			t.Error("no limit refused a debate")
		}
		if ok, _, _ := s.StartDebate(ctx, "o/r", "d4", 2, at.Add(time.Hour+time.Minute+time.Second), time.Hour); !ok {
			t.Error("a debate after the window was refused")
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		started := 0
		for i := 0; i < 10; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ok, _, err := s.StartDebate(ctx, "o/race", fmt.Sprintf("r%d", i), 3, at, time.Hour)
				if err != nil {
					t.Error(err)
				}
				if ok {
					mu.Lock()
					started++
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if started != 3 {
			t.Errorf("%d concurrent debates started, want 3", started)
		}
	})
}

// Tokens are counted by the UTC day, a debate's largest total once.
func TestTokensSpent(t *testing.T) {
	forEach(t, func(t *testing.T, open func(testing.TB) *Store) {
		s, ctx := open(t), context.Background()
		at := time.Date(2024, 5, 1, 23, 0, 0, 0, time.UTC)
		must := func(err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
		}
		must(s.SpendTokens(ctx, "o/r", "a", 100, at))
		must(s.SpendTokens(ctx, "o/r", "a", 300, at)) // a checkpoint later
		must(s.SpendTokens(ctx, "o/r", "a", 200, at)) // an earlier total, seen late
		must(s.SpendTokens(ctx, "o/r", "b", 50, at))
		must(s.SpendTokens(ctx, "o/other", "c", 1000, at))
		must(s.SpendTokens(ctx, "o/r", "d", 7, at.Add(2*time.Hour))) // the next day
		if n, err := s.TokensSpent(ctx, "o/r", at); err != nil || n != 350 {
			t.Errorf("tokens spent = %d, %v; want 350", n, err)
		}
		if n, _ := s.TokensSpent(ctx, "o/r", at.Add(2*time.Hour)); n != 7 {
			t.Errorf("the next day's tokens = %d, want 7", n)
		}
		if next := NextDay(at); !next.Equal(time.Date(2024, 5, 2, 0, 0, 0, 0, time.UTC)) {
			t.Errorf("NextDay = %v", next)
		}
	})
}
