package gateway_test

import "testing"

// TestDirectCallForwardsUndeclaredKeys: a direct-mode call with keys the
// tool's schema never declared is refused before the upstream, as run_tool
// is; server-everything's echo schema has no additionalProperties, so JSON
// Schema alone would let them through.
func TestDirectCallForwardsUndeclaredKeys(t *testing.T) {
	f := newFixture(t, true, nil)
	cs := f.connect(t)
	got, isErr := call(t, cs, "echo", map[string]any{"message": "x", "_meta": map[string]any{"progressToken": 1}, "__proto__": map[string]any{"admin": true}, "admin": true})
	want := "api.everything.echo: unknown arguments '__proto__', '_meta', 'admin'; the arguments are 'message'"
	if !isErr || got != want || f.up.count("echo") != 0 {
		t.Fatalf("direct call: isErr=%v upstream calls=%d\n got: %q\nwant: %q", isErr, f.up.count("echo"), got, want)
	}
}
