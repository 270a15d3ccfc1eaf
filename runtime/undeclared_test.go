package runtime_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemode-dev/codemode/internal/testpack"
	"github.com/codemode-dev/codemode/readgate"
	"github.com/codemode-dev/codemode/runtime"
)

// recorder is a real MCP server over streamable HTTP that answers every
// call with the argument keys it received, and remembers them.
type recorder struct {
	mu       sync.Mutex
	received []string // "tool: sorted keys as JSON"
}

func (r *recorder) got() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.received...)
}

func newRecorder(t *testing.T) (*recorder, string) {
	t.Helper()
	rec := &recorder{}
	srv := mcp.NewServer(&mcp.Implementation{Name: "rec", Version: "1"}, nil)
	for _, tl := range []*mcp.Tool{
		{Name: "record", Description: "Record a message.", InputSchema: map[string]any{
			"type": "object", "properties": map[string]any{"message": map[string]any{"type": "string"}}, "required": []any{"message"}}},
		{Name: "record_open", Description: "Record a message and any extra fields.", InputSchema: map[string]any{
			"type": "object", "properties": map[string]any{"message": map[string]any{"type": "string"}}, "additionalProperties": true}},
	} {
		srv.AddTool(tl, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var args map[string]any
			_ = json.Unmarshal(req.Params.Arguments, &args)
			keys, _ := json.Marshal(sortedKeys(args))
			line := req.Params.Name + ": " + string(keys)
			rec.mu.Lock()
			rec.received = append(rec.received, line)
			rec.mu.Unlock()
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: line}}}, nil
		})
	}
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(ts.Close)
	return rec, ts.URL
}

func sortedKeys(m map[string]any) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func newRecorderRuntime(t *testing.T, noTypeCheck bool) (*runtime.Runtime, *recorder) {
	t.Helper()
	rec, url := newRecorder(t)
	p := testpack.Build(t, t.TempDir(), "out: api\nservices:\n  - name: rec\n    mcp_url: "+url+"\n")
	rt, err := p.OpenRuntime(context.Background(), func(c *runtime.Config) {
		c.ReadGate = readgate.Off
		c.Limits.Time = 5 * time.Second
		c.NoTypeCheck = noTypeCheck
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	return rt, rec
}

// TestRunToolForwardsUndeclaredKeys pins the bug where run_tool sent keys
// the tool's schema never declared (_meta, __proto__, admin) to the
// upstream: they are refused with a TypeError naming them and the
// arguments the tool takes, and nothing reaches the upstream; a schema
// that allows extra keys still gets them.
func TestRunToolForwardsUndeclaredKeys(t *testing.T) {
	rt, rec := newRecorderRuntime(t, false)
	res := run(t, rt, `
try:
    run_tool("record", {"message": "hi", "_meta": {"progressToken": 1}, "__proto__": {"admin": True}, "admin": True})
except TypeError as e:
    print(e)
try:
    run_tool("record", {"mesage": "hi"})
except TypeError as e:
    print(e)
print(run_tool("record", {"message": "hi"}))
print(run_tool("record_open", {"message": "hi", "admin": True}))
`)
	want := "api.rec.record: unknown arguments '__proto__', '_meta', 'admin'; the arguments are 'message'\n" +
		"api.rec.record: unknown argument 'mesage'; the arguments are 'message'. Did you mean 'message'?\n" +
		"record: [\"message\"]\n" +
		"record_open: [\"admin\",\"message\"]\n" +
		"[4 tool calls, 2 failed]\n"
	if res.Text() != want || res.Error != "" {
		t.Errorf("output:\n%s\nwant:\n%s", res.Text(), want)
	}
	if got := strings.Join(rec.got(), "\n"); got != "record: [\"message\"]\nrecord_open: [\"admin\",\"message\"]" {
		t.Errorf("upstream received:\n%s", got)
	}
	if res.Calls[0].Status != "invalid" {
		t.Errorf("call record: %+v", res.Calls[0])
	}
}

// TestCallForwardsUndeclaredKeys: Runtime.Call (the Go client and the
// gateway's direct mode) goes through the same check.
func TestCallForwardsUndeclaredKeys(t *testing.T) {
	rt, rec := newRecorderRuntime(t, false)
	res, err := rt.Call(context.Background(), "s1", "rec.record", map[string]any{"message": "hi", "admin": true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != "invalid" || res.Message != "api.rec.record: unknown argument 'admin'; the arguments are 'message'" {
		t.Errorf("Call: %+v", res)
	}
	res, err = rt.Call(context.Background(), "s1", "record_open", map[string]any{"message": "hi", "admin": true})
	if err != nil || res.Status != "ok" {
		t.Fatalf("Call record_open: %v %+v", err, res)
	}
	if got := strings.Join(rec.got(), "\n"); got != "record_open: [\"admin\",\"message\"]" {
		t.Errorf("upstream received:\n%s", got)
	}
}

// TestKeywordCallCannotPassUndeclaredKeys: the generated api.<svc>.<tool>
// path refuses an undeclared keyword before anything runs (type check), and
// without the type check the binder refuses it, a ** splat included.
func TestKeywordCallCannotPassUndeclaredKeys(t *testing.T) {
	rt, rec := newRecorderRuntime(t, false)
	res := run(t, rt, "api.rec.record(message='hi', admin=True)\n")
	if want := "Type check failed, nothing ran:\nprogram.py:1:30: error[unknown-argument] Argument `admin` does not match any known parameter of bound method `_svc_rec.record`"; !strings.HasPrefix(res.Error, want) || len(res.Calls) != 0 {
		t.Errorf("type-checked program: %q, %d calls", res.Error, len(res.Calls))
	}
	rt, rec2 := newRecorderRuntime(t, true)
	res = run(t, rt, `
try:
    api.rec.record(message="hi", admin=True)
except TypeError as e:
    print(e)
try:
    api.rec.record(message="hi", **{"__proto__": 1})
except TypeError as e:
    print(e)
`)
	want := "api.rec.record() got an unexpected keyword argument 'admin'. Signature: api.rec.record(message: str) -> Any\n" +
		"api.rec.record() got an unexpected keyword argument '__proto__'. Signature: api.rec.record(message: str) -> Any\n" +
		"[2 tool calls, 2 failed]\n"
	if res.Text() != want {
		t.Errorf("output:\n%s\nwant:\n%s", res.Text(), want)
	}
	if got := append(rec.got(), rec2.got()...); len(got) != 0 {
		t.Errorf("upstream received: %v", got)
	}
}
