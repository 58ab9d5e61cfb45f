package compare

import "testing"

// A removed early exit that did only what head still does after it (the same call, then return)
// is a shortcut: without it every case takes the general path and its checks (without
// shortcutKept this reports protection-removed at the new URL line).
func TestRemovedShortcut(t *testing.T) {
	base := `function back(res, target) {
  if (target) {
    if (target.startsWith('/')) {
      res.redirect(target);
      return;
    }
    const url = new URL(target, res.origin);
    if (url.host === res.host) {
      res.redirect(target);
      return;
    }
  }
  res.redirect('/');
}
`
	head := `function back(res, target) {
  if (target) {
    const url = new URL(target, res.origin);
    if (url.host === res.host) {
      res.redirect(target);
      return;
    }
  }
  res.redirect('/');
}
`
	runRemovedCases(t, []removedCase{{name: "shortcut", files: [][3]string{{"lib/back.js", base, head}}}})
}
