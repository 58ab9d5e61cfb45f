package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"
)

// seedList stores debates of every status in two repositories, started a second apart (the
// newest last), and returns their ids by status.
func seedList(t *testing.T, s *Store) map[string]string {
	t.Helper()
	ctx := context.Background()
	base := time.Unix(1_700_000_000, 0)
	ids := map[string]string{}
	add := func(i int, repo, status string) {
		id := fmt.Sprintf("d%02d-%s", i, status)
		ids[status] = id
		res, err := s.Enqueue(ctx, "del-"+id, "pull_request", job("key-"+id, repo+"#1", ""))
		if err != nil {
			t.Fatal(err)
		}
		d := &Debate{ID: id, JobID: res.JobID, Repository: repo, PRNumber: i, Trigger: "pull_request.opened", Protocol: "standard", Phases: 2, Checkpoint: []byte(`{}`), StartedAt: base.Add(time.Duration(i) * time.Second)}
		if err := s.SaveCheckpoint(ctx, d); err != nil {
			t.Fatal(err)
		}
		switch status {
		case StatusDecided, StatusEscalated:
			d.Decision = map[string]string{StatusDecided: "approve", StatusEscalated: "escalate"}[status]
			d.EndedAt, d.Prompt, d.Completion, d.CostUSD, d.ConsensusLevel = d.StartedAt.Add(3*time.Second), 100, 20, 0.25, "consensus"
			if err := s.FinishDebate(ctx, d); err != nil {
				t.Fatal(err)
			}
		case StatusPaused:
			if err := s.PauseDebate(ctx, id, 1, d.StartedAt, d.StartedAt.Add(time.Hour)); err != nil {
				t.Fatal(err)
			}
		}
		state := map[string]string{StatusRunning: Running, StatusFailed: Failed, StatusQueued: Queued}[status]
		if state == "" {
			state = Done
		}
		if _, err := s.db.ExecContext(ctx, s.q("UPDATE jobs SET state = ? WHERE id = ?"), state, res.JobID); err != nil {
			t.Fatal(err)
		}
	}
	add(1, "acme/shop", StatusDecided)
	add(2, "acme/private", StatusEscalated)
	add(3, "acme/shop", StatusQueued)
	add(4, "acme/shop", StatusRunning)
	add(5, "acme/shop", StatusFailed)
	add(6, "acme/private", StatusPaused)
	// Debates not begun: a queued job and a running one without a row yet; neither a job that
	// resumes a debate nor a command's answer is one.
	for _, j := range []struct {
		key, pr, kind, state, name string
	}{
		{"pr11@h/opened", "acme/shop#11", "review", Queued, "pending-queued"},
		{"resume/d06-paused/1", "acme/private#6", "review", Queued, ""},
		{"delivery/answer", "acme/shop#1", "checkpoint", Queued, ""},
		{"issue13", "acme/private#13", "design", Running, "pending-running"},
	} {
		res, err := s.Enqueue(ctx, "del-"+j.key, "issues", &Job{Key: j.key, PR: j.pr, Kind: j.kind, Payload: []byte(`{}`)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.db.ExecContext(ctx, s.q("UPDATE jobs SET state = ? WHERE id = ?"), j.state, res.JobID); err != nil {
			t.Fatal(err)
		}
		if j.name != "" {
			ids[j.name] = fmt.Sprintf("job-%d", res.JobID)
		}
	}
	return ids
}

func listIDs(ls []Listed) []string {
	var out []string
	for _, l := range ls {
		out = append(out, l.ID)
	}
	return out
}

// The list is newest first, only of readable repositories, filtered by repository and status in
// the database, a page at a time after a cursor; each debate's status is derived from its row
// and its job.
func TestListDebates(t *testing.T) {
	forEach(t, func(t *testing.T, open func(testing.TB) *Store) {
		s := open(t)
		ctx := context.Background()
		ids := seedList(t, s)
		all, next, err := s.ListDebates(ctx, ListFilter{Readable: []string{"acme/shop", "acme/private"}})
		if err != nil {
			t.Fatal(err)
		}
		want := []string{ids["pending-running"], ids["pending-queued"], ids[StatusPaused], ids[StatusFailed], ids[StatusRunning], ids[StatusQueued], ids[StatusEscalated], ids[StatusDecided]}
		if !slices.Equal(listIDs(all), want) || next != nil {
			t.Fatalf("list = %v (next %v), want %v", listIDs(all), next, want)
		}
		for _, l := range all[2:] {
			if want := l.ID[4:]; l.Status != want || l.Pending {
				t.Errorf("%s has status %q (pending %v), want %q", l.ID, l.Status, l.Pending, want)
			}
		}
		if p := all[0]; !p.Pending || p.Status != StatusRunning || p.Repository != "acme/private" || p.PRNumber != 13 || p.Trigger != "design" {
			t.Errorf("the running debate not begun: %+v", p)
		}
		if p := all[1]; !p.Pending || p.Status != StatusQueued || p.Repository != "acme/shop" || p.PRNumber != 11 {
			t.Errorf("the queued debate not begun: %+v", p)
		}
		if all[2].PausedAfter != 1 || all[7].CostUSD != 0.25 || all[7].Prompt != 100 || all[7].ConsensusLevel != "consensus" {
			t.Errorf("listed fields: paused %+v, decided %+v", all[2], all[7])
		}
		shop, _, err := s.ListDebates(ctx, ListFilter{Readable: []string{"acme/shop"}})
		if err != nil {
			t.Fatal(err)
		}
		if got := listIDs(shop); !slices.Equal(got, []string{ids["pending-queued"], ids[StatusFailed], ids[StatusRunning], ids[StatusQueued], ids[StatusDecided]}) {
			t.Errorf("readable acme/shop only: %v", got)
		}
		// Asking for an unreadable repository by name shows nothing of it.
		if got, _, _ := s.ListDebates(ctx, ListFilter{Readable: []string{"acme/shop"}, Repository: "acme/private"}); len(got) != 0 {
			t.Errorf("a repository filter outside the readable ones listed %v", listIDs(got))
		}
		if got, _, _ := s.ListDebates(ctx, ListFilter{}); len(got) != 0 {
			t.Errorf("nothing readable listed %v", listIDs(got))
		}
		paused, _, _ := s.ListDebates(ctx, ListFilter{Readable: []string{"acme/shop", "acme/private"}, Status: StatusPaused})
		if got := listIDs(paused); !slices.Equal(got, []string{ids[StatusPaused]}) {
			t.Errorf("status paused: %v", got)
		}
		queued, _, _ := s.ListDebates(ctx, ListFilter{Readable: []string{"acme/shop", "acme/private"}, Status: StatusQueued})
		if got := listIDs(queued); !slices.Equal(got, []string{ids["pending-queued"], ids[StatusQueued]}) {
			t.Errorf("status queued: %v", got)
		}
		running, _, _ := s.ListDebates(ctx, ListFilter{Readable: []string{"acme/shop", "acme/private"}, Repository: "acme/private", Status: StatusRunning})
		if got := listIDs(running); !slices.Equal(got, []string{ids["pending-running"]}) {
			t.Errorf("acme/private running: %v", got)
		}
		failed, _, _ := s.ListDebates(ctx, ListFilter{Readable: []string{"acme/shop", "acme/private"}, Repository: "acme/shop", Status: StatusFailed})
		if got := listIDs(failed); !slices.Equal(got, []string{ids[StatusFailed]}) {
			t.Errorf("acme/shop failed: %v", got)
		}
		// Pages of two, following the cursors through a URL's form of them.
		var pages [][]string
		var after *Cursor
		for {
			page, next, err := s.ListDebates(ctx, ListFilter{Readable: []string{"acme/shop", "acme/private"}, Limit: 2, After: after})
			if err != nil {
				t.Fatal(err)
			}
			pages = append(pages, listIDs(page))
			if next == nil {
				break
			}
			c, err := ParseCursor(next.String())
			if err != nil {
				t.Fatal(err)
			}
			after = &c
		}
		if len(pages) != 4 || !slices.Equal(slices.Concat(pages...), want) {
			t.Errorf("pages %v, want %v in four pages", pages, want)
		}
		repos, err := s.Repositories(ctx)
		if err != nil || !slices.Equal(repos, []string{"acme/private", "acme/shop"}) {
			t.Errorf("repositories %v (%v)", repos, err)
		}
		st, err := s.DebateStatus(ctx, ids[StatusRunning])
		if err != nil || st.Status != StatusRunning || st.Phases != 2 {
			t.Errorf("status of the running debate: %+v (%v)", st, err)
		}
		if _, err := s.DebateStatus(ctx, "nope"); !errors.Is(err, ErrNotFound) {
			t.Errorf("status of no debate: %v", err)
		}
		stats, err := s.StatsOf(ctx, "acme/shop")
		if err != nil || stats.Debates != 1 || stats.Decisions["approve"] != 1 || stats.TokensPerDebate != 120 {
			t.Errorf("stats of acme/shop: %+v (%v)", stats, err)
		}
	})
}

// StatsByRepository reads every repository's metrics in one query, the same as each
// repository's debates read on their own give; a repository without a finished debate has zero
// metrics.
func TestStatsByRepository(t *testing.T) {
	forEach(t, func(t *testing.T, open func(testing.TB) *Store) {
		s := open(t)
		ctx := context.Background()
		seedList(t, s)
		repos := []string{"acme/shop", "acme/private", "acme/none"}
		by, err := s.StatsByRepository(ctx, repos)
		if err != nil {
			t.Fatal(err)
		}
		if len(by) != len(repos) {
			t.Errorf("stats of %d repositories, want %d", len(by), len(repos))
		}
		for _, r := range repos {
			// One repository's finished debates, read on their own.
			ds, err := s.debates(ctx, "WHERE repository = ? AND decision <> ''", r)
			if err != nil {
				t.Fatal(err)
			}
			one := statsOf(ds)
			// The cost is summed in the database (Debates does not read it): seedList's
			// decided debates cost 0.25 each.
			if one.Debates > 0 {
				one.CostUSD, one.CostPerDebate = 0.25*float64(one.Debates), 0.25
			}
			if got, want := fmt.Sprintf("%+v", by[r]), fmt.Sprintf("%+v", one); got != want {
				t.Errorf("stats of %s: %s, want %s", r, got, want)
			}
		}
		if p := by["acme/private"]; p.Debates != 1 || p.Decisions["escalate"] != 1 || p.AutoEscalationRate != 1 {
			t.Errorf("stats of acme/private: %+v", p)
		}
		if n := by["acme/none"]; n.Debates != 0 || n.Decisions == nil || n.MeanSecondsByProtocol == nil {
			t.Errorf("stats of a repository without debates: %+v", n)
		}
		if none, err := s.StatsByRepository(ctx, nil); err != nil || len(none) != 0 {
			t.Errorf("stats of no repository: %v (%v)", none, err)
		}
	})
}

func TestParseCursorRefusesGarbage(t *testing.T) {
	for _, s := range []string{"", "abc", "12", "x.y", "12."} {
		if _, err := ParseCursor(s); err == nil {
			t.Errorf("ParseCursor(%q) accepted it", s)
		}
	}
}

// BenchmarkListDebates reads the first page and a page deep into a store of 10,000 debates of
// 2,500 pull requests (four each), every debate or the latest of each pull request, by status
// or text, and the earlier debates of a page's pull requests.
func BenchmarkListDebates(b *testing.B) {
	s, err := Open(context.Background(), "sqlite:"+b.TempDir()+"/bench.db")
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	base := time.Unix(1_700_000_000, 0)
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	for i := range 10000 {
		repo := fmt.Sprintf("acme/repo%d", i%20)
		if _, err := tx.ExecContext(ctx, `INSERT INTO debates (id, job_id, repository, pr_number, trigger_name, protocol, decision, phases, started_at, ended_at, prompt_tokens, completion_tokens, title)
			VALUES (?, 0, ?, ?, 'pull_request.opened', 'standard', ?, 6, ?, ?, 1000, 200, ?)`,
			fmt.Sprintf("debate-%05d", i), repo, i%2500, []string{"approve", "escalate", ""}[i%3], base.Add(time.Duration(i)*time.Second).UnixNano(), base.Add(time.Duration(i)*time.Second+5*time.Second).UnixNano(),
			fmt.Sprintf("Change number %d of the service", i%2500)); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	var readable []string
	for i := range 20 {
		readable = append(readable, fmt.Sprintf("acme/repo%d", i))
	}
	deep := &Cursor{StartedAt: base.Add(2000 * time.Second).UnixNano(), ID: "debate-02000"}
	for _, bc := range []struct {
		name string
		f    ListFilter
	}{
		{"first-page", ListFilter{Readable: readable}},
		{"deep-page", ListFilter{Readable: readable, After: deep}},
		{"repository-and-status", ListFilter{Readable: readable, Repository: "acme/repo3", Status: StatusDecided}},
		{"latest-per-pull", ListFilter{Readable: readable, LatestPerPull: true}},
		{"latest-per-pull-deep", ListFilter{Readable: readable, LatestPerPull: true, After: &Cursor{StartedAt: base.Add(9000 * time.Second).UnixNano(), ID: "debate-09000"}}},
		{"latest-per-pull-text", ListFilter{Readable: readable, LatestPerPull: true, Text: "number 17"}},
		{"latest-per-pull-status", ListFilter{Readable: readable, LatestPerPull: true, Status: StatusEscalated}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				page, _, err := s.ListDebates(ctx, bc.f)
				if err != nil || len(page) == 0 {
					b.Fatalf("page %d: %v", len(page), err)
				}
			}
		})
	}
	page, _, err := s.ListDebates(ctx, ListFilter{Readable: readable, LatestPerPull: true})
	if err != nil {
		b.Fatal(err)
	}
	shown := map[Pull]Listed{}
	for _, l := range page {
		shown[Pull{l.Repository, l.PRNumber}] = l
	}
	b.Run("older-of-a-page", func(b *testing.B) {
		for b.Loop() {
			older, _, err := s.Older(ctx, shown, 10)
			if err != nil || len(older) != len(shown) {
				b.Fatalf("older debates of %d pull requests: %v", len(older), err)
			}
		}
	})
}
