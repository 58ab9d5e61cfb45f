package dashboard_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// debateScreenshots are the screenshots TestBrowserDebatePage takes, committed in
// testdata/screenshots.
var debateScreenshots = []string{"8-debate-opens-with-decision", "9-list-by-pull-request", "10-metrics-verdicts"}

// positions are where the debate page's parts are, in CSS pixels from the top of the page.
type positions struct {
	Verdict       float64 `json:"verdict"`
	Required      float64 `json:"required"`
	Findings      float64 `json:"findings"`
	FirstArgument float64 `json:"firstArgument"`
	Height        float64 `json:"height"`
	Viewport      float64 `json:"viewport"`
	FirstLink     string  `json:"firstLink"`
}

const measure = `(() => {
  const top = s => { const el = document.querySelector(s); return el ? el.getBoundingClientRect().top + window.scrollY : -1; };
  const link = document.querySelector("#findings a");
  return {verdict: top("#verdict"), required: top("#required"), findings: top("#findings"), firstArgument: top("article.arg"),
    height: document.documentElement.scrollHeight, viewport: window.innerHeight, firstLink: link ? link.href : ""};
})()`

// A person opens a long debate's page in a browser: the decision, the required changes and the
// findings are on the first screen, above the first argument (positions read from the DOM).
// The list folds a pull request's earlier debates, and the metrics judge their rates. The
// screenshots are committed in testdata/screenshots; refresh them with
// DEBATEBOT_UPDATE_SCREENSHOTS=1 go test -run TestBrowserDebatePage ./dashboard.
func TestBrowserDebatePage(t *testing.T) {
	path := chromium(t)
	e := newEnvWith(t, seedHistory)
	e.gh.SignInAs("alice")

	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), browserOptions(t, path)...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancelTime := context.WithTimeout(ctx, 2*time.Minute)
	defer cancelTime()

	committed := filepath.Join("testdata", "screenshots")
	dir := t.TempDir()
	if os.Getenv("DEBATEBOT_UPDATE_SCREENSHOTS") != "" {
		dir = committed
	}
	shot, run := screenshots(dir), browse(t, ctx)

	var at positions
	run("sign in and open the debate",
		chromedp.Navigate(e.url+"/debates/shop-debate"),
		chromedp.WaitVisible("#verdict", chromedp.ByQuery),
		chromedp.Evaluate(measure, &at),
		shot(debateScreenshots[0]),
	)
	t.Logf("debate page: decision at %.0fpx, required changes at %.0fpx, findings at %.0fpx, first argument at %.0fpx, page %.0fpx high, screen %.0fpx",
		at.Verdict, at.Required, at.Findings, at.FirstArgument, at.Height, at.Viewport)
	if at.Verdict < 0 || at.Required < 0 || at.Findings < 0 || at.FirstArgument < 0 {
		t.Fatalf("the page lacks a part: %+v", at)
	}
	if !(at.Verdict < at.Required && at.Required < at.Findings && at.Findings < at.FirstArgument) {
		t.Errorf("the decision, required changes and findings are not above the first argument, in that order: %+v", at)
	}
	if at.Findings >= at.Viewport {
		t.Errorf("the findings start at %.0fpx, below the first screen (%.0fpx)", at.Findings, at.Viewport)
	}
	if at.Height < 3*at.Viewport {
		t.Errorf("the debate is %.0fpx high: too short to show that the decision leads a long page", at.Height)
	}
	if want := "/acme/shop/blob/" + headSHA + "/internal/export/users.go#L30"; !strings.HasSuffix(at.FirstLink, want) {
		t.Errorf("the first finding links to %q, want …%s", at.FirstLink, want)
	}

	var folded, unfolded bool
	run("the list, with #7's earlier debates unfolded",
		chromedp.Navigate(e.url+"/"),
		chromedp.WaitVisible("#debates", chromedp.ByQuery),
		chromedp.Evaluate(`!document.querySelector("tr.history details").open && !document.querySelector('a[href="/debates/shop-older-1"]').checkVisibility()`, &folded),
		chromedp.Click("tr.history summary", chromedp.ByQuery),
		chromedp.WaitVisible(`a[href="/debates/shop-older-1"]`, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelector('a[href="/debates/shop-older-1"]').checkVisibility()`, &unfolded),
		shot(debateScreenshots[1]),
	)
	if !folded || !unfolded {
		t.Errorf("#7's earlier debates are not folded until asked (folded %v, then shown %v)", folded, unfolded)
	}

	var verdict string
	run("the metrics",
		chromedp.Navigate(e.url+"/metrics-overview"),
		chromedp.WaitVisible("#costs", chromedp.ByQuery),
		chromedp.Evaluate(`[...document.querySelectorAll('g.rate')].filter(g => g.querySelector('title').textContent.startsWith('auto-escalation: 100%')).map(g => g.dataset.verdict).join()`, &verdict),
		shot(debateScreenshots[2]),
	)
	if verdict != "poor" {
		t.Errorf("100%% automatic escalations are judged %q in the browser, want poor", verdict)
	}

	for _, name := range debateScreenshots {
		if _, err := os.Stat(filepath.Join(committed, name+".png")); err != nil {
			t.Errorf("the screenshot %s is not committed (%v): run DEBATEBOT_UPDATE_SCREENSHOTS=1 go test -run TestBrowserDebatePage ./dashboard", name, err)
		}
	}
}
