package workflow

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/debatebot/debatebot/review/pipeline"
	"github.com/debatebot/debatebot/review/pull"
	"github.com/debatebot/debatebot/toulmin"
)

// actionEvent is the pull request an event asks to debate.
type actionEvent struct {
	number  int
	headSHA string
	trigger string
	// requester and commentID are a /debate command's; protocol its argument.
	requester, protocol string
	commentID           int64
	// action is the pull_request event's action, checked against the configuration's triggers.
	action string
	draft  bool
	sender string
	bot    bool
}

type actionUser struct {
	Login string `json:"login"`
	Type  string `json:"type"`
}

// readActionEvent reads the event payload; skip says why an event is not debated.
func readActionEvent(name, path string) (ev *actionEvent, skip string, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the path is named
		}
		return nil, "", &pipeline.UsageError{Msg: fmt.Sprintf("cannot read the event payload GITHUB_EVENT_PATH=%s: %v", path, err)}
	}
	bad := func(err error) error {
		return &pipeline.UsageError{Msg: fmt.Sprintf("the %s payload at %s is not valid JSON: %v", name, path, err)}
	}
	switch name {
	case "pull_request", "pull_request_target":
		var p struct {
			Action      string `json:"action"`
			PullRequest struct {
				Number int  `json:"number"`
				Draft  bool `json:"draft"`
				Head   struct {
					SHA string `json:"sha"`
				} `json:"head"`
			} `json:"pull_request"`
			Label struct {
				Name string `json:"name"`
			} `json:"label"`
			Sender actionUser `json:"sender"`
		}
		if err := json.Unmarshal(data, &p); err != nil {
			return nil, "", bad(err)
		}
		trigger := name + "." + p.Action
		switch p.Action {
		case "opened", "synchronize", "reopened", "ready_for_review":
		case "labeled":
			if p.Label.Name != "needs-debate" {
				return nil, fmt.Sprintf("%s with the label %q is not debated (only needs-debate starts a debate)", trigger, p.Label.Name), nil
			}
		default:
			return nil, fmt.Sprintf("%s is not debated (opened, synchronize, reopened, ready_for_review and labeled needs-debate are)", trigger), nil
		}
		if p.PullRequest.Number == 0 {
			return nil, "", &pipeline.UsageError{Msg: fmt.Sprintf("the %s payload at %s has no pull_request.number", name, path)}
		}
		return &actionEvent{number: p.PullRequest.Number, headSHA: p.PullRequest.Head.SHA, trigger: trigger, action: p.Action,
			draft: p.PullRequest.Draft, sender: p.Sender.Login, bot: isBot(p.Sender)}, "", nil
	case "issue_comment":
		var p struct {
			Action string `json:"action"`
			Issue  struct {
				Number      int             `json:"number"`
				PullRequest json.RawMessage `json:"pull_request"`
			} `json:"issue"`
			Comment struct {
				ID   int64  `json:"id"`
				Body string `json:"body"`
			} `json:"comment"`
			Sender actionUser `json:"sender"`
		}
		if err := json.Unmarshal(data, &p); err != nil {
			return nil, "", bad(err)
		}
		cmd, arg, ok := pull.ParseCommand(p.Comment.Body)
		switch {
		case p.Action != "created":
			return nil, fmt.Sprintf("issue_comment.%s is not debated (a new /debate comment is)", p.Action), nil
		case !ok:
			return nil, "the comment is no debatebot command", nil
		case len(p.Issue.PullRequest) == 0 || string(p.Issue.PullRequest) == "null":
			return nil, fmt.Sprintf("%s on issue #%d: design debates on issues are the App's, not the action's", cmd, p.Issue.Number), nil
		case cmd != "/debate" || toulmin.CheckpointAction(arg).Valid():
			return nil, fmt.Sprintf("%s needs the App's durable state (checkpoints, human review); the action holds one debate per run", strings.TrimSpace(cmd+" "+arg)), nil
		}
		return &actionEvent{number: p.Issue.Number, trigger: "issue_comment.created", requester: p.Sender.Login, protocol: arg,
			commentID: p.Comment.ID, sender: p.Sender.Login, bot: isBot(p.Sender)}, "", nil
	}
	return nil, fmt.Sprintf("the %s event is not handled (pull_request, pull_request_target and issue_comment are)", name), nil
}

func isBot(u actionUser) bool { return u.Type == "Bot" || strings.HasSuffix(u.Login, "[bot]") }
