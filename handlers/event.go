package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/palantir/go-githubapp/githubapp"
	"github.com/rs/zerolog"

	"github.com/debatebot/debatebot/review"
)

// Base is what every event handler shares.
type Base struct {
	Queue *Queue
	// Slug is the App's slug, read once at start: its own comments come from "<slug>[bot]".
	Slug string
	// AllowedBots may trigger debates although they are bots.
	AllowedBots []string
}

// fromBot reports whether the sender is a bot whose events are ignored: this App always (it
// cannot loop on its own comments), other bots unless allowed.
func (b *Base) fromBot(u slimUser) bool {
	login := u.Login
	if login == b.Slug+"[bot]" {
		return true
	}
	if u.Type != "Bot" && !strings.HasSuffix(login, "[bot]") {
		return false
	}
	return !slices.Contains(b.AllowedBots, login)
}

// decode reads a delivery's payload into the handler's slim payload type and validates the
// fields it routes on; what cannot be read is a bad delivery.
func decode(payload []byte, v any, event string) error {
	if err := json.Unmarshal(payload, v); err != nil {
		return badDelivery(fmt.Errorf("failed to parse %s payload: %w", event, err))
	}
	if p, ok := v.(interface{ validate() error }); ok {
		if err := p.validate(); err != nil {
			return badDelivery(fmt.Errorf("%s payload: %w", event, err))
		}
	}
	return nil
}

// The handlers decode only the fields they route on: a pull_request payload is 20-30 KB, and
// decoding all of it into go-github's event type is most of the time a delivery takes to
// acknowledge. The runner reads the rest from the API.
type slimUser struct {
	Login string `json:"login"`
	Type  string `json:"type"`
}

type slimRepo struct {
	Name  string `json:"name"`
	Owner struct {
		Login string `json:"login"`
	} `json:"owner"`
}

type slimInstallation struct {
	ID int64 `json:"id"`
}

type slimLabel struct {
	Name string `json:"name"`
}

type slimIssue struct {
	Number      int             `json:"number"`
	Title       string          `json:"title"`
	Body        string          `json:"body"`
	PullRequest json.RawMessage `json:"pull_request"`
}

func (r slimRepo) pr(number int) review.PullRequest {
	return review.PullRequest{Owner: r.Owner.Login, Repo: r.Name, Number: number}
}

func (i slimIssue) isPullRequest() bool {
	return len(i.PullRequest) > 0 && string(i.PullRequest) != "null"
}

// logContext adds what go-githubapp's PreparePRContext would, from the slim payload.
func logContext(ctx context.Context, installation int64, pr review.PullRequest) context.Context {
	l := zerolog.Ctx(ctx).With().Int64(githubapp.LogKeyInstallationID, installation).
		Str(githubapp.LogKeyRepositoryOwner, pr.Owner).Str(githubapp.LogKeyRepositoryName, pr.Repo).
		Int(githubapp.LogKeyPRNum, pr.Number).Logger()
	return l.WithContext(ctx)
}

// Routed fields every handled payload must carry: a signed payload without them is a bad
// delivery (400), not a job that fails later against the API.
var (
	namePattern = regexp.MustCompile(`^[A-Za-z0-9._-]{1,100}$`)
)

func (r slimRepo) validate() error {
	if !namePattern.MatchString(r.Owner.Login) || !namePattern.MatchString(r.Name) {
		return fmt.Errorf("repository %q/%q is not a GitHub repository name", truncate(r.Owner.Login, 64), truncate(r.Name, 64))
	}
	return nil
}

// validateInstalled checks what every handled payload carries: its repository's name and the
// installation id.
func validateInstalled(repo slimRepo, installation int64) error {
	if err := repo.validate(); err != nil {
		return err
	}
	if installation <= 0 {
		return errors.New("no installation id")
	}
	return nil
}

func validateRouted(repo slimRepo, installation int64, number int) error {
	if err := validateInstalled(repo, installation); err != nil {
		return err
	}
	if number <= 0 {
		return fmt.Errorf("no pull request or issue number (%d)", number)
	}
	return nil
}
