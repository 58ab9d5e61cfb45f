package compare

import (
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review/change/changetest"
)

func timerFindings(t *testing.T, files ...[3]string) []string {
	t.Helper()
	got, _ := analyzerFindings(t, TimerAnalyzer{}, changetest.Versions(t, files...))
	return got
}

const pollerBase = `export class Poller {
  private timer?: ReturnType<typeof setTimeout>;

  start(conn: Conn): void {
    this.timer = setTimeout(() => {
      conn.end();
    }, 1000);
  }

  stopTimer(): void {
    clearTimeout(this.timer);
  }

  onClose(): void {
    this.closed = true;
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    this.emit("close");
  }
}
`

// A timer's clearing removed from a close handler while the class still arms the timer is
// reported where it was; the same clearing moved into a helper the handler calls, left on
// another line of the handler, or removed with the timer itself, is not.
func TestTimerClearingRemoved(t *testing.T) {
	removed := strings.Replace(pollerBase, `    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
`, "", 1)
	if got := timerFindings(t, [3]string{"src/poller.ts", pollerBase, removed}); strings.Join(got, " ") != "release-removed@src/poller.ts:16" {
		t.Errorf("findings %v, want release-removed@src/poller.ts:16", got)
	}

	helper := strings.Replace(pollerBase, `    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
`, "    this.stopTimer();\n", 1)
	kept := strings.Replace(pollerBase, `    this.emit("close");`, `    this.emit("close");
    clearTimeout(this.timer);`, 1)
	kept = strings.Replace(kept, `      clearTimeout(this.timer);
      this.timer = undefined;`, `      this.timer = undefined;`, 1)
	noTimer := strings.NewReplacer(`    this.timer = setTimeout(() => {
      conn.end();
    }, 1000);
`, "    conn.end();\n", `    clearTimeout(this.timer);
`, "", `    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
`, "").Replace(pollerBase)
	for name, head := range map[string]string{"helper": helper, "kept": kept, "no timer": noTimer} {
		if got := timerFindings(t, [3]string{"src/poller.ts", pollerBase, head}); len(got) > 0 {
			t.Errorf("%s: findings %v, want none", name, got)
		}
	}
}

const cacheBase = `function makeCache(ttl) {
  const timers = []
  const starts = []
  const set = (i) => {
    starts[i] = Date.now()
    const t = setTimeout(() => expire(i), ttl)
    timers[i] = t
  }
  const touch = (i) => {
    starts[i] = Date.now()
    if (timers[i]) {
      clearTimeout(timers[i])
      timers[i] = setTimeout(() => expire(i), ttl)
    }
  }
  return { set, touch }
}
module.exports = makeCache
`

// A timer kept in an array is recognised through its local alias: the rescheduling removed from
// touch is reported, though set, a few lines above, still clears nothing and arms through t.
// The clearing moved to an added line of another file is not reported.
func TestTimerClearingRemovedFromArray(t *testing.T) {
	head := strings.Replace(cacheBase, `    if (timers[i]) {
      clearTimeout(timers[i])
      timers[i] = setTimeout(() => expire(i), ttl)
    }
`, "", 1)
	if got := timerFindings(t, [3]string{"lib/cache.js", cacheBase, head}); strings.Join(got, " ") != "release-removed@lib/cache.js:11" {
		t.Errorf("findings %v, want release-removed@lib/cache.js:11", got)
	}
	other := [3]string{"lib/reset.js", "module.exports = () => {}\n", "module.exports = (timers, i) => { clearTimeout(timers[i]) }\n"}
	if got := timerFindings(t, [3]string{"lib/cache.js", cacheBase, head}, other); len(got) > 0 {
		t.Errorf("moved: findings %v, want none", got)
	}
}

// jsBlocks tells function bodies (with their names) from statements' blocks and object literals,
// in JavaScript and in TypeScript with return types.
func TestJSBlocks(t *testing.T) {
	src := `function a(x) { if (x) { return {k: 1} } }
const b = (y) => { for (;;) { break } }
class C { m(z: number): Promise<void> { try { } catch (e) { } } }
`
	var got []string
	for _, b := range jsBlocks([]byte(src)) {
		if b.Func {
			got = append(got, "fn:"+b.Name)
		} else {
			got = append(got, "block")
		}
	}
	want := "fn:a block block fn: block block fn:m block block"
	if strings.Join(got, " ") != want {
		t.Errorf("blocks %v, want %s", got, want)
	}
}
