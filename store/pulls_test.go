package store

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// seedPulls stores, in acme/shop, three debates of #7 ("Add admin user export"), one of #8
// ("Fix 100% CPU in the_worker") and a running one of #9 whose checkpoint ends after rebuttal
// round 2; in acme/other, one of #7. The newest is last.
func seedPulls(t *testing.T, s *Store) {
	t.Helper()
	ctx := context.Background()
	base := time.Unix(1_700_000_000, 0)
	i := 0
	add := func(repo string, pr int, title string, decided bool, cost float64) {
		i++
		id := fmt.Sprintf("p%02d", i)
		res, err := s.Enqueue(ctx, "del-"+id, "pull_request", job("key-"+id, fmt.Sprintf("%s#%d", repo, pr), ""))
		if err != nil {
			t.Fatal(err)
		}
		cp := fmt.Sprintf(`{"title":%q,"timeline":[{"phase":"opening_arguments","round":0},{"phase":"rebuttal","round":2}]}`, title)
		d := &Debate{ID: id, JobID: res.JobID, Repository: repo, PRNumber: pr, Protocol: "standard", Phases: 2, Checkpoint: []byte(cp), StartedAt: base.Add(time.Duration(i) * time.Second)}
		if err := s.SaveCheckpoint(ctx, d); err != nil {
			t.Fatal(err)
		}
		state := Running
		if decided {
			d.Decision, d.EndedAt, d.CostUSD = "approve", d.StartedAt.Add(time.Second), cost
			if err := s.FinishDebate(ctx, d); err != nil {
				t.Fatal(err)
			}
			state = Done
		}
		if _, err := s.db.ExecContext(ctx, s.q("UPDATE jobs SET state = ? WHERE id = ?"), state, res.JobID); err != nil {
			t.Fatal(err)
		}
	}
	add("acme/shop", 7, "Add admin user export", true, 0.5)
	add("acme/shop", 7, "Add admin user export", true, 0.25)
	add("acme/other", 7, "Other export", true, 1)
	add("acme/shop", 8, "Fix 100% CPU in the_worker", true, 0.125)
	add("acme/shop", 7, "Add admin user export (v2)", true, 0.125)
	add("acme/shop", 9, "Retry <script>alert(1)</script>", false, 0)
}

// The list's unit is the pull request: its latest debate, with its title and last phase, the
// older ones read by Older, newest first; the filters apply to the latest debate.
func TestLatestPerPullAndOlder(t *testing.T) {
	forEach(t, func(t *testing.T, open func(testing.TB) *Store) {
		s := open(t)
		seedPulls(t, s)
		ctx := context.Background()
		readable := []string{"acme/shop", "acme/other"}
		latest, _, err := s.ListDebates(ctx, ListFilter{Readable: readable, LatestPerPull: true})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := listIDs(latest), []string{"p06", "p05", "p04", "p03"}; !slices.Equal(got, want) {
			t.Fatalf("latest per pull request %v, want %v", got, want)
		}
		if latest[0].Status != StatusRunning || latest[0].LastPhase != "rebuttal" || latest[0].LastRound != 2 || latest[0].Title != "Retry <script>alert(1)</script>" {
			t.Errorf("the running debate is listed as %+v", latest[0])
		}
		if latest[1].Title != "Add admin user export (v2)" {
			t.Errorf("#7's title is %q, want its latest", latest[1].Title)
		}
		shown := map[Pull]Listed{}
		for _, l := range latest {
			shown[Pull{l.Repository, l.PRNumber}] = l
		}
		older, totals, err := s.Older(ctx, shown, 1)
		if err != nil {
			t.Fatal(err)
		}
		shop7 := Pull{"acme/shop", 7}
		if got := listIDs(older[shop7]); !slices.Equal(got, []string{"p02"}) || totals[shop7] != 2 {
			t.Errorf("#7's older debates %v of %d, want [p02] of 2", got, totals[shop7])
		}
		if len(older[Pull{"acme/other", 7}]) != 0 || len(older[Pull{"acme/shop", 8}]) != 0 {
			t.Errorf("pull requests with one debate have older ones: %v", older)
		}
		all, _, _ := s.Older(ctx, map[Pull]Listed{shop7: shown[shop7]}, 0)
		if got := listIDs(all[shop7]); !slices.Equal(got, []string{"p02", "p01"}) {
			t.Errorf("#7's older debates %v, want p02, p01", got)
		}
		// A status filters pull requests by their latest debate: #9 runs, the rest are decided.
		running, _, _ := s.ListDebates(ctx, ListFilter{Readable: readable, LatestPerPull: true, Status: StatusRunning})
		if got := listIDs(running); !slices.Equal(got, []string{"p06"}) {
			t.Errorf("running pull requests %v, want p06", got)
		}
		// Without LatestPerPull every debate is listed, as before.
		every, _, _ := s.ListDebates(ctx, ListFilter{Readable: readable})
		if len(every) != 6 {
			t.Errorf("%d debates listed, want 6", len(every))
		}
	})
}

// The free-text filter finds titles, repositories and numbers, as plain text: LIKE's wildcards,
// quotes, SQL and HTML match only themselves, and a long text is cut, not refused.
func TestTextFilter(t *testing.T) {
	forEach(t, func(t *testing.T, open func(testing.TB) *Store) {
		s := open(t)
		seedPulls(t, s)
		ctx := context.Background()
		readable := []string{"acme/shop", "acme/other"}
		for _, c := range []struct {
			text string
			want []string
		}{
			{"export", []string{"p05", "p03"}},
			{"EXPORT (V2)", []string{"p05"}},
			{"acme/other", []string{"p03"}},
			{"#8", []string{"p04"}},
			{"7", []string{"p05", "p03"}},
			{"100%", []string{"p04"}},
			{"%", []string{"p04"}},
			{"_", []string{"p04"}},
			{"the_w", []string{"p04"}},
			{`\`, nil},
			{"<script>alert(1)</script>", []string{"p06"}},
			{"' OR 1=1 --", nil},
			{"x'); DROP TABLE debates; --", nil},
			{"  ", []string{"p06", "p05", "p04", "p03"}},
			{"\xff\x00exp\x1bort\xc3", []string{"p05", "p03"}},
			{"\x00", []string{"p06", "p05", "p04", "p03"}},
			{strings.Repeat("export ", 1000), nil},
			{strings.Repeat("é", MaxText+50), nil},
		} {
			got, _, err := s.ListDebates(ctx, ListFilter{Readable: readable, LatestPerPull: true, Text: c.text})
			if err != nil {
				t.Fatalf("text %.40q: %v", c.text, err)
			}
			if ids := listIDs(got); !slices.Equal(ids, c.want) {
				t.Errorf("text %.40q found %v, want %v", c.text, ids, c.want)
			}
		}
		if all, _, err := s.ListDebates(ctx, ListFilter{Readable: readable}); err != nil || len(all) != 6 {
			t.Errorf("after the hostile filters the store holds %d debates (%v)", len(all), err)
		}
		if got := ClipText(strings.Repeat("é", MaxText+5)); len([]rune(got)) != MaxText {
			t.Errorf("ClipText kept %d runes", len([]rune(got)))
		}
	})
}

// Each repository's cost is the sum of its decided debates' costs, and its mean per debate.
func TestCostByRepository(t *testing.T) {
	forEach(t, func(t *testing.T, open func(testing.TB) *Store) {
		s := open(t)
		seedPulls(t, s)
		by, err := s.StatsByRepository(context.Background(), []string{"acme/shop", "acme/other", "acme/none"})
		if err != nil {
			t.Fatal(err)
		}
		if got := by["acme/shop"]; got.CostUSD != 1 || got.CostPerDebate != 0.25 {
			t.Errorf("acme/shop costs %v, %v per debate; want 1, 0.25", got.CostUSD, got.CostPerDebate)
		}
		if got := by["acme/other"]; got.CostUSD != 1 || got.CostPerDebate != 1 {
			t.Errorf("acme/other costs %v, %v per debate; want 1, 1", got.CostUSD, got.CostPerDebate)
		}
		if got := by["acme/none"]; got.CostUSD != 0 || got.CostPerDebate != 0 {
			t.Errorf("a repository without debates costs %v", got.CostUSD)
		}
		all, err := s.Stats(context.Background())
		if err != nil || all.CostUSD != 2 {
			t.Errorf("all debates cost %v (%v), want 2", all.CostUSD, err)
		}
	})
}

// Migration 0010 gives the debates kept before it their title and last phase, from their
// checkpoints.
func TestTitlesMigrationBackfills(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	s, err := Open(context.Background(), "sqlite:"+path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cp := `{"title":"Old debate","timeline":[{"phase":"opening_arguments","round":0},{"phase":"synthesis","round":0},{"phase":"rebuttal","round":3}]}`
	for _, q := range []string{
		"DELETE FROM schema_migrations WHERE version = 10",
		"DROP INDEX debates_pull_newest",
		"ALTER TABLE debates DROP COLUMN title",
		"ALTER TABLE debates DROP COLUMN last_phase",
		"ALTER TABLE debates DROP COLUMN last_round",
	} {
		if _, err := s.db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for id, checkpoint := range map[string]any{"old": []byte(cp), "none": nil, "bad": []byte("not json")} {
		if _, err := s.db.ExecContext(ctx, "INSERT INTO debates (id, job_id, repository, pr_number, head_sha, trigger_name, protocol, phases, checkpoint, started_at) VALUES (?, 0, 'acme/shop', 1, '', '', '', 0, ?, 0)", id, checkpoint); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	s, err = Open(ctx, "sqlite:"+path)
	if err != nil {
		t.Fatalf("migrating again: %v", err)
	}
	defer s.Close()
	for id, want := range map[string]string{"old": "Old debate|rebuttal|3", "none": "||0", "bad": "||0"} {
		var title, phase string
		var round sql.NullInt64
		if err := s.db.QueryRowContext(ctx, "SELECT title, last_phase, last_round FROM debates WHERE id = ?", id).Scan(&title, &phase, &round); err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprintf("%s|%s|%d", title, phase, round.Int64); got != want {
			t.Errorf("debate %s migrated to %q, want %q", id, got, want)
		}
	}
}
