package compare

import (
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review/change/changetest"
)

// frameBase copies a close reason into a frame: a string is written, a byte view copied, and
// anything else refused by the final else.
const frameBase = `function closeFrame(code, reason) {
  const buf = Buffer.allocUnsafe(2 + byteLength(reason));
  buf.writeUInt16BE(code, 0);
  if (typeof reason === 'string') {
    buf.write(reason, 2);
  } else if (ArrayBuffer.isView(reason)) {
    buf.set(reason, 2);
  } else {
    throw new TypeError('reason must be a string or a byte view');
  }
  return buf;
}

module.exports = { closeFrame };
`

// An if whose else refuses (if (ok) {...} else {throw}) is a guard as an early exit is: the
// change that drops it and keeps the work it allowed is reported at that work; the same check
// kept as an early exit is not.
func TestElseRefusalRemoved(t *testing.T) {
	head := strings.Replace(frameBase, `  } else if (ArrayBuffer.isView(reason)) {
    buf.set(reason, 2);
  } else {
    throw new TypeError('reason must be a string or a byte view');
  }`, `  } else {
    buf.set(reason, 2);
  }`, 1)
	got, _ := removedFindings(t, changetest.Versions(t, [3]string{"lib/frame.js", frameBase, head}))
	if want := "check-removed@lib/frame.js:7"; strings.Join(got, " ") != want {
		t.Errorf("findings %v, want %s", got, want)
	}

	kept := strings.Replace(frameBase, `  } else if (ArrayBuffer.isView(reason)) {
    buf.set(reason, 2);
  } else {
    throw new TypeError('reason must be a string or a byte view');
  }`, `  } else {
    if (!ArrayBuffer.isView(reason)) throw new TypeError('reason must be a string or a byte view');
    buf.set(reason, 2);
  }`, 1)
	if got, _ := removedFindings(t, changetest.Versions(t, [3]string{"lib/frame.js", frameBase, kept})); len(got) > 0 {
		t.Errorf("check kept as an early exit: findings %v, want none", got)
	}
}

const allowBase = `function open(user, path) {
  let data;
  if (user.admin && path.startsWith('/srv/')) {
    data = read(path);
  } else {
    throw new Error('forbidden');
  }
  return data;
}

module.exports = { open };
`

// The condition of an if whose else refuses says what is allowed: dropping a conjunct loosens
// it (reported), dropping a disjunct narrows it (not reported).
func TestElseRefusalConditionPolarity(t *testing.T) {
	loose := strings.Replace(allowBase, "if (user.admin && path.startsWith('/srv/'))", "if (user.admin)", 1)
	got, _ := removedFindings(t, changetest.Versions(t, [3]string{"lib/open.js", allowBase, loose}))
	if want := "condition-weakened@lib/open.js:3"; strings.Join(got, " ") != want {
		t.Errorf("conjunct dropped: findings %v, want %s", got, want)
	}

	either := strings.Replace(allowBase, "user.admin && path", "user.admin || path", 1)
	narrow := strings.Replace(either, "if (user.admin || path.startsWith('/srv/'))", "if (user.admin)", 1)
	if got, _ := removedFindings(t, changetest.Versions(t, [3]string{"lib/open.js", either, narrow})); len(got) > 0 {
		t.Errorf("disjunct dropped: findings %v, want none", got)
	}
}
