package ir_test

import (
	"encoding/json"
	"testing"

	"github.com/codemode-dev/codemode/ir"
)

// TestToolIDKeysJSON: a ToolID keys a JSON object as "<service>.<wire>"
// (the shape cache's file format) and reads back; the wire name may hold
// dots, the service may not.
func TestToolIDKeysJSON(t *testing.T) {
	m := map[ir.ToolID]string{
		{Service: "github", Wire: "get_issue"}: "a",
		{Service: "api", Wire: "v1.users.get"}: "b",
	}
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"api.v1.users.get":"b","github.get_issue":"a"}`; string(data) != want {
		t.Fatalf("got %s, want %s", data, want)
	}
	var back map[ir.ToolID]string
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if len(back) != 2 || back[ir.ToolID{Service: "api", Wire: "v1.users.get"}] != "b" {
		t.Fatalf("read back %v", back)
	}
	for _, bad := range []string{`{"nodot":"x"}`, `{".x":"x"}`, `{"x.":"x"}`} {
		if err := json.Unmarshal([]byte(bad), &back); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}
