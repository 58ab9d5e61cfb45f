package dashboard

import (
	"context"
	"strings"

	"github.com/debatebot/debatebot/store"
)

// olderPerPull bounds the earlier debates folded under a pull request in the list.
const olderPerPull = 10

// pullGroup is one pull request in the list: its latest debate, and its earlier ones folded
// under it, newest first.
type pullGroup struct {
	Head  listRow
	Older []listRow
	// More counts the earlier debates beyond those folded.
	More int
}

// groupByPull groups a page of debates, newest first, by pull request, in the order their
// latest debates come: a pull request's first row is its head, later ones are its history.
func groupByPull(rows []store.Listed) ([]store.Pull, map[store.Pull][]store.Listed) {
	var order []store.Pull
	by := map[store.Pull][]store.Listed{}
	for _, l := range rows {
		p := store.Pull{Repository: l.Repository, Number: l.PRNumber}
		if _, ok := by[p]; !ok {
			order = append(order, p)
		}
		by[p] = append(by[p], l)
	}
	return order, by
}

// pullGroups turns a page of the list into pull requests, each with its earlier debates read
// from the store (those older than the oldest on the page).
func (d *Dashboard) pullGroups(ctx context.Context, rows []store.Listed) ([]pullGroup, error) {
	order, by := groupByPull(rows)
	oldest := make(map[store.Pull]store.Listed, len(order))
	for _, p := range order {
		ls := by[p]
		oldest[p] = ls[len(ls)-1]
	}
	older, totals, err := d.cfg.Store.Older(ctx, oldest, olderPerPull)
	if err != nil {
		return nil, err
	}
	groups := make([]pullGroup, 0, len(order))
	for _, p := range order {
		ls := by[p]
		g := pullGroup{Head: d.listRow(ls[0])}
		for _, l := range append(ls[1:], older[p]...) {
			g.Older = append(g.Older, d.listRow(l))
		}
		g.More = totals[p] - len(older[p])
		groups = append(groups, g)
	}
	return groups, nil
}

// listRow is a listed debate as its row shows it, linked to its pull request on GitHub.
func (d *Dashboard) listRow(l store.Listed) listRow {
	row := toRow(l)
	row.GitHub = d.githubURL(l.Repository, l.PRNumber)
	return row
}

// statusClass is the status badge's class: the status's first word.
func statusClass(status string) string {
	word, _, _ := strings.Cut(status, " ")
	return "s-" + word
}
