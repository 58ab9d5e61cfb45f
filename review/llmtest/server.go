// Package llmtest is an OpenAI-compatible chat completions server for tests: scripted or
// schema-valid replies, usage figures with provider-style prompt caching, latency, and the
// failures of the real API (429 with retry headers, 5xx, slow and hung requests, truncated and
// non-JSON replies), with OpenAI's status codes, headers and error bodies; it keeps the sum of the
// usage it reported (Billed), so that tests can compare a debate's record with it exactly.
package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pkoukk/tiktoken-go"
	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"
)

// Message is one chat message of a request.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Request is what the server received.
type Request struct {
	Model               string    `json:"model"`
	Messages            []Message `json:"messages"`
	MaxCompletionTokens int       `json:"max_completion_tokens"`
	// PromptCacheKey is OpenAI's prompt_cache_key: requests that send one are served from the
	// cache of earlier requests with the same key only.
	PromptCacheKey string `json:"prompt_cache_key"`
	ResponseFormat struct {
		Type       string `json:"type"`
		JSONSchema struct {
			Name   string         `json:"name"`
			Strict bool           `json:"strict"`
			Schema map[string]any `json:"schema"`
		} `json:"json_schema"`
	} `json:"response_format"`
	// Received is when the request arrived; Tokens is its prompt size and SharedPrefix how many
	// of its leading tokens an earlier request of the server with the same model and
	// prompt_cache_key started with, answered or not (the prompt's structure: what a cache could
	// serve at best). Cached is what the server's cache served, as OpenAI reports it in
	// usage.prompt_tokens_details.cached_tokens (see CachedTokens): only prefixes of requests of
	// the same model and key that were answered before this one arrived count.
	Received     time.Time `json:"-"`
	Tokens       int       `json:"-"`
	SharedPrefix int       `json:"-"`
	Cached       int       `json:"-"`
}

// Last returns the content of the last message.
func (r *Request) Last() string {
	if len(r.Messages) == 0 {
		return ""
	}
	return r.Messages[len(r.Messages)-1].Content
}

// catalog is the last message of the request that lists the catalog of perspectives: its last,
// unless a repair (a reply cut off, asked again shorter) follows it.
func (r *Request) catalog() string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if strings.Contains(r.Messages[i].Content, "# Catalog of perspectives\n") {
			return r.Messages[i].Content
		}
	}
	return r.Last()
}

// Response is what the server answers to one request.
type Response struct {
	Status  int
	Headers map[string]string
	// Content is the assistant message; Finish its finish_reason (default "stop").
	Content string
	Finish  string
	// Delay is waited before answering (the request's context cancels it).
	Delay time.Duration
	// ErrorCode and ErrorMessage fill OpenAI's error body for a non-2xx status.
	ErrorCode, ErrorMessage string
	// CompletionTokens overrides the counted completion tokens.
	CompletionTokens int
	// Hang never answers: the request is held until the client gives up (a model that hangs).
	// Nothing is billed for it.
	Hang bool
}

// Hang is a request the server never answers.
func Hang() Response { return Response{Hang: true} }

// Usage is what the server reported in the usage of its answers, summed: what it billed.
type Usage struct {
	Prompt, Completion, CachedPrompt int64
	// Calls counts the answers that carried usage (200s).
	Calls int
}

// Responder decides the answer to the n-th request (1-based).
type Responder func(n int, r *Request) Response

// Server is the fake.
type Server struct {
	*httptest.Server
	t       testing.TB
	mu      sync.Mutex
	respond Responder
	reqs    []*Request
	// history holds the prompts received and cache those answered (what the cache holds), by
	// model and prompt_cache_key.
	history, cache map[string][][]int
	latency        time.Duration
	enc            *tiktoken.Tiktoken
	billed         Usage
	hung           int
	tokens         map[string][]int // by role and content
}

// encoding is o200k_base, built once per test process and shared by every server (it is safe for
// concurrent use): building it takes a good part of a second under the race detector, and a
// package's tests start a server each.
var encoding = sync.OnceValues(func() (*tiktoken.Tiktoken, error) {
	tiktoken.SetBpeLoader(tiktokenloader.NewOfflineLoader())
	return tiktoken.GetEncoding(tiktoken.MODEL_O200K_BASE)
})

// New starts a server that answers with respond (Valid when nil) and stops with the test.
func New(t testing.TB, respond Responder) *Server {
	t.Helper()
	enc, err := encoding()
	if err != nil {
		t.Fatalf("llmtest: %v", err)
	}
	if respond == nil {
		respond = Valid
	}
	s := &Server{t: t, respond: respond, enc: enc, tokens: map[string][]int{}, history: map[string][][]int{}, cache: map[string][][]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.handle))
	t.Cleanup(s.Close)
	return s
}

// BaseURL is what OPENAI_BASE_URL would be.
func (s *Server) BaseURL() string { return s.URL + "/v1/" }

// SetLatency makes every answer wait d.
func (s *Server) SetLatency(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.latency = d
}

// Billed returns the usage of every answer the server sent so far: what a provider would bill.
func (s *Server) Billed() Usage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.billed
}

// Hung counts the requests answered with Hang.
func (s *Server) Hung() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hung
}

// Requests returns the requests received so far.
func (s *Server) Requests() []*Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Request(nil), s.reqs...)
}

func writeError(w http.ResponseWriter, status int, code, typ, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": code}})
}

func (s *Server) handle(w http.ResponseWriter, hr *http.Request) {
	w.Header().Set("x-request-id", fmt.Sprintf("req_%d", time.Now().UnixNano()))
	if hr.Method != http.MethodPost || !strings.HasSuffix(hr.URL.Path, "/chat/completions") {
		writeError(w, http.StatusNotFound, "unknown_url", "invalid_request_error", fmt.Sprintf("Unknown request URL: %s %s", hr.Method, hr.URL.Path))
		return
	}
	if !strings.HasPrefix(hr.Header.Get("Authorization"), "Bearer ") {
		writeError(w, http.StatusUnauthorized, "invalid_api_key", "invalid_request_error", "You didn't provide an API key.")
		return
	}
	body, err := io.ReadAll(hr.Body)
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_body", "invalid_request_error", err.Error())
		return
	}
	req := &Request{Received: time.Now()}
	if err := json.Unmarshal(body, req); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_json", "invalid_request_error", "We could not parse the JSON body of your request: "+err.Error())
		return
	}
	if req.Model == "" || len(req.Messages) == 0 {
		writeError(w, http.StatusBadRequest, "missing_required_parameter", "invalid_request_error", "model and messages are required")
		return
	}
	var tokens []int
	for _, m := range req.Messages {
		tokens = append(tokens, s.encode(m)...)
	}
	key := req.Model + "\x00" + req.PromptCacheKey
	s.mu.Lock()
	req.Tokens, req.SharedPrefix = len(tokens), longestPrefix(s.history[key], tokens)
	req.Cached = CachedTokens(longestPrefix(s.cache[key], tokens))
	s.history[key] = append(s.history[key], tokens)
	s.reqs = append(s.reqs, req)
	n := len(s.reqs)
	latency := s.latency
	s.mu.Unlock()

	resp := s.respond(n, req)
	if resp.Hang {
		s.mu.Lock()
		s.hung++
		s.mu.Unlock()
		<-hr.Context().Done()
		return
	}
	completion := resp.CompletionTokens
	if completion == 0 {
		completion = len(s.enc.EncodeOrdinary(resp.Content))
	}
	// The latency counts from the request's arrival, the fake's own work included, as a
	// provider's does.
	if d := latency + resp.Delay - time.Since(req.Received); d > 0 {
		select {
		case <-time.After(d):
		case <-hr.Context().Done():
			return
		}
	}
	w.Header().Set("x-ratelimit-limit-requests", "10000")
	w.Header().Set("x-ratelimit-remaining-requests", "9999")
	for k, v := range resp.Headers {
		w.Header().Set(k, v)
	}
	if resp.Status != 0 && resp.Status != http.StatusOK {
		typ := "server_error"
		if resp.Status < 500 {
			typ = "invalid_request_error"
		}
		if resp.Status == http.StatusTooManyRequests {
			typ = "requests"
		}
		writeError(w, resp.Status, resp.ErrorCode, typ, resp.ErrorMessage)
		return
	}
	finish := resp.Finish
	if finish == "" {
		finish = "stop"
	}
	cached := req.Cached
	if hr.Context().Err() != nil {
		return // the client gave up: nothing is sent, nothing billed, nothing cached
	}
	s.mu.Lock()
	s.billed.Prompt += int64(len(tokens))
	s.billed.Completion += int64(completion)
	s.billed.CachedPrompt += int64(cached)
	s.billed.Calls++
	// The prompt is cached once it has been answered: later requests with its prefix hit.
	s.cache[key] = append(s.cache[key], tokens)
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": fmt.Sprintf("chatcmpl-%d", n), "object": "chat.completion", "created": time.Now().Unix(), "model": req.Model,
		"choices": []map[string]any{{"index": 0, "finish_reason": finish, "message": map[string]any{"role": "assistant", "content": resp.Content, "refusal": nil}}},
		"usage": map[string]any{
			"prompt_tokens": len(tokens), "completion_tokens": completion, "total_tokens": len(tokens) + completion,
			"prompt_tokens_details": map[string]any{"cached_tokens": cached},
		},
	})
}

// encode tokenizes one message as "<|role|>content<|end|>". Messages repeat across the requests
// of a debate (the system rules, the change), so their tokens are kept: the fake answers in
// milliseconds even under the race detector, which matters to tests of request timeouts.
func (s *Server) encode(m Message) []int {
	key := m.Role + "\x00" + m.Content
	s.mu.Lock()
	toks, ok := s.tokens[key]
	s.mu.Unlock()
	if ok {
		return toks
	}
	toks = s.enc.EncodeOrdinary("<|" + m.Role + "|>" + m.Content + "<|end|>")
	s.mu.Lock()
	s.tokens[key] = toks
	s.mu.Unlock()
	return toks
}

// CachedTokens is what OpenAI reports in prompt_tokens_details.cached_tokens for a prompt whose
// first shared tokens an earlier answered prompt (of the same model, with the same
// prompt_cache_key) started with: nothing below 1024 tokens, then the shared part rounded down
// to a multiple of 128.
func CachedTokens(shared int) int {
	if shared < 1024 {
		return 0
	}
	return shared / 128 * 128
}

// longestPrefix is the longest prefix of tokens that one of prompts starts with.
func longestPrefix(prompts [][]int, tokens []int) int {
	n := 0
	for _, p := range prompts {
		n = max(n, commonPrefix(p, tokens))
	}
	return n
}

func commonPrefix(a, b []int) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// Failure responses of the real API.

// RateLimited is a 429 that asks to retry after ms milliseconds.
func RateLimited(ms int) Response {
	return Response{Status: http.StatusTooManyRequests, ErrorCode: "rate_limit_exceeded",
		ErrorMessage: "Rate limit reached for requests", Headers: map[string]string{
			"retry-after-ms": fmt.Sprint(ms), "x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": fmt.Sprintf("%dms", ms)}}
}

// ServerError is a 500 that asks to retry after ms milliseconds (0: no header).
func ServerError(ms int) Response {
	r := Response{Status: http.StatusInternalServerError, ErrorCode: "server_error", ErrorMessage: "The server had an error while processing your request."}
	if ms > 0 {
		r.Headers = map[string]string{"retry-after-ms": fmt.Sprint(ms)}
	}
	return r
}

// NotJSON is a reply in prose.
func NotJSON() Response {
	return Response{Content: "I think this change looks fine overall, but consider adding tests."}
}

// Truncated is a reply cut off at the token limit.
func Truncated(r *Request) Response {
	full := Valid(0, r).Content
	return Response{Content: full[:len(full)/2], Finish: "length"}
}

var (
	selfRe     = regexp.MustCompile(`You are the (.+?) \(([A-Z0-9]+)\), role (\w+)`)
	phaseRe    = regexp.MustCompile(`(?:Phase|This call): (\w+)`)
	citeRe     = regexp.MustCompile(`(?m)^- E\d+ \[(\w+)\] [\w-]+ \((\w+)\) at ([^\s:]+):(\d+): (.*)$`)
	argRe      = regexp.MustCompile(`(?m)^- ([A-Z0-9]+-\d+) \((\w+)`)
	rebuttedRe = regexp.MustCompile(`Answer each rebuttal of your arguments: ((?:[A-Z0-9]+-\d+ )+)`)
	answeredRe = regexp.MustCompile(`The authors answered your rebuttals: ((?:[A-Z0-9]+-\d+ )+)`)
	catalogRe  = regexp.MustCompile(`(?m)^- ([\w.-]+): `)
)

// ModeratorSchema is the name of the response format of the moderator's call.
const ModeratorSchema = "moderator_panel"

// Moderator answers the moderator's call by seating the first four perspectives of the catalog
// (all, when it has fewer), each with a reason.
func Moderator(r *Request) Response {
	var seated []any
	catalog := r.catalog()
	if i := strings.Index(catalog, "# Catalog of perspectives\n"); i >= 0 {
		catalog = catalog[i:]
	}
	if i := strings.Index(catalog, "\n# "); i >= 0 {
		catalog = catalog[:i] // the catalog ends where the next section starts
	}
	for _, m := range catalogRe.FindAllStringSubmatch(catalog, -1) {
		if len(seated) == 4 {
			break
		}
		seated = append(seated, map[string]any{"name": m[1], "reason": "the change is in " + m[1] + "'s domain"})
	}
	b, _ := json.Marshal(map[string]any{"seated": seated, "opposition": "the seated perspectives trade off against each other"})
	return Response{Content: string(b)}
}

// Phase returns the phase and agent abbreviation a request is for: the phase from the last user
// message that names one (the phase's instruction), the agent from the last that says who it is
// (the agent's turn); a repair request ends with the repair, after both.
func Phase(r *Request) (phase, abbrev string) {
	for i := len(r.Messages) - 1; i >= 0 && (phase == "" || abbrev == ""); i-- {
		if r.Messages[i].Role != "user" {
			continue
		}
		if m := phaseRe.FindStringSubmatch(r.Messages[i].Content); m != nil && phase == "" {
			phase = m[1]
		}
		if m := selfRe.FindStringSubmatch(r.Messages[i].Content); m != nil && abbrev == "" {
			abbrev = m[2]
		}
	}
	return phase, abbrev
}

// Valid answers with a schema-valid reply for the phase and agent the request is for: an
// argument citing the first evidence item of the change, rebuttals of another agent's opening
// (each with a steelman), rejections of rebuttals, challengers maintaining their rebuttals, and a
// synthesis; and the moderator's call with a choice of the catalog.
func Valid(_ int, r *Request) Response {
	switch r.ResponseFormat.JSONSchema.Name {
	case ModeratorSchema:
		return Moderator(r)
	case PanelSchema:
		return Panel(r)
	case PanelSeatSchema:
		return PanelSeat(r)
	}
	phase, abbrev := Phase(r)
	b, _ := json.Marshal(validTurn(phase, abbrev, r.all(), turnOf{}))
	return Response{Content: string(b)}
}

// all is every message of the request, one after another.
func (r *Request) all() string {
	var b strings.Builder
	for _, m := range r.Messages {
		b.WriteString(m.Content)
		b.WriteString("\n")
	}
	return b.String()
}

// turnOf fixes what a turn answers when one call writes several turns (Panel); empty, the turn
// reads it from its own request.
type turnOf struct {
	targets []string
}

// panelTurn is validTurn as one turn of a panel call's reply: with its agent and phase.
func panelTurn(phase, abbrev, all string, of turnOf) map[string]any {
	t := validTurn(phase, abbrev, all, of)
	t["agent"], t["phase"] = abbrev, phase
	return t
}

// validTurn is Valid's reply for the phase and agent, as a JSON object.
func validTurn(phase, abbrev, all string, of turnOf) map[string]any {
	ground := map[string]any{"path": "", "line": 0, "text": "the change as a whole"}
	severity := "info"
	if m := citeRe.FindStringSubmatch(all); m != nil {
		var line int
		fmt.Sscan(m[4], &line)
		ground = map[string]any{"path": m[3], "line": line, "text": m[5]}
		severity = m[1]
	}
	arg := func(target, answer string) map[string]any {
		steelman := ""
		if phase == "rebuttal" {
			steelman = "At its strongest, " + target + " holds that the cited line is a defect"
		}
		return map[string]any{
			"target": target, "steelman": steelman, "claim": "The cited line carries the risk the analyzers reported", "grounds": []any{ground},
			"warrant": "The pattern at the cited line is a known cause of defects", "backing": []any{map[string]any{"reference": "OWASP Top 10", "evidence": ""}},
			"confidence": 0.8, "qualifier": "from the diff alone", "rebuttal": "unless it is mitigated elsewhere", "severity": severity,
			"actions": []any{map[string]any{"text": "fix the cited line", "path": ground["path"], "line": ground["line"], "required": severity != "info" && severity != "low"}},
			"answer":  answer, "limit": "",
		}
	}
	reply := map[string]any{
		"arguments": []any{},
		"position":  map[string]any{"vote": "approve_with_changes", "confidence": 0.7, "reason": "one concern stands", "priorities": []any{"fix the cited line"}, "trade_offs": []any{}, "examined": []any{"the cited line"}},
		"synthesis": map[string]any{"consensus_points": []any{}, "conflicts": []any{}, "resolution": ""},
	}
	switch phase {
	case "opening_arguments", "final_arguments", "design_review":
		reply["arguments"] = []any{arg("", "")}
	case "rebuttal":
		if t := rebuttalTarget(all, abbrev); t != "" {
			reply["arguments"] = []any{arg(t, "")}
		}
	case "clarification", "response":
		answer, re := "reject", rebuttedRe
		if phase == "response" {
			answer, re = "maintain", answeredRe
		}
		targets := of.targets
		if m := re.FindStringSubmatch(all); m != nil && targets == nil {
			targets = strings.Fields(m[1])
		}
		var out []any
		for _, id := range targets {
			out = append(out, arg(id, answer))
		}
		reply["arguments"] = out
	case "synthesis":
		reply["arguments"] = []any{arg("", "")}
		reply["synthesis"] = map[string]any{"consensus_points": []any{"the cited line needs a fix"}, "conflicts": []any{}, "resolution": "approve once the cited line is fixed"}
	}
	return reply
}

// rebuttalTarget is the first opening argument in the request's digests that is not abbrev's.
func rebuttalTarget(all, abbrev string) string {
	for _, m := range argRe.FindAllStringSubmatch(all, -1) {
		if m[2] == "opening_arguments" && !strings.HasPrefix(m[1], abbrev+"-") {
			return m[1]
		}
	}
	return ""
}

// PanelSchema is the name of the response format of a call that speaks for the whole panel, and
// PanelSeatSchema of the call that seats the panel and writes its openings.
const (
	PanelSchema     = "debate_panel"
	PanelSeatSchema = "debate_panel_seat"
)

var seatLineRe = regexp.MustCompile(`(?m)^- ([\w.-]+): ([A-Z][A-Z0-9]*)`)

// PanelSeat answers the call that seats the panel and opens as Moderator answers the moderator's
// call, with the opening of each perspective it seated as Panel writes it; after a repair too.
func PanelSeat(r *Request) Response {
	var seat map[string]any
	if err := json.Unmarshal([]byte(Moderator(r).Content), &seat); err != nil {
		panic(err)
	}
	abbrev := map[string]string{}
	for _, m := range seatLineRe.FindAllStringSubmatch(r.catalog(), -1) {
		abbrev[m[1]] = m[2]
	}
	turns := []any{}
	all := r.all()
	for _, s := range seat["seated"].([]any) {
		a := abbrev[s.(map[string]any)["name"].(string)]
		turns = append(turns, panelTurn("opening_arguments", a, all, turnOf{}))
	}
	seat["turns"] = turns
	b, _ := json.Marshal(seat)
	return Response{Content: string(b)}
}

var (
	stageRe   = regexp.MustCompile(`(?m)^- (\w+) \(≤\d+ tokens a turn\): (.+)$`)
	abbrevRe  = regexp.MustCompile(`\b[A-Z][A-Z0-9]+\b`)
	inFullRe  = regexp.MustCompile(`(?m)^### ([A-Z0-9]+-\d+) by \S+ \(rebuttal, answers ([A-Z0-9]+-\d+)`)
	roundOfRe = regexp.MustCompile(`# This call: .* \(round (\d+)\)`)
)

// Panel answers a call that speaks for the panel as Valid answers each agent's: in a round, every
// speaker of the rebuttal rebuts the first opening of another member, the authors reject the
// rebuttals, and the rebutters maintain them; in every other phase each speaker argues once.
// Speakers are the abbreviations of the call's list of phases, read from the last message that
// has it (a repair after a reply cut off follows it).
func Panel(r *Request) Response {
	all := r.all()
	if roundOfRe.FindString(all) == "" {
		return NotJSON()
	}
	stage := r.Last()
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" && roundOfRe.MatchString(r.Messages[i].Content) {
			stage = r.Messages[i].Content
			break
		}
	}
	var turns []any
	turn := func(phase, abbrev string, of turnOf) {
		turns = append(turns, panelTurn(phase, abbrev, all, of))
	}
	rebutted := map[string][]string{} // target -> rebutters
	var order []string
	for _, m := range stageRe.FindAllStringSubmatch(stage, -1) {
		phase, who := m[1], abbrevRe.FindAllString(m[2], -1)
		switch phase {
		case "rebuttal":
			for _, a := range who {
				if t := rebuttalTarget(all, a); t != "" {
					if rebutted[t] == nil {
						order = append(order, t)
					}
					rebutted[t] = append(rebutted[t], a)
					turn(phase, a, turnOf{})
				}
			}
		case "clarification":
			if len(order) == 0 {
				for _, in := range inFullRe.FindAllStringSubmatch(stage, -1) {
					if rebutted[in[2]] == nil {
						order = append(order, in[2])
					}
					rebutted[in[2]] = append(rebutted[in[2]], strings.SplitN(in[1], "-", 2)[0])
				}
			}
			for _, t := range order {
				turn(phase, strings.SplitN(t, "-", 2)[0], turnOf{targets: []string{t}})
			}
		case "response":
			for _, t := range order {
				for _, a := range rebutted[t] {
					turn(phase, a, turnOf{targets: []string{t}})
				}
			}
		default:
			for _, a := range who {
				turn(phase, a, turnOf{})
			}
		}
	}
	b, _ := json.Marshal(map[string]any{"turns": turns})
	return Response{Content: string(b)}
}
