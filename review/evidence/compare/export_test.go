package compare

// BaseText exposes baseText to the external tests that read real diffs (review.ReadDiffOnBase).
var BaseText = baseText
