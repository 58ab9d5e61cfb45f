package llm

import (
	"errors"
	"fmt"
	"strings"

	"github.com/debatebot/debatebot/review/evidence/scan"
	"github.com/debatebot/debatebot/toulmin"
	"github.com/debatebot/debatebot/voting"
)

// Reply is what a model answers in every phase; its JSON schema is derived from these types and
// sent as the structured-output format. Every field is required and none is nullable, as strict
// structured outputs demand; parts a phase does not use are left empty.
type Reply struct {
	Arguments []ReplyArgument `json:"arguments" jsonschema_description:"Your arguments for this phase, each in the Toulmin form"`
	Position  ReplyPosition   `json:"position" jsonschema_description:"Your stance after this phase"`
	Synthesis ReplySynthesis  `json:"synthesis" jsonschema_description:"Maintainers in the synthesis phase only; empty lists and text otherwise"`
}

// ReplyArgument is one Toulmin argument.
type ReplyArgument struct {
	Target     string         `json:"target" jsonschema_description:"ID of the argument this one answers (rebuttal, clarification, response); empty otherwise"`
	Steelman   string         `json:"steelman" jsonschema_description:"Rebuttal only: the strongest form of the argument you answer, stated before you dispute it; empty otherwise"`
	Claim      string         `json:"claim" jsonschema_description:"What you assert, in one sentence"`
	Grounds    []ReplyGround  `json:"grounds" jsonschema_description:"Facts from the change, each citing path and new-side line"`
	Warrant    string         `json:"warrant" jsonschema_description:"Why the grounds support the claim"`
	Backing    []ReplyBacking `json:"backing" jsonschema_description:"Authoritative references or further evidence for the warrant"`
	Confidence float64        `json:"confidence" jsonschema_description:"How sure you are, 0 to 1"`
	Qualifier  string         `json:"qualifier" jsonschema_description:"What limits your confidence"`
	Rebuttal   string         `json:"rebuttal" jsonschema_description:"The condition under which your claim would not hold"`
	Severity   string         `json:"severity" jsonschema:"enum=info,enum=low,enum=medium,enum=high,enum=critical"`
	Actions    []ReplyAction  `json:"actions" jsonschema_description:"Concrete changes you propose"`
	Answer     string         `json:"answer" jsonschema:"enum=,enum=accept,enum=partial,enum=reject,enum=maintain,enum=escalate" jsonschema_description:"Clarification: accept, partial or reject the rebuttal; response: accept, maintain or escalate the author's answer; empty otherwise"`
	Limit      string         `json:"limit" jsonschema_description:"Clarification with answer partial: where what you accept ends; empty otherwise"`
}

// ReplyGround is one fact with its citation.
type ReplyGround struct {
	Path string `json:"path" jsonschema_description:"File path in the change; empty only when no file applies"`
	Line int    `json:"line" jsonschema_description:"New-side line number shown in the change; 0 with an empty path"`
	Text string `json:"text"`
}

// ReplyBacking supports a warrant.
type ReplyBacking struct {
	Reference string `json:"reference"`
	Evidence  string `json:"evidence"`
}

// ReplyAction is a proposed change.
type ReplyAction struct {
	Text     string `json:"text"`
	Path     string `json:"path"`
	Line     int    `json:"line"`
	Required bool   `json:"required" jsonschema_description:"true when the change must not merge without it"`
	// StartLine, Original and Replacement are the edit itself, when the model writes it: the
	// head's lines StartLine..Line of Path as they read, and the lines that replace them.
	StartLine   int      `json:"start_line" jsonschema_description:"When you write the fix itself: the first new-side line it replaces (line is the last); 0 otherwise"`
	Original    []string `json:"original" jsonschema_description:"When you write the fix: the lines start_line..line exactly as the change shows them, without the diff's prefix; empty otherwise"`
	Replacement []string `json:"replacement" jsonschema_description:"When you write the fix: the lines that replace them, indented as the file is; empty otherwise"`
}

// ReplyPosition is a stance.
type ReplyPosition struct {
	Vote       string   `json:"vote" jsonschema:"enum=approve,enum=approve_with_changes,enum=request_changes,enum=escalate"`
	Confidence float64  `json:"confidence"`
	Reason     string   `json:"reason" jsonschema_description:"Why; say what changed your stance if it changed"`
	Priorities []string `json:"priorities"`
	TradeOffs  []string `json:"trade_offs"`
	Examined   []string `json:"examined" jsonschema_description:"What from your perspective you checked in the change (path:line and the risk), also when you found nothing"`
}

// ReplySynthesis is a maintainer's synthesis.
type ReplySynthesis struct {
	ConsensusPoints []string `json:"consensus_points"`
	Conflicts       []string `json:"conflicts"`
	Resolution      string   `json:"resolution"`
}

// ReplySchema is the JSON schema of Reply for structured outputs.
var ReplySchema = Schema(&Reply{})

// ErrTruncated is a reply cut off by the token limit.
var ErrTruncated = errors.New("the reply was cut off at the token limit")

// ParseReply reads a model's reply. Servers that ignore the schema may wrap the JSON in a code
// fence or prose; the outermost object is taken.
func ParseReply(content string) (*Reply, error) {
	var r Reply
	if err := Decode(content, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// Turn converts the reply into the agent's turn, checking it against the phase: every argument
// must validate, targets must exist (another agent's argument for a rebuttal, one's own for a
// clarification), and the vote must be known. A part that fails is left out of the turn and
// reported among problems, with its place, so that one bad field does not sink the rest.
func (r *Reply) Turn(req *toulmin.Request) (turn *toulmin.Turn, problems []string) {
	turn = &toulmin.Turn{}
	kind := req.Phase.Kind
	for i, ra := range r.Arguments {
		a := toulmin.Argument{
			ID: fmt.Sprintf("arguments[%d]", i), Agent: req.Self.Name, Phase: kind, Round: req.Round,
			Target: strings.TrimSpace(ra.Target), Claim: strings.TrimSpace(ra.Claim), Warrant: strings.TrimSpace(ra.Warrant),
			Qualifier: toulmin.Qualifier{Confidence: ra.Confidence, Text: ra.Qualifier},
			Rebuttal:  ra.Rebuttal, Severity: voting.Severity(ra.Severity), Steelman: strings.TrimSpace(ra.Steelman),
			Answer: toulmin.Answer(strings.TrimSpace(ra.Answer)), Limit: strings.TrimSpace(ra.Limit),
		}
		for _, g := range ra.Grounds {
			a.Grounds = append(a.Grounds, toulmin.Ground{Path: strings.TrimSpace(g.Path), Line: g.Line, Text: g.Text})
		}
		for _, b := range ra.Backing {
			if b.Reference != "" || b.Evidence != "" {
				a.Backing = append(a.Backing, toulmin.Backing{Reference: b.Reference, Evidence: b.Evidence})
			}
		}
		for _, act := range ra.Actions {
			a.Actions = append(a.Actions, toulmin.Action{Text: act.Text, Path: strings.TrimSpace(act.Path), Line: act.Line, Required: act.Required,
				Fix: act.fix(req)})
		}
		if kind == toulmin.PhaseSynthesis {
			a.Synthesis = &toulmin.Synthesis{ConsensusPoints: r.Synthesis.ConsensusPoints, Conflicts: r.Synthesis.Conflicts, Resolution: r.Synthesis.Resolution}
		}
		if !kind.Answers() {
			a.Target = ""
		}
		a.Normalize()
		if err := a.Validate(); err != nil {
			problems = append(problems, err.Error())
			continue
		}
		if a.Target != "" || kind.Answers() {
			if p := targetProblem(req, kind, i, a.Target); p != "" {
				problems = append(problems, p)
				continue
			}
		}
		a.ID = ""
		turn.Arguments = append(turn.Arguments, a)
	}
	vote := voting.Option(r.Position.Vote)
	switch {
	case !vote.Valid():
		problems = append(problems, fmt.Sprintf("position.vote: %q is not one of approve, approve_with_changes, request_changes, escalate", scan.Clip(r.Position.Vote, 40)))
	case r.Position.Confidence < 0 || r.Position.Confidence > 1:
		problems = append(problems, fmt.Sprintf("position.confidence: must be between 0 and 1, got %g", r.Position.Confidence))
	case kind != toulmin.PhaseRebuttal && kind != toulmin.PhaseResponse:
		turn.Position = &toulmin.Position{Vote: vote, Confidence: r.Position.Confidence, Reason: r.Position.Reason,
			Priorities: r.Position.Priorities, TradeOffs: r.Position.TradeOffs, Engaged: nonEmpty(r.Position.Examined)}
	}
	if kind == toulmin.PhaseSynthesis && len(turn.Arguments) == 0 && len(problems) == 0 {
		problems = append(problems, "arguments: a synthesis needs one argument")
	}
	return turn, problems
}

func nonEmpty(items []string) []string {
	var out []string
	for _, s := range items {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// targetProblem checks the target of the i-th argument of a rebuttal, a clarification or a
// response.
func targetProblem(req *toulmin.Request, kind toulmin.PhaseKind, i int, id string) string {
	if id == "" {
		return fmt.Sprintf("arguments[%d].target: a %s must name the argument it answers", i, kind)
	}
	var target *toulmin.Argument
	ok := false
	if req.Transcript != nil {
		target, ok = req.Transcript.Argument(id)
	}
	switch {
	case !ok:
		return fmt.Sprintf("arguments[%d].target: no argument %q in the debate", i, scan.Clip(id, 40))
	case kind == toulmin.PhaseRebuttal && target.Agent == req.Self.Name:
		return fmt.Sprintf("arguments[%d].target: %s is your own argument; rebut other agents' arguments", i, id)
	case kind == toulmin.PhaseClarification && target.Agent != req.Self.Name:
		return fmt.Sprintf("arguments[%d].target: %s is not your argument; clarify your own", i, id)
	case kind == toulmin.PhaseResponse:
		if err := toulmin.CheckResponseTarget(req.Transcript, req.Self.Name, target); err != nil {
			return fmt.Sprintf("arguments[%d].target: %v", i, err)
		}
	}
	return ""
}

// ValidTargets lists the argument ids a reply in this phase may target: other agents' arguments
// for a rebuttal, one's own for a clarification, the answers to one's rebuttals for a response;
// nil in other phases.
func ValidTargets(req *toulmin.Request) []string {
	var out []string
	if req.Phase.Kind == toulmin.PhaseResponse {
		return ResponseTargets(req)
	}
	for _, a := range req.Arguments {
		switch {
		case req.Phase.Kind == toulmin.PhaseRebuttal && a.Agent != req.Self.Name:
		case req.Phase.Kind == toulmin.PhaseClarification && a.Agent == req.Self.Name:
		default:
			continue
		}
		out = append(out, a.ID)
	}
	return out
}

// ResponseTargets lists the answers the agent responds to in this round's response phase: the
// clarifications that partly accepted or rejected its rebuttals.
func ResponseTargets(req *toulmin.Request) []string {
	if req.Transcript == nil {
		return nil
	}
	var out []string
	for _, a := range req.Transcript.AnswersFor(req.Self.Name, req.Round) {
		out = append(out, a.ID)
	}
	return out
}
