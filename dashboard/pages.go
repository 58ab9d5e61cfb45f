package dashboard

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/debatebot/debatebot/review/evidence/redact"
	"github.com/debatebot/debatebot/review/publish"
	"github.com/debatebot/debatebot/store"
	"github.com/debatebot/debatebot/toulmin"
	"github.com/debatebot/debatebot/voting"
)

//go:embed templates/*.html
var templateFS embed.FS

var templates = template.Must(template.New("").Funcs(template.FuncMap{
	"pct":      func(v float64) string { return strconv.FormatFloat(v*100, 'f', 0, 64) + "%" },
	"num":      func(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) },
	"tokens":   func(n int64) string { return humanInt(n) },
	"round":    func(v float64) int64 { return int64(math.Round(v)) },
	"cost":     func(v float64) string { return fmt.Sprintf("$%.4f", v) },
	"duration": humanDuration,
	"when":     func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 UTC") },
	"class":    statusClass,
	"anchor":   func(id string) string { return "arg-" + anchorSafe(id) },
	"split":    strings.Fields,
	"rows":     func(n int) int { return 20 * n },
	"y":        func(i int) int { return 20 * i },
	"add":      func(a, b any) float64 { return toFloat(a) + toFloat(b) },
}).ParseFS(templateFS, "templates/*.html"))

func toFloat(v any) float64 {
	switch x := v.(type) {
	case int:
		return float64(x)
	case float64:
		return x
	}
	return 0
}

// anchorSafe keeps an argument id usable as an HTML id and fragment.
func anchorSafe(id string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '-'
	}, id)
}

func humanInt(n int64) string {
	s := strconv.FormatInt(n, 10)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 && s[i-1] != '-' {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

func humanDuration(d time.Duration) string {
	switch {
	case d <= 0:
		return "–"
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Hour:
		return d.Round(time.Second).String()
	}
	return d.Round(time.Minute).String()
}

// render writes a page, or an error page when the template fails before anything was sent.
func (d *Dashboard) render(w http.ResponseWriter, status int, name string, data any) {
	var buf bytes.Buffer
	if err := templates.ExecuteTemplate(&buf, name, data); err != nil {
		http.Error(w, "failed to render "+name+": "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

type errorData struct {
	Title, Message string
	Viewer         *viewer
}

func (d *Dashboard) errorPage(w http.ResponseWriter, status int, title, msg string) {
	d.render(w, status, "error.html", errorData{Title: title, Message: redact.Redact(msg)})
}

// notFound is what a user sees of a debate that does not exist or that the user may not read:
// the same page, so that a private repository's debates cannot be probed.
func (d *Dashboard) notFound(w http.ResponseWriter) {
	d.errorPage(w, http.StatusNotFound, "Not found", "There is no such debate, or you cannot read its repository.")
}

// listRow is a debate as the list shows it.
type listRow struct {
	ID, Repository, Subject, Trigger, Protocol, Status, Decision, Consensus string
	// Title is the pull request's title ("" when the store has none).
	Title string
	// GitHub is the pull request's or issue's page on GitHub.
	GitHub   string
	Duration time.Duration
	Tokens   int64
	CostUSD  float64
	Started  time.Time
	// Pending is a debate not begun (its job queued, or in its first phase): it has no page yet.
	Pending bool
}

type listData struct {
	Viewer *viewer
	// Pulls are the page's pull requests, each with its latest debate and the earlier ones.
	Pulls                    []pullGroup
	Repositories, Statuses   []string
	Repository, Status, Text string
	Next, First              string
	Notice                   string
	// MaxText is the free-text filter's bound, in characters.
	MaxText int
}

// filtered reports whether the list is filtered.
func (l listData) Filtered() bool { return l.Repository != "" || l.Status != "" || l.Text != "" }

// list is GET /: the pull requests of the repositories the viewer can read, each with its latest
// debate (its earlier ones folded under it), newest first, a page at a time, filtered in the
// store by repository, status and free text (title, repository or number).
func (d *Dashboard) list(w http.ResponseWriter, r *http.Request, v *viewer) {
	ctx := r.Context()
	q := r.URL.Query()
	all, err := d.cfg.Store.Repositories(ctx)
	if err != nil {
		d.errorPage(w, http.StatusServiceUnavailable, "The store is unavailable", err.Error())
		return
	}
	readable, err := d.readable(ctx, v, all)
	data := listData{Viewer: v, Repositories: readable, Statuses: store.Statuses, Repository: q.Get("repository"), Status: q.Get("status"),
		Text: strings.TrimSpace(store.CleanText(q.Get("q"))), MaxText: store.MaxText}
	if err != nil {
		zerolog.Ctx(ctx).Warn().Err(err).Msg("Could not check the viewer's access to every repository.")
		data.Notice = "GitHub did not answer for some repositories; their debates are not shown."
	}
	if data.Status != "" && !slices.Contains(store.Statuses, data.Status) {
		data.Status = ""
	}
	if data.Repository != "" && !slices.Contains(readable, data.Repository) {
		// Not one of the viewer's: nothing to list, and nothing to echo.
		data.Repository, data.Notice = "", cmpOr(data.Notice, "That repository has no debates you can read; all repositories are shown.")
	}
	if clipped := store.ClipText(data.Text); clipped != data.Text {
		data.Text = clipped
		data.Notice = cmpOr(data.Notice, fmt.Sprintf("The search was cut to its first %d characters.", store.MaxText))
	}
	f := store.ListFilter{Readable: readable, Repository: data.Repository, Status: data.Status, Text: data.Text, LatestPerPull: true, Limit: d.cfg.PageSize}
	if after := q.Get("after"); after != "" {
		c, err := store.ParseCursor(after)
		if err != nil {
			d.errorPage(w, http.StatusBadRequest, "Bad page", err.Error())
			return
		}
		f.After = &c
	}
	rows, next, err := d.cfg.Store.ListDebates(ctx, f)
	if err != nil {
		d.errorPage(w, http.StatusServiceUnavailable, "The store is unavailable", err.Error())
		return
	}
	if data.Pulls, err = d.pullGroups(ctx, rows); err != nil {
		d.errorPage(w, http.StatusServiceUnavailable, "The store is unavailable", err.Error())
		return
	}
	filter := url.Values{}
	for k, val := range map[string]string{"repository": data.Repository, "status": data.Status, "q": data.Text} {
		if val != "" {
			filter.Set(k, val)
		}
	}
	if f.After != nil {
		data.First = "/?" + filter.Encode()
	}
	if next != nil {
		filter.Set("after", next.String())
		data.Next = "/?" + filter.Encode()
	}
	d.render(w, http.StatusOK, "list.html", data)
}

func toRow(l store.Listed) listRow {
	subject := fmt.Sprintf("#%d", l.PRNumber)
	decision, _ := decisionWords(voting.Option(l.Decision))
	row := listRow{
		ID: l.ID, Repository: redact.Redact(l.Repository), Subject: subject, Title: redact.Redact(l.Title), Trigger: redact.Redact(l.Trigger), Protocol: redact.Redact(l.Protocol),
		Status:   phaseLabel(l.Status, l.LastPhase, l.LastRound, l.PausedAfter, l.Pending),
		Decision: redact.Redact(decision), Consensus: redact.Redact(l.ConsensusLevel),
		Tokens: l.Prompt + l.Completion, CostUSD: l.CostUSD, Started: l.StartedAt, Pending: l.Pending,
	}
	if l.EndedAt.After(l.StartedAt) {
		row.Duration = l.EndedAt.Sub(l.StartedAt)
	}
	return row
}

// githubURL is a pull request's or issue's page on GitHub (GitHub redirects /issues/N of a pull
// request to it).
func (d *Dashboard) githubURL(repo string, n int) string {
	return d.webOrigin() + "/" + repo + "/issues/" + strconv.Itoa(n)
}

// argView is an argument with its Toulmin parts, its quality and its links.
type argView struct {
	toulmin.Argument
	Author string
	// Answers are the arguments that answer this one (rebuttals, clarifications, responses).
	Answers []string
}

// phaseView is one phase of the timeline, with the arguments it produced.
type phaseView struct {
	toulmin.PhaseRecord
	Duration  time.Duration
	Arguments []argView
}

// historyView is one participant's positions, in order.
type historyView struct {
	Agent  string
	Stance []toulmin.Stance
}

type debateData struct {
	Viewer    *viewer
	ID        string
	Title     string
	Repo      string
	PR        int
	GitHub    string
	Status    string
	Phases    int
	Paused    int
	Live      bool
	CanAnswer bool
	// Need is the permission the checkpoint buttons need, when the viewer lacks it.
	Need string
	T    *toulmin.Transcript
	// Lead is what the page opens with: the decision, its required changes and the findings.
	Lead        lead
	Timeline    []phaseView
	History     []historyView
	Decided     bool
	RecordYAML  string
	Checkpoints []toulmin.Checkpoint
	// Nonce lets the live page's script run under the Content-Security-Policy.
	Nonce string
}

// loadDebate reads a debate the viewer may read, or reports that there is none for the viewer.
func (d *Dashboard) loadDebate(ctx context.Context, v *viewer, id string) (*store.Debate, error) {
	row, err := d.cfg.Store.Debate(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := d.mayRead(ctx, v, row.Repository); err != nil {
		return nil, err
	}
	return row, nil
}

// loadStatus reads the status of a debate the viewer may read (its row without checkpoint and
// record), or reports that there is none for the viewer.
func (d *Dashboard) loadStatus(ctx context.Context, v *viewer, id string) (*store.Listed, error) {
	st, err := d.cfg.Store.DebateStatus(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := d.mayRead(ctx, v, st.Repository); err != nil {
		return nil, err
	}
	return st, nil
}

// mayRead reports store.ErrNotFound when the viewer may not read the repository: a debate the
// viewer may not read is one there is not.
func (d *Dashboard) mayRead(ctx context.Context, v *viewer, repository string) error {
	ok, err := d.canRead(ctx, v, repository)
	if err != nil {
		return err
	}
	if !ok {
		return store.ErrNotFound
	}
	return nil
}

// unreadable answers a debate that could not be read: one there is not (for the viewer), or
// the store's failure.
func (d *Dashboard) unreadable(w http.ResponseWriter, err error) {
	if errors.Is(err, store.ErrNotFound) {
		d.notFound(w)
		return
	}
	d.errorPage(w, http.StatusServiceUnavailable, "Could not read the debate", err.Error())
}

// debateView builds the page's data from the stored debate and its status: its checkpoint (the
// transcript so far, or the whole transcript once decided), redacted before anything is read
// from it.
func (d *Dashboard) debateView(ctx context.Context, v *viewer, row *store.Debate, st *store.Listed) (*debateData, error) {
	data := &debateData{Viewer: v, ID: row.ID, Repo: redact.Redact(row.Repository), PR: row.PRNumber, GitHub: d.githubURL(row.Repository, row.PRNumber), Status: st.Status, Phases: st.Phases, Paused: st.PausedAfter}
	data.Live = !slices.Contains([]string{store.StatusDecided, store.StatusEscalated, store.StatusFailed, store.StatusSuperseded}, st.Status)
	t, err := transcriptOf(row)
	if err != nil {
		return nil, err
	}
	data.T = &t
	data.Lead = d.leadOf(&t, row.Repository, cmpOr(row.HeadSHA, t.Record.HeadSHA), st.Status)
	if st.Status == store.StatusPaused {
		data.Lead.Progress = phaseLabel(st.Status, "", 0, st.PausedAfter, false)
	}
	data.Title = t.Title
	if data.Title == "" {
		data.Title = fmt.Sprintf("%s #%d", data.Repo, row.PRNumber)
	}
	data.Decided = t.Record.Decision != ""
	if len(row.Record) > 0 {
		data.RecordYAML = redact.Redact(string(row.Record))
	}
	data.Checkpoints = t.Checkpoints
	answers := map[string][]string{}
	for _, a := range t.Arguments {
		if a.Target != "" {
			answers[a.Target] = append(answers[a.Target], a.ID)
		}
	}
	titles := map[string]string{}
	for _, p := range t.Participants {
		titles[p.Name] = p.Title
	}
	byPhase := map[string][]argView{}
	for _, a := range t.Arguments {
		key := string(a.Phase) + "/" + strconv.Itoa(a.Round)
		byPhase[key] = append(byPhase[key], argView{Argument: a, Author: cmpOr(titles[a.Agent], a.Agent), Answers: answers[a.ID]})
	}
	placed := map[string]bool{}
	for _, p := range t.Timeline {
		key := string(p.Phase) + "/" + strconv.Itoa(p.Round)
		pv := phaseView{PhaseRecord: p}
		if p.EndedAt.After(p.StartedAt) {
			pv.Duration = p.EndedAt.Sub(p.StartedAt)
		}
		if !placed[key] {
			pv.Arguments, placed[key] = byPhase[key], true
		}
		data.Timeline = append(data.Timeline, pv)
	}
	for key, args := range byPhase {
		if !placed[key] {
			// Arguments of a phase the timeline does not hold (carried over): shown at the end.
			data.Timeline = append(data.Timeline, phaseView{PhaseRecord: toulmin.PhaseRecord{Phase: args[0].Phase, Round: args[0].Round}, Arguments: args})
		}
	}
	at := map[string]int{}
	for _, s := range t.Stances {
		i, ok := at[s.Agent]
		if !ok {
			i = len(data.History)
			at[s.Agent] = i
			data.History = append(data.History, historyView{Agent: cmpOr(titles[s.Agent], s.Agent)})
		}
		data.History[i].Stance = append(data.History[i].Stance, s)
	}
	if st.Status == store.StatusPaused && d.cfg.Checkpoints != nil {
		ok, need, err := d.mayAnswer(ctx, v, row.ID)
		if err != nil {
			zerolog.Ctx(ctx).Warn().Err(err).Msg("Could not check who may answer the checkpoint.")
		}
		data.CanAnswer = ok
		if !ok {
			data.Need = need
		}
	}
	return data, nil
}

// transcriptOf reads a debate's checkpoint (empty before its first phase ends), redacted before
// anything is read from it.
func transcriptOf(row *store.Debate) (toulmin.Transcript, error) {
	var t toulmin.Transcript
	if len(row.Checkpoint) == 0 {
		return t, nil
	}
	doc, err := publish.RedactJSON(row.Checkpoint)
	if err != nil {
		return t, fmt.Errorf("failed to redact the transcript of debate %s: %w", row.ID, err)
	}
	if err := json.Unmarshal(doc, &t); err != nil {
		return t, fmt.Errorf("failed to read the transcript of debate %s: %w", row.ID, err)
	}
	return t, nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// debate is GET /debates/{id}.
func (d *Dashboard) debate(w http.ResponseWriter, r *http.Request, v *viewer) {
	ctx := r.Context()
	row, err := d.loadDebate(ctx, v, r.PathValue("id"))
	if err != nil {
		d.unreadable(w, err)
		return
	}
	var data *debateData
	st, err := d.cfg.Store.DebateStatus(ctx, row.ID)
	if err == nil {
		data, err = d.debateView(ctx, v, row, st)
	}
	if err != nil {
		d.errorPage(w, http.StatusInternalServerError, "Could not show the debate", err.Error())
		return
	}
	if data.Live {
		data.Nonce = randomString(16)
		w.Header().Set("Content-Security-Policy", d.csp(data.Nonce))
	}
	d.render(w, http.StatusOK, "debate.html", data)
}

// events is GET /debates/{id}/events: Server-Sent Events that carry the debate's page body each
// time the store shows it moved (a phase ended, it paused, resumed or was decided), polled from
// the store so that it works whichever replica runs the debate; it ends once the debate does.
func (d *Dashboard) events(w http.ResponseWriter, r *http.Request, v *viewer) {
	ctx := r.Context()
	id := r.PathValue("id")
	if _, err := d.loadStatus(ctx, v, id); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			http.Error(w, "Not found", http.StatusNotFound)
			return
		}
		http.Error(w, "Could not read the debate: "+redact.Redact(err.Error()), http.StatusServiceUnavailable)
		return
	}
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	// What the page showed: the stream starts from there, so that nothing between the page and
	// the stream is missed.
	seen := r.URL.Query().Get("phases") + "/" + r.URL.Query().Get("status")
	tick := time.NewTicker(d.cfg.Poll)
	defer tick.Stop()
	lastWrite := time.Now()
	for {
		st, err := d.cfg.Store.DebateStatus(ctx, id)
		if err != nil && ctx.Err() == nil {
			zerolog.Ctx(ctx).Warn().Err(err).Msg("A live page could not read its debate; it tries again.")
		}
		if err == nil {
			now := fmt.Sprintf("%d/%s", st.Phases, st.Status)
			if st.Status == store.StatusPaused {
				now += fmt.Sprintf("@%d", st.PausedAfter)
			}
			if now != seen {
				body, final, err := d.liveBody(ctx, v, st)
				if err != nil {
					zerolog.Ctx(ctx).Warn().Err(err).Msg("A live page could not render its debate.")
				} else {
					seen = now
					if !d.send(rc, w, "update", body) {
						return
					}
					lastWrite = time.Now()
					if final {
						d.send(rc, w, "end", "done")
						return
					}
				}
			}
		}
		if time.Since(lastWrite) > 15*time.Second {
			// A comment keeps proxies from closing an idle stream.
			_ = rc.SetWriteDeadline(time.Now().Add(10 * time.Second))
			if _, err := fmt.Fprint(w, ": keep-alive\n\n"); err != nil || rc.Flush() != nil {
				return
			}
			lastWrite = time.Now()
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// liveBody renders the page body of the debate whose status the stream just read, again
// checking that the viewer may read it; the row is read after the status, so it is at least as
// new.
func (d *Dashboard) liveBody(ctx context.Context, v *viewer, st *store.Listed) (string, bool, error) {
	row, err := d.loadDebate(ctx, v, st.ID)
	if err != nil {
		return "", false, err
	}
	data, err := d.debateView(ctx, v, row, st)
	if err != nil {
		return "", false, err
	}
	var buf bytes.Buffer
	if err := templates.ExecuteTemplate(&buf, "debate-body", data); err != nil {
		return "", false, fmt.Errorf("failed to render debate %s: %w", st.ID, err)
	}
	return buf.String(), !data.Live, nil
}

// send writes one event; it reports false when the client is gone.
func (d *Dashboard) send(rc *http.ResponseController, w http.ResponseWriter, event, data string) bool {
	_ = rc.SetWriteDeadline(time.Now().Add(10 * time.Second))
	var b strings.Builder
	b.WriteString("event: " + event + "\n")
	for _, line := range strings.Split(data, "\n") {
		b.WriteString("data: " + strings.TrimSuffix(line, "\r") + "\n")
	}
	b.WriteString("\n")
	if _, err := fmt.Fprint(w, b.String()); err != nil {
		return false
	}
	return rc.Flush() == nil
}

// checkpoint is POST /debates/{id}/checkpoint: a button of a paused debate, which answers it as
// the comment command would, for a viewer with the repository's command_permission.
func (d *Dashboard) checkpoint(w http.ResponseWriter, r *http.Request, v *viewer) {
	ctx := r.Context()
	if !d.seal.checkCSRF(v.sess, r.PostFormValue("csrf")) {
		d.errorPage(w, http.StatusForbidden, "Not answered", "The form's CSRF token does not match your session. Reload the page and try again.")
		return
	}
	id := r.PathValue("id")
	st, err := d.loadStatus(ctx, v, id)
	if err != nil {
		d.unreadable(w, err)
		return
	}
	action := toulmin.CheckpointAction(r.PostFormValue("action"))
	if !action.Valid() {
		d.errorPage(w, http.StatusBadRequest, "Not answered", fmt.Sprintf("%q is not a checkpoint answer (continue, guide or end).", action))
		return
	}
	if d.cfg.Checkpoints == nil {
		d.errorPage(w, http.StatusServiceUnavailable, "Not answered", "This server does not answer checkpoints.")
		return
	}
	if st.Status != store.StatusPaused {
		d.errorPage(w, http.StatusConflict, "Not answered", "The debate is not paused at a checkpoint (any more); nothing was changed.")
		return
	}
	ok, need, have, err := d.cfg.Checkpoints.Permission(ctx, id, v.sess.Login)
	if err != nil {
		d.errorPage(w, http.StatusBadGateway, "Not answered", err.Error())
		return
	}
	if !ok {
		d.errorPage(w, http.StatusForbidden, "Not answered", fmt.Sprintf("Answering a checkpoint of %s needs %s permission (command_permission); you have %s. Nothing was changed.", st.Repository, need, have))
		return
	}
	if err := d.cfg.Checkpoints.Answer(ctx, id, v.sess.Login, action, r.PostFormValue("guidance")); err != nil {
		d.errorPage(w, http.StatusServiceUnavailable, "Not answered", err.Error())
		return
	}
	http.Redirect(w, r, sameOriginPath("/debates/"+url.PathEscape(id)), http.StatusSeeOther)
}

// repoMetrics is one repository's metrics with the widths of its chart bars.
type repoMetrics struct {
	Repository string
	Stats      *store.Stats
	Rates      []rateBar
	// Cost is the repository's model cost beside the others'.
	Cost      bar
	Durations []bar
	Tokens    bar
}

type bar struct {
	Label string
	Value string
	// Width is the bar's length in the chart's units (0..200).
	Width float64
}

type metricsData struct {
	Viewer *viewer
	Repos  []repoMetrics
	Notice string
	// TotalCostUSD is the model cost over every repository shown.
	TotalCostUSD float64
	// Legend says what each rate counts and which way it is good.
	Legend []rateBar
}

// metrics is GET /metrics-overview: the debate metrics of each readable repository (its cost,
// its rates judged good, fair or poor, durations and tokens), with small SVG charts drawn on
// the server.
func (d *Dashboard) metrics(w http.ResponseWriter, r *http.Request, v *viewer) {
	ctx := r.Context()
	all, err := d.cfg.Store.Repositories(ctx)
	if err != nil {
		d.errorPage(w, http.StatusServiceUnavailable, "The store is unavailable", err.Error())
		return
	}
	readable, err := d.readable(ctx, v, all)
	data := metricsData{Viewer: v}
	if err != nil {
		data.Notice = "GitHub did not answer for some repositories; their metrics are not shown."
	}
	stats, err := d.cfg.Store.StatsByRepository(ctx, readable)
	if err != nil {
		d.errorPage(w, http.StatusServiceUnavailable, "The store is unavailable", err.Error())
		return
	}
	var maxTokens, maxSeconds, maxCost float64
	for _, repo := range readable {
		s := stats[repo]
		maxTokens = math.Max(maxTokens, s.TokensPerDebate)
		maxCost = math.Max(maxCost, s.CostUSD)
		data.TotalCostUSD += s.CostUSD
		for _, sec := range s.MeanSecondsByProtocol {
			maxSeconds = math.Max(maxSeconds, sec)
		}
		data.Repos = append(data.Repos, repoMetrics{Repository: redact.Redact(repo), Stats: s})
	}
	scale := func(v, max float64) float64 {
		if max <= 0 {
			return 0
		}
		return math.Round(200*v/max*10) / 10
	}
	for i := range data.Repos {
		m := &data.Repos[i]
		s := m.Stats
		m.Rates = []rateBar{
			rateBarOf(consensusRate, s.ConsensusRate, s.Debates),
			rateBarOf(reversalRate, s.ReversalRate, s.HumanDecided),
			rateBarOf(autoEscalationRate, s.AutoEscalationRate, s.Debates),
		}
		m.Cost = bar{"model cost", fmt.Sprintf("$%.2f", s.CostUSD), scale(s.CostUSD, maxCost)}
		protocols := make([]string, 0, len(s.MeanSecondsByProtocol))
		for p := range s.MeanSecondsByProtocol {
			protocols = append(protocols, p)
		}
		slices.Sort(protocols)
		for _, p := range protocols {
			sec := s.MeanSecondsByProtocol[p]
			m.Durations = append(m.Durations, bar{redact.Redact(p), humanDuration(time.Duration(sec * float64(time.Second))), scale(sec, maxSeconds)})
		}
		m.Tokens = bar{"tokens per debate", humanInt(int64(s.TokensPerDebate)), scale(s.TokensPerDebate, maxTokens)}
	}
	for _, spec := range []rateSpec{consensusRate, reversalRate, autoEscalationRate} {
		data.Legend = append(data.Legend, rateBarOf(spec, 0, 0))
	}
	d.render(w, http.StatusOK, "metrics.html", data)
}
