package upstream

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/codemode-dev/codemode/internal/testmcp"
	"github.com/codemode-dev/codemode/internal/testpeer"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/manifest"
)

// The test binary doubles as a stdio MCP server (a real child process whose
// tools the tests control) when this variable is set.
const testServerEnv = "CODEMODE_UPSTREAM_TEST_SERVER"

func TestMain(m *testing.M) {
	if mode := os.Getenv("CODEMODE_TESTMCP"); mode != "" {
		os.Exit(testmcp.Main([]string{mode}))
	}
	if os.Getenv("CODEMODE_T_PARENT") == "1" {
		runParent()
		return
	}
	if os.Getenv(testServerEnv) == "1" {
		runTestServer()
		return
	}
	os.Exit(m.Run())
}

// runTestServer serves tools over stdio. block_read (read-only) and
// block_write append a line to $COUNTER_FILE and, on the first invocation
// across all server processes, block until killed; later ones answer
// "ok <pid>".
func runTestServer() {
	s := mcp.NewServer(&mcp.Implementation{Name: "upstream-test", Version: "1"}, nil)
	type in struct{}
	block := func(ctx context.Context, _ *mcp.CallToolRequest, _ in) (*mcp.CallToolResult, any, error) {
		f, err := os.OpenFile(os.Getenv("COUNTER_FILE"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		if err != nil {
			return nil, nil, err
		}
		fmt.Fprintf(f, "%d\n", os.Getpid())
		f.Close()
		b, _ := os.ReadFile(os.Getenv("COUNTER_FILE"))
		if strings.Count(string(b), "\n") == 1 {
			select {} // wait to be killed
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok " + strconv.Itoa(os.Getpid())}}}, nil, nil
	}
	mcp.AddTool(s, &mcp.Tool{Name: "block_read", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, block)
	mcp.AddTool(s, &mcp.Tool{Name: "block_write"}, block)
	mcp.AddTool(s, &mcp.Tool{Name: "env"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ in) (*mcp.CallToolResult, any, error) {
		env := os.Environ()
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Join(env, "\n")}}}, nil, nil
	})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// nodeBin finds an npm peer or fails the test.
func nodeBin(t *testing.T, name string) string {
	t.Helper()
	p, err := testpeer.NodeBin(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// tool builds a manifest entry by hand, as the compiler would.
func tool(wire string, ann ir.Annotations, args ...string) *manifest.Tool {
	t := &manifest.Tool{Wire: ir.WireName(wire), Annotations: ann}
	for _, a := range args {
		t.Params = append(t.Params, manifest.Param{Arg: a, Wire: ir.WireName(a), In: ir.InArg})
	}
	return t
}

var readOnly = ir.Annotations{ReadOnly: true, Idempotent: true}

func ctxT(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func mustEnv(t *testing.T, extra map[string]string) []string {
	t.Helper()
	env, err := ServerEnv(extra)
	if err != nil {
		t.Fatal(err)
	}
	return env
}

// jsonOf renders v canonically for exact comparisons.
func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func call(t *testing.T, u Upstream, ctx context.Context, tl *manifest.Tool, args map[string]any) *Result {
	t.Helper()
	r, err := u.Call(ctx, tl, args)
	if err != nil {
		t.Fatalf("%s: %v", tl.Wire, err)
	}
	return r
}

func startEverything(t *testing.T, extra map[string]string) *MCP {
	t.Helper()
	u := NewMCPCommand([]string{nodeBin(t, "mcp-server-everything"), "stdio"}, mustEnv(t, extra))
	t.Cleanup(func() { u.Close() })
	return u
}

func TestEverythingStdio(t *testing.T) {
	ctx := ctxT(t, 60*time.Second)
	t.Setenv("CODEMODE_TEST_SECRET", "s3cret")
	u := startEverything(t, map[string]string{"GREETING": "hi", "SECRET": "$CODEMODE_TEST_SECRET"})

	r := call(t, u, ctx, tool("echo", readOnly, "message"), map[string]any{"message": "hello, world"})
	if r.IsError || r.Value != "Echo: hello, world" {
		t.Fatalf("echo: %#v", r)
	}

	r = call(t, u, ctx, tool("get-sum", readOnly, "a", "b"), map[string]any{"a": json.Number("2"), "b": json.Number("40")})
	if r.IsError || r.Value != "The sum of 2 and 40 is 42." {
		t.Fatalf("get-sum: %#v", r)
	}

	// structuredContent wins over the text block, numbers are json.Number.
	r = call(t, u, ctx, tool("get-structured-content", readOnly, "location"), map[string]any{"location": "Chicago"})
	want := map[string]any{"temperature": json.Number("36"), "conditions": "Light rain / drizzle", "humidity": json.Number("82")}
	if r.IsError || !reflect.DeepEqual(r.Value, want) {
		t.Fatalf("get-structured-content: %#v", r.Value)
	}

	// Several content items → a list; an image → a dict.
	r = call(t, u, ctx, tool("get-annotated-message", readOnly, "messageType", "includeImage"), map[string]any{"messageType": "success", "includeImage": true})
	list, ok := r.Value.([]any)
	if !ok || len(list) != 2 || list[0] != "Operation completed successfully" {
		t.Fatalf("get-annotated-message: %#v", r.Value)
	}
	img, ok := list[1].(map[string]any)
	if !ok || img["type"] != "image" || img["mimeType"] != "image/png" || !strings.HasPrefix(img["data"].(string), "iVBORw0KGgo") || len(img) != 3 {
		t.Fatalf("image item: %#v", list[1])
	}

	// An embedded resource between two texts.
	r = call(t, u, ctx, tool("get-resource-reference", readOnly, "resourceType", "resourceId"), map[string]any{"resourceType": "Text", "resourceId": json.Number("2")})
	list, ok = r.Value.([]any)
	if !ok || len(list) != 3 || list[0] != "Returning resource reference for Resource 2:" {
		t.Fatalf("get-resource-reference: %#v", r.Value)
	}
	res, _ := list[1].(map[string]any)
	text, _ := res["text"].(string)
	if res["type"] != "resource" || res["uri"] != "demo://resource/dynamic/text/2" || res["mimeType"] != "text/plain" ||
		!strings.HasPrefix(text, "Resource 2: This is a plaintext resource created at ") || len(res) != 4 {
		t.Fatalf("resource item: %#v", list[1])
	}
	if list[2] != "You can access this resource using the URI: demo://resource/dynamic/text/2" {
		t.Fatalf("last item: %#v", list[2])
	}

	// An error result: the tool throws on a bad resourceType.
	r = call(t, u, ctx, tool("get-resource-reference", readOnly, "resourceType", "resourceId"), map[string]any{"resourceType": "Bogus", "resourceId": json.Number("1")})
	wantMsg := `MCP error -32602: Input validation error: Invalid arguments for tool get-resource-reference: Invalid option: expected one of "Text"|"Blob" at resourceType`
	if !r.IsError || r.Status != 0 || r.Message != wantMsg || r.Value != wantMsg {
		t.Fatalf("error result: %#v", r)
	}

	// The server sees only PATH, HOME and the pack's env, "$VAR" resolved.
	r = call(t, u, ctx, tool("get-env", readOnly), nil)
	env, ok := r.Value.(map[string]any)
	if !ok {
		t.Fatalf("get-env: %#v", r.Value)
	}
	if env["GREETING"] != "hi" || env["SECRET"] != "s3cret" || env["PATH"] != os.Getenv("PATH") {
		t.Fatalf("env: %#v", env)
	}
	for k := range env {
		switch k {
		case "PATH", "HOME", "GREETING", "SECRET":
		default:
			// node may add nothing of its own; anything else leaked from us
			if _, leaked := os.LookupEnv(k); leaked {
				t.Errorf("server saw codemode's %s", k)
			}
		}
	}

	// An unknown tool: this server answers with an error result; either way
	// the session is not mistaken for a dead one.
	r = call(t, u, ctx, tool("no-such-tool", readOnly), nil)
	if !r.IsError || r.Message != "MCP error -32602: Tool no-such-tool not found" {
		t.Fatalf("unknown tool: %#v", r)
	}
	if u.starts != 1 {
		t.Fatalf("server started %d times", u.starts)
	}
}

func TestServerEnvMissing(t *testing.T) {
	_, err := ServerEnv(map[string]string{"TOKEN": "$CODEMODE_SURELY_UNSET_VAR"})
	if err == nil || err.Error() != "env TOKEN: environment variable CODEMODE_SURELY_UNSET_VAR is not set" {
		t.Fatalf("err = %v", err)
	}
	t.Setenv("CODEMODE_BRACED", "v")
	env, err := ServerEnv(map[string]string{"A": "${CODEMODE_BRACED}", "B": "plain"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"A=v", "B=plain"}
	if h, ok := os.LookupEnv("HOME"); ok {
		want = append(want, "HOME="+h)
	}
	if p, ok := os.LookupEnv("PATH"); ok {
		want = append(want, "PATH="+p)
	}
	if !reflect.DeepEqual(env, want) {
		t.Fatalf("env = %q, want %q", env, want)
	}
}

func TestMemoryStdio(t *testing.T) {
	ctx := ctxT(t, 60*time.Second)
	file := filepath.Join(t.TempDir(), "memory.jsonl")
	u := NewMCPCommand([]string{nodeBin(t, "mcp-server-memory")}, mustEnv(t, map[string]string{"MEMORY_FILE_PATH": file}))
	t.Cleanup(func() { u.Close() })

	create := tool("create_entities", ir.Annotations{}, "entities")
	readGraph := tool("read_graph", readOnly)
	r := call(t, u, ctx, create, map[string]any{"entities": []any{
		map[string]any{"name": "Ada", "entityType": "person", "observations": []any{"wrote the first program"}},
		map[string]any{"name": "Engine", "entityType": "machine", "observations": []any{}},
	}})
	wantCreated := `{"entities":[{"entityType":"person","name":"Ada","observations":["wrote the first program"]},{"entityType":"machine","name":"Engine","observations":[]}]}`
	if r.IsError || jsonOf(t, r.Value) != wantCreated {
		t.Fatalf("create_entities: %#v", r)
	}
	r = call(t, u, ctx, readGraph, nil)
	wantGraph := `{"entities":[{"entityType":"person","name":"Ada","observations":["wrote the first program"]},{"entityType":"machine","name":"Engine","observations":[]}],"relations":[]}`
	if r.IsError || jsonOf(t, r.Value) != wantGraph {
		t.Fatalf("read_graph: %s", jsonOf(t, r.Value))
	}

	// Kill the server between calls: the next call finds the session dead
	// and starts a new server before sending anything.
	pid := u.pid()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitDead(t, u)
	r = call(t, u, ctx, readGraph, nil)
	if jsonOf(t, r.Value) != wantGraph {
		t.Fatalf("read_graph after restart: %s", jsonOf(t, r.Value))
	}
	if u.pid() == pid || u.starts != 2 {
		t.Fatalf("server not restarted: pid %d → %d, starts %d", pid, u.pid(), u.starts)
	}
}

// waitDead waits until u has noticed its server is gone.
func waitDead(t *testing.T, u *MCP) {
	t.Helper()
	u.mu.Lock()
	s := u.sess
	u.mu.Unlock()
	select {
	case <-s.dead:
	case <-time.After(10 * time.Second):
		t.Fatal("session did not notice the server's death")
	}
}

// selfServer runs this test binary as a stdio MCP server.
func selfServer(t *testing.T, counter string) *MCP {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	u := NewMCPCommand([]string{exe}, []string{testServerEnv + "=1", "COUNTER_FILE=" + counter})
	t.Cleanup(func() { u.Close() })
	return u
}

// killWhenBlocked kills the server once its first blocking call has begun.
func killWhenBlocked(t *testing.T, u *MCP, counter string) int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, _ := os.ReadFile(counter)
		if strings.Count(string(b), "\n") >= 1 {
			pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
			if pid != u.pid() {
				t.Errorf("blocked in pid %d, server is %d", pid, u.pid())
			}
			if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
				t.Error(err)
			}
			return pid
		}
		if time.Now().After(deadline) {
			t.Error("the call never reached the server")
			return 0
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func lines(t *testing.T, file string) []string {
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(string(b))
}

func TestRestartRetriesReadOnly(t *testing.T) {
	ctx := ctxT(t, 30*time.Second)
	counter := filepath.Join(t.TempDir(), "count")
	u := selfServer(t, counter)
	if err := u.Start(ctx); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var pid int
	go func() { defer close(done); pid = killWhenBlocked(t, u, counter) }()
	r := call(t, u, ctx, tool("block_read", ir.Annotations{ReadOnly: true}), nil)
	<-done
	got := lines(t, counter)
	if len(got) != 2 || got[0] != strconv.Itoa(pid) || got[1] == got[0] {
		t.Fatalf("invocations: %q", got)
	}
	if r.Value != "ok "+got[1] || u.starts != 2 {
		t.Fatalf("result %#v after %d starts", r.Value, u.starts)
	}
}

func TestRestartDoesNotRetryWrite(t *testing.T) {
	ctx := ctxT(t, 30*time.Second)
	counter := filepath.Join(t.TempDir(), "count")
	u := selfServer(t, counter)
	if err := u.Start(ctx); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { defer close(done); killWhenBlocked(t, u, counter) }()
	write := tool("block_write", ir.Annotations{})
	_, err := u.Call(ctx, write, nil)
	<-done
	if err == nil || !strings.Contains(err.Error(), "not retried, because the tool is neither read-only nor idempotent") {
		t.Fatalf("err = %v", err)
	}
	if got := lines(t, counter); len(got) != 1 {
		t.Fatalf("the write was sent %d times", len(got))
	}
	// The next call starts a new server.
	r := call(t, u, ctx, write, nil)
	if got := lines(t, counter); len(got) != 2 || r.Value != "ok "+got[1] || u.starts != 2 {
		t.Fatalf("after restart: %#v, %q, starts %d", r.Value, got, u.starts)
	}
}

func TestSelfServerEnvIsExactlyGiven(t *testing.T) {
	ctx := ctxT(t, 30*time.Second)
	u := selfServer(t, filepath.Join(t.TempDir(), "count"))
	r := call(t, u, ctx, tool("env", readOnly), nil)
	want := testServerEnv + "=1\nCOUNTER_FILE="
	if s, _ := r.Value.(string); !strings.HasPrefix(s, want) || strings.Count(s, "\n") != 1 {
		t.Fatalf("env = %q", r.Value)
	}
}

// hangingServer is an in-process go-sdk server whose "hang" tool blocks
// until the test ends, and whose "meta" tool returns _meta and isError.
// The returned func releases the blocked handlers; tests call it before
// closing anything, since a server session waits for its handlers.
func hangingServer(t *testing.T) (*mcp.Server, func()) {
	s := mcp.NewServer(&mcp.Implementation{Name: "hang", Version: "1"}, nil)
	type in struct{}
	release := make(chan struct{})
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	mcp.AddTool(s, &mcp.Tool{Name: "hang", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, func(ctx context.Context, _ *mcp.CallToolRequest, _ in) (*mcp.CallToolResult, any, error) {
		<-release // ignores ctx on purpose: the client must not wait for it
		return nil, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "meta"}, func(ctx context.Context, req *mcp.CallToolRequest, _ in) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{
			Meta:    mcp.Meta{"codemode/note": "rate limited", "remaining": 3},
			IsError: true,
			Content: []mcp.Content{&mcp.TextContent{Text: "quota exceeded"}, &mcp.TextContent{Text: "try later"}},
		}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "add"}, func(ctx context.Context, req *mcp.CallToolRequest, in struct {
		A int64 `json:"a"`
		B int64 `json:"b"`
	}) (*mcp.CallToolResult, struct {
		Sum int64 `json:"sum"`
	}, error) {
		return nil, struct {
			Sum int64 `json:"sum"`
		}{in.A + in.B}, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "header"}, func(ctx context.Context, req *mcp.CallToolRequest, _ in) (*mcp.CallToolResult, any, error) {
		h := ""
		if req.Extra != nil && req.Extra.Header != nil {
			h = req.Extra.Header.Get("X-Api-Key")
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: h}}}, nil, nil
	})
	return s, free
}

// inMemory is an MCP upstream connected to s through in-memory transports.
func inMemory(t *testing.T, s *mcp.Server) *MCP {
	u := NewMCPCommand([]string{"in-memory"}, nil)
	u.what, u.name = "in-memory", "in-memory"
	u.launch = func() (*launched, error) {
		ct, st := mcp.NewInMemoryTransports()
		if _, err := s.Connect(context.Background(), st, nil); err != nil {
			t.Error(err)
		}
		return &launched{t: ct}, nil
	}
	t.Cleanup(func() { u.Close() })
	return u
}

func TestHangingCallRespectsContext(t *testing.T) {
	s, free := hangingServer(t)
	u := inMemory(t, s)
	defer free()
	for _, how := range []string{"deadline", "cancel"} {
		var ctx context.Context
		var cancel context.CancelFunc
		if how == "deadline" {
			ctx, cancel = context.WithTimeout(context.Background(), 200*time.Millisecond)
		} else {
			ctx, cancel = context.WithCancel(context.Background())
			time.AfterFunc(200*time.Millisecond, cancel)
		}
		start := time.Now()
		_, err := u.Call(ctx, tool("hang", readOnly), nil)
		cancel()
		if took := time.Since(start); took > 2*time.Second {
			t.Fatalf("%s: returned after %v", how, took)
		}
		want := context.DeadlineExceeded
		if how == "cancel" {
			want = context.Canceled
		}
		if err == nil || !strings.Contains(err.Error(), want.Error()) {
			t.Fatalf("%s: err = %v", how, err)
		}
	}
	// The session survives a cancelled call.
	r := call(t, u, ctxT(t, 10*time.Second), tool("add", readOnly), map[string]any{"a": 2, "b": 3})
	if jsonOf(t, r.Value) != `{"sum":5}` || u.starts != 1 {
		t.Fatalf("add: %#v, starts %d", r.Value, u.starts)
	}
}

func TestErrorAndMeta(t *testing.T) {
	s, free := hangingServer(t)
	defer free()
	u := inMemory(t, s)
	r := call(t, u, ctxT(t, 10*time.Second), tool("meta", ir.Annotations{}), nil)
	if !r.IsError || r.Message != "quota exceeded\ntry later" || r.Status != 0 {
		t.Fatalf("result: %#v", r)
	}
	wantMeta := map[string]any{
		"codemode/note": "rate limited", "remaining": json.Number("3"),
		"io.modelcontextprotocol/serverInfo": map[string]any{"name": "hang", "version": "1"}, // added by the go-sdk server
	}
	if !reflect.DeepEqual(r.Meta, wantMeta) {
		t.Fatalf("meta: %#v", r.Meta)
	}
	if !reflect.DeepEqual(r.Value, []any{"quota exceeded", "try later"}) {
		t.Fatalf("value: %#v", r.Value)
	}
	// A JSON-RPC error is the server's answer: an error at once, no restart.
	start := time.Now()
	_, err := u.Call(ctxT(t, 10*time.Second), tool("nope", readOnly), nil)
	if err == nil || !strings.Contains(err.Error(), `unknown tool "nope"`) || time.Since(start) > 50*time.Millisecond || u.starts != 1 {
		t.Fatalf("unknown tool: %v after %v, starts %d", err, time.Since(start), u.starts)
	}
}

func TestMCPURL(t *testing.T) {
	s, free := hangingServer(t)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	u := NewMCPURL(srv.URL, http.Header{"X-Api-Key": {"k-123"}}, &http.Client{Timeout: 10 * time.Second})
	t.Cleanup(func() { u.Close() })
	t.Cleanup(free) // runs first
	ctx := ctxT(t, 20*time.Second)

	r := call(t, u, ctx, tool("add", readOnly, "a", "b"), map[string]any{"a": json.Number("40"), "b": json.Number("2")})
	if r.IsError || !reflect.DeepEqual(r.Value, map[string]any{"sum": json.Number("42")}) {
		t.Fatalf("add: %#v", r)
	}
	r = call(t, u, ctx, tool("header", readOnly), nil)
	if r.Value != "k-123" {
		t.Fatalf("header: %#v", r.Value)
	}
	hctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	start := time.Now()
	_, err := u.Call(hctx, tool("hang", readOnly), nil)
	cancel()
	if err == nil || time.Since(start) > 3*time.Second {
		t.Fatalf("hang over HTTP: %v after %v", err, time.Since(start))
	}
}
