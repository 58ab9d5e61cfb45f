package toulmin

import (
	"time"

	"github.com/debatebot/debatebot/voting"
)

// Participant describes an agent as the debate sees it.
type Participant struct {
	// Name is the stable key of the agent ("security", "core_maintainer").
	Name string `json:"name" yaml:"name"`
	// Title is how the transcript names it ("Security Stakeholder").
	Title string `json:"title" yaml:"title"`
	// Abbrev prefixes its argument IDs ("SS").
	Abbrev string      `json:"abbrev" yaml:"abbrev"`
	Role   voting.Role `json:"role" yaml:"role"`
	// Perspective is what the agent argues for: its priorities and accepted trade-offs.
	Perspective string  `json:"perspective" yaml:"perspective"`
	Trust       float64 `json:"trust" yaml:"trust"`
	// Offline is set for agents that argue by rules from the evidence, with no model.
	Offline bool   `json:"offline" yaml:"offline"`
	Model   string `json:"model,omitempty" yaml:"model,omitempty"`
	// Weight and VotingRole are filled in by the engine from the weights and the trust.
	Weight     float64     `json:"weight" yaml:"weight"`
	VotingRole voting.Role `json:"voting_role" yaml:"voting_role"`
}

// PhaseStatus is how a phase ended.
type PhaseStatus string

// Phase statuses.
const (
	StatusRunning   PhaseStatus = "running"
	StatusCompleted PhaseStatus = "completed"
	StatusFailed    PhaseStatus = "failed"
	StatusTimedOut  PhaseStatus = "timed_out"
	StatusStopped   PhaseStatus = "stopped"
)

// PhaseRecord is one entry of the timeline.
type PhaseRecord struct {
	Phase     PhaseKind   `json:"phase" yaml:"phase"`
	Round     int         `json:"round" yaml:"round"`
	StartedAt time.Time   `json:"started_at" yaml:"started_at"`
	EndedAt   time.Time   `json:"ended_at" yaml:"ended_at"`
	Status    PhaseStatus `json:"status" yaml:"status"`
	// Agents lists who spoke in the phase.
	Agents []string `json:"agents,omitempty" yaml:"agents,omitempty"`
	// Notes tell what went wrong or was left out.
	Notes []string     `json:"notes,omitempty" yaml:"notes,omitempty"`
	Usage voting.Usage `json:"usage" yaml:"usage"`
	// ByAgent is each agent's usage in this phase.
	ByAgent map[string]voting.Usage `json:"by_agent,omitempty" yaml:"by_agent,omitempty"`
}

// Duration of the phase.
func (r PhaseRecord) Duration() time.Duration { return r.EndedAt.Sub(r.StartedAt) }

// Stance is one entry of a participant's position history (seed 001).
type Stance struct {
	Agent    string    `json:"agent" yaml:"agent"`
	Phase    PhaseKind `json:"phase" yaml:"phase"`
	Round    int       `json:"round" yaml:"round"`
	Position Position  `json:"position" yaml:"position"`
	// Changed is set when the vote differs from the agent's previous stance, and From is that
	// earlier vote; the position's reason says why it changed.
	Changed bool          `json:"changed" yaml:"changed"`
	From    voting.Option `json:"from,omitempty" yaml:"from,omitempty"`
}

// Transcript is the whole record of a debate.
type Transcript struct {
	DebateID     string        `json:"debate_id" yaml:"debate_id"`
	Title        string        `json:"title" yaml:"title"`
	Question     string        `json:"question,omitempty" yaml:"question,omitempty"`
	Protocol     string        `json:"protocol" yaml:"protocol"`
	Participants []Participant `json:"participants" yaml:"participants"`
	// Offline is set when every participant argued offline.
	Offline   bool          `json:"offline" yaml:"offline"`
	StartedAt time.Time     `json:"started_at" yaml:"started_at"`
	EndedAt   time.Time     `json:"ended_at" yaml:"ended_at"`
	Timeline  []PhaseRecord `json:"timeline" yaml:"timeline"`
	Evidence  []Evidence    `json:"evidence" yaml:"evidence"`
	Arguments []Argument    `json:"arguments" yaml:"arguments"`
	Stances   []Stance      `json:"stances" yaml:"stances"`
	// Rounds is how many rounds of the protocol's loop ran, and ExitReason why the loop ended.
	Rounds     int    `json:"rounds" yaml:"rounds"`
	ExitReason string `json:"exit_reason,omitempty" yaml:"exit_reason,omitempty"`
	// Depth is the depth the protocol was cut to, when one was asked for.
	Depth Depth `json:"depth,omitempty" yaml:"depth,omitempty"`
	// Panel is the moderator's choice of stakeholders, made before the openings.
	Panel *Panel `json:"panel,omitempty" yaml:"panel,omitempty"`
	// FastExit says whether the openings' agreement ended the debate early, or why it did not
	// although they agreed.
	FastExit *FastExit `json:"fast_exit,omitempty" yaml:"fast_exit,omitempty"`
	// BudgetStop, when set, says that the debate's model spend reached the protocol's
	// MaxCostUSD and which phases were skipped for it.
	BudgetStop *BudgetStop `json:"budget_stop,omitempty" yaml:"budget_stop,omitempty"`
	// Judgements are the moderator's verdicts after each round of confrontation.
	Judgements []Judgement `json:"judgements,omitempty" yaml:"judgements,omitempty"`
	// Checkpoints are the human's answers at the pauses between rounds (seed 002).
	Checkpoints []Checkpoint `json:"checkpoints,omitempty" yaml:"checkpoints,omitempty"`
	// Points is the scoring matrix of the disputed points at the end of the debate, and
	// Convergence the share of them agreed (1 when nothing was disputed).
	Points      []Point          `json:"points,omitempty" yaml:"points,omitempty"`
	Convergence float64          `json:"convergence" yaml:"convergence"`
	TradeOff    *voting.TradeOff `json:"trade_off,omitempty" yaml:"trade_off,omitempty"`
	// Escalations say why the debate escalated, when it did.
	Escalations []voting.Escalation `json:"escalations,omitempty" yaml:"escalations,omitempty"`
	Usage       voting.Usage        `json:"usage" yaml:"usage"`
	// UsageByAgent sums each agent's token usage over the debate.
	UsageByAgent map[string]voting.Usage `json:"usage_by_agent,omitempty" yaml:"usage_by_agent,omitempty"`
	// Abandoned is the usage of phases interrupted from outside before they completed (a
	// shutdown, a lost lease): they run again on resume, and what their calls cost is counted
	// in Usage all the same. AbandonedByAgent splits it by agent.
	Abandoned        voting.Usage            `json:"abandoned,omitempty" yaml:"abandoned,omitempty"`
	AbandonedByAgent map[string]voting.Usage `json:"abandoned_by_agent,omitempty" yaml:"abandoned_by_agent,omitempty"`
	Record           voting.Record           `json:"record" yaml:"record"`
	// Carried lists the required changes of an earlier debate of the same pull request, each
	// resolved or still open, when this debate covered only what changed since.
	Carried []Carried `json:"carried,omitempty" yaml:"carried,omitempty"`
	// Tally keeps every option's weighted share.
	Shares map[voting.Option]float64 `json:"shares" yaml:"shares"`
	// Files are the files of the debated change, for the summary's walkthrough and to know
	// which review threads the debate looked at again.
	Files []ChangedFile `json:"files,omitempty" yaml:"files,omitempty"`
	// OfflineReason says why a debate that could have had model-backed agents had the offline
	// ones (its repository's model budget was spent); empty when no model was configured.
	OfflineReason string `json:"offline_reason,omitempty" yaml:"offline_reason,omitempty"`
}

// ChangedFile is one file of the debated change: its status (added, modified, deleted, renamed)
// and how many lines were added and deleted.
type ChangedFile struct {
	Path    string `json:"path" yaml:"path"`
	Status  string `json:"status" yaml:"status"`
	Added   int    `json:"added" yaml:"added"`
	Deleted int    `json:"deleted" yaml:"deleted"`
}

// Argument returns the argument with that ID.
func (t *Transcript) Argument(id string) (*Argument, bool) {
	for i := range t.Arguments {
		if t.Arguments[i].ID == id {
			return &t.Arguments[i], true
		}
	}
	return nil, false
}

// ArgumentsIn returns the arguments recorded in a phase, in order.
func (t *Transcript) ArgumentsIn(kind PhaseKind) []Argument {
	var out []Argument
	for _, a := range t.Arguments {
		if a.Phase == kind {
			out = append(out, a)
		}
	}
	return out
}

// Participant returns the participant of that name.
func (t *Transcript) Participant(name string) (Participant, bool) {
	for _, p := range t.Participants {
		if p.Name == name {
			return p, true
		}
	}
	return Participant{}, false
}

// LatestPositions returns each agent's last stance.
func (t *Transcript) LatestPositions() map[string]Position {
	out := map[string]Position{}
	for _, s := range t.Stances {
		out[s.Agent] = s.Position
	}
	return out
}

// Conceded reports whether the author of the argument conceded it in clarification.
func (t *Transcript) Conceded(id string) bool {
	a, ok := t.Argument(id)
	if !ok {
		return false
	}
	for _, c := range t.Arguments {
		if c.Phase == PhaseClarification && c.Target == id && c.Agent == a.Agent && c.Resolution == Conceded {
			return true
		}
	}
	return false
}

// RebuttalsOf returns the rebuttals that target the argument.
func (t *Transcript) RebuttalsOf(id string) []Argument {
	var out []Argument
	for _, a := range t.Arguments {
		if a.Phase == PhaseRebuttal && a.Target == id {
			out = append(out, a)
		}
	}
	return out
}

// Standing reports whether an argument still counts: it is a concern (opening, final or design
// review argument) that its author has not conceded.
func (t *Transcript) Standing(a *Argument) bool {
	switch a.Phase {
	case PhaseOpening, PhaseFinal, PhaseDesignReview:
	default:
		return false
	}
	return !t.Conceded(a.ID)
}

// CarriedStatus says whether an earlier required change was dealt with.
type CarriedStatus string

// Statuses of carried required changes.
const (
	Resolved  CarriedStatus = "resolved"
	StillOpen CarriedStatus = "still_open"
)

// Carried is a required change of an earlier debate.
type Carried struct {
	Text   string        `json:"text" yaml:"text"`
	From   string        `json:"from" yaml:"from"`
	Status CarriedStatus `json:"status" yaml:"status"`
}

// AnswerTo returns the latest clarification in which the author of the argument answered its
// rebuttals.
func (t *Transcript) AnswerTo(id string) (*Argument, bool) {
	a, ok := t.Argument(id)
	if !ok {
		return nil, false
	}
	var last *Argument
	for i := range t.Arguments {
		c := &t.Arguments[i]
		if c.Phase == PhaseClarification && c.Target == id && c.Agent == a.Agent {
			last = c
		}
	}
	return last, last != nil
}

// ResponsesTo returns the challengers' responses to a clarification.
func (t *Transcript) ResponsesTo(id string) []Argument {
	var out []Argument
	for _, a := range t.Arguments {
		if a.Phase == PhaseResponse && a.Target == id {
			out = append(out, a)
		}
	}
	return out
}

// AnswersFor returns the clarifications of a round that the agent, as a challenger, has to
// respond to: answers that partly accepted or rejected an argument it rebutted in that round,
// and that it has not responded to yet. An accepted rebuttal needs no response.
func (t *Transcript) AnswersFor(agent string, round int) []Argument {
	rebutted := map[string]bool{}
	for _, a := range t.Arguments {
		if a.Phase == PhaseRebuttal && a.Agent == agent && a.Round == round {
			rebutted[a.Target] = true
		}
	}
	responded := map[string]bool{}
	for _, a := range t.Arguments {
		if a.Phase == PhaseResponse && a.Agent == agent {
			responded[a.Target] = true
		}
	}
	var out []Argument
	for _, c := range t.Arguments {
		if c.Phase != PhaseClarification || c.Round != round || !rebutted[c.Target] || responded[c.ID] {
			continue
		}
		if c.Answer == AnswerPartial || c.Answer == AnswerReject {
			out = append(out, c)
		}
	}
	return out
}
