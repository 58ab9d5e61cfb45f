package dashboard

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/google/go-github/v62/github"
	"github.com/rs/zerolog"

	"github.com/debatebot/debatebot/review/evidence/redact"
	"github.com/debatebot/debatebot/store"
)

// dismissalRow is a dismissal as the page shows it.
type dismissalRow struct {
	store.Dismissal
	// GitHub is the dismissing reply on GitHub; PR the pull request's page.
	GitHub, PR string
}

type dismissalGroup struct {
	Repository string
	Rows       []dismissalRow
}

type dismissalsData struct {
	Viewer       *viewer
	Groups       []dismissalGroup
	Repositories []string
	Repository   string
	Notice       string
}

// dismissals is GET /dismissals: the findings maintainers dismissed in the repositories the
// viewer can read, grouped by repository (filtered by ?repo=), newest first, each with an undo
// button.
func (d *Dashboard) dismissals(w http.ResponseWriter, r *http.Request, v *viewer) {
	ctx := r.Context()
	all, err := d.cfg.Store.DismissalRepositories(ctx)
	if err != nil {
		d.errorPage(w, http.StatusServiceUnavailable, "The store is unavailable", err.Error())
		return
	}
	readable, err := d.readable(ctx, v, all)
	data := dismissalsData{Viewer: v, Repositories: readable, Repository: r.URL.Query().Get("repo")}
	if err != nil {
		data.Notice = "GitHub did not answer for some repositories; their dismissals are not shown."
	}
	shown := readable
	if data.Repository != "" {
		shown = nil
		if slices.Contains(readable, data.Repository) {
			shown = []string{data.Repository}
		}
	}
	list, err := d.cfg.Store.Dismissals(ctx, shown)
	if err != nil {
		d.errorPage(w, http.StatusServiceUnavailable, "The store is unavailable", err.Error())
		return
	}
	for _, x := range list {
		x.Reason, x.Excerpt = redact.Redact(x.Reason), redact.Redact(x.Excerpt)
		row := dismissalRow{Dismissal: x, GitHub: safeLink(x.CommentURL)}
		if x.PRNumber > 0 {
			row.PR = d.githubURL(x.Repository, x.PRNumber)
		}
		i := slices.IndexFunc(data.Groups, func(g dismissalGroup) bool { return g.Repository == x.Repository })
		if i < 0 {
			data.Groups = append(data.Groups, dismissalGroup{Repository: x.Repository})
			i = len(data.Groups) - 1
		}
		data.Groups[i].Rows = append(data.Groups[i].Rows, row)
	}
	slices.SortStableFunc(data.Groups, func(a, b dismissalGroup) int { return strings.Compare(a.Repository, b.Repository) })
	d.render(w, http.StatusOK, "dismissals.html", data)
}

// safeLink is a link to GitHub kept from a reply, or "" when it is not an https URL.
func safeLink(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "https" || u.Host == "" {
		return ""
	}
	return u.String()
}

// undoDismissal is POST /dismissals/undo: a viewer with write access to the repository forgets
// a dismissal, so that the repository's next debates raise the finding again.
func (d *Dashboard) undoDismissal(w http.ResponseWriter, r *http.Request, v *viewer) {
	ctx := r.Context()
	if !d.seal.checkCSRF(v.sess, r.PostFormValue("csrf")) {
		d.errorPage(w, http.StatusForbidden, "Not undone", "The form's CSRF token does not match your session. Reload the page and try again.")
		return
	}
	repo, fp := r.PostFormValue("repo"), r.PostFormValue("fingerprint")
	if repo == "" || fp == "" {
		d.errorPage(w, http.StatusBadRequest, "Not undone", "The form names no repository or no finding. Reload the page and try again.")
		return
	}
	ok, have, err := d.canWrite(ctx, v, repo)
	switch {
	case err != nil:
		d.errorPage(w, http.StatusBadGateway, "Not undone", err.Error())
		return
	case !ok && have == "":
		d.errorPage(w, http.StatusNotFound, "Not found", "There is no such dismissal, or you cannot read its repository.")
		return
	case !ok:
		d.errorPage(w, http.StatusForbidden, "Not undone", fmt.Sprintf("Undoing a dismissal in %s needs write permission; you have %s. Nothing was changed.", repo, have))
		return
	}
	undone, err := d.cfg.Store.Undismiss(ctx, repo, fp)
	if err != nil {
		d.errorPage(w, http.StatusServiceUnavailable, "Not undone", err.Error())
		return
	}
	if !undone {
		d.errorPage(w, http.StatusNotFound, "Not found", "There is no such dismissal (it may have been undone already). Nothing was changed.")
		return
	}
	zerolog.Ctx(ctx).Info().Str("repository", repo).Str("fingerprint", fp).Str("login", v.sess.Login).Msg("Undid a dismissal from the dashboard.")
	http.Redirect(w, r, sameOriginPath("/dismissals?repo="+url.QueryEscape(repo)), http.StatusSeeOther)
}

// canWrite asks GitHub, with the viewer's own token and at once (an undo is rare and must not
// rest on a remembered answer), whether the viewer may write to the repository. have is the
// viewer's permission, "" when the viewer cannot read it at all.
func (d *Dashboard) canWrite(ctx context.Context, v *viewer, repository string) (ok bool, have string, err error) {
	owner, name, found := splitRepo(repository)
	if !found {
		return false, "", nil
	}
	repo, _, err := d.userClient(v.token).Repositories.Get(ctx, owner, name)
	var er *github.ErrorResponse
	switch {
	case errors.As(err, &er) && er.Response != nil && (er.Response.StatusCode == http.StatusNotFound || er.Response.StatusCode == http.StatusForbidden):
		return false, "", nil
	case err != nil:
		return false, "", fmt.Errorf("failed to ask GitHub whether %s may write to %s: %w", v.sess.Login, repository, err)
	}
	p := repo.GetPermissions()
	for _, role := range []string{"admin", "maintain", "push"} {
		if p[role] {
			return true, role, nil
		}
	}
	if p["triage"] {
		return false, "triage", nil
	}
	return false, "read", nil
}

func splitRepo(repository string) (owner, name string, ok bool) {
	owner, name, ok = strings.Cut(repository, "/")
	return owner, name, ok && owner != "" && name != "" && !strings.Contains(name, "/")
}
