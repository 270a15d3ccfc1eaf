package gateway_test

import "flag"

// update makes TestTranscripts rewrite testdata/transcripts (read through
// golden.Updating).
var _ = flag.Bool("update", false, "rewrite golden files instead of comparing")
