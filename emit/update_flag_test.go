package emit_test

import "flag"

// -update rewrites golden files (the golden package reads it by name).
var _ = flag.Bool("update", false, "rewrite golden files instead of comparing")
