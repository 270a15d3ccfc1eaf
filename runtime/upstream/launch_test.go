package upstream

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	goruntime "runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemode-dev/codemode/ir"
)

// logBuffer is an operator log a test can read while servers write to it.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// waitLog waits until the log holds want (a server's stderr arrives on its
// own pipe, after or before its reply).
func waitLog(t *testing.T, log *logBuffer, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(log.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("log has no %q:\n%s", want, log.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// testMCP configures this test binary as the testmcp server in mode.
func testMCP(t *testing.T, name, mode string, env map[string]string, log *logBuffer) MCPConfig {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	all := map[string]string{"CODEMODE_TESTMCP": mode}
	for k, v := range env {
		all[k] = v
	}
	return MCPConfig{Name: name, Command: []string{exe}, Env: all, Log: log}
}

func newTestMCP(t *testing.T, cfg MCPConfig) *MCP {
	t.Helper()
	u, err := NewMCP(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { u.Close() })
	return u
}

func TestServerStderrNotInCallErrors(t *testing.T) {
	const tok = "tok-stderr-7f3a"
	t.Setenv("CODEMODE_T_TOKEN", tok)
	log := &logBuffer{}
	u := newTestMCP(t, testMCP(t, "leak", "leak", map[string]string{"TOKEN": "$CODEMODE_T_TOKEN"}, log))
	ctx := ctxT(t, 30*time.Second)

	r := call(t, u, ctx, tool("fail", ir.Annotations{}), nil)
	if !r.IsError || r.Message != "token [redacted] was rejected" || r.Value != "token [redacted] was rejected" {
		t.Fatalf("fail: %#v", r)
	}
	waitLog(t, log, "mcp leak stderr: auth failed for token=[redacted]\n")
	if tail := u.StderrTail(); tail != "starting with token [redacted]\nauth failed for token=[redacted]\n" {
		t.Fatalf("tail = %q", tail)
	}

	_, err := u.Call(ctx, tool("crash", ir.Annotations{}), nil)
	if err == nil || !strings.HasPrefix(err.Error(), "mcp leak: crash: the server went away during the call (") ||
		strings.Contains(err.Error(), "stderr") || strings.Contains(err.Error(), "bad token") {
		t.Fatalf("crash: %v", err)
	}
	waitLog(t, log, "mcp leak stderr: panic: bad token [redacted]\n")
	if strings.Contains(log.String(), tok) {
		t.Fatalf("the log holds the token:\n%s", log)
	}
}

func TestStartFailureStderrOnlyInLog(t *testing.T) {
	t.Setenv("CODEMODE_T_TOKEN", "tok-start-9c1d")
	log := &logBuffer{}
	u := newTestMCP(t, MCPConfig{Name: "broken", Command: []string{"/bin/sh", "-c", "echo bad config, token $TOKEN >&2; exit 3"},
		Env: map[string]string{"TOKEN": "$CODEMODE_T_TOKEN"}, Log: log})
	_, err := u.Call(ctxT(t, 30*time.Second), tool("x", readOnly), nil)
	if err == nil || err.Error() != "mcp broken: the server exited before answering initialize (exit status 3); its stderr is in codemode's log" {
		t.Fatalf("err = %v", err)
	}
	if got := log.String(); got != "mcp broken stderr: bad config, token [redacted]\n" {
		t.Fatalf("log = %q", got)
	}
	u2 := newTestMCP(t, MCPConfig{Name: "nothing", Command: []string{"./no-such-mcp-server"}, Log: log})
	_, err = u2.Call(ctxT(t, 30*time.Second), tool("x", readOnly), nil)
	if err == nil || err.Error() != `mcp nothing: cannot start the server: fork/exec ./no-such-mcp-server: no such file or directory` {
		t.Fatalf("err = %v", err)
	}
}

func TestServerThatNeverAnswersTimesOut(t *testing.T) {
	log := &logBuffer{}
	cfg := testMCP(t, "mute", "mute", nil, log)
	cfg.StartTimeout, cfg.Progress = 300*time.Millisecond, 100*time.Millisecond
	_, err := ListTools(ctxT(t, 30*time.Second), cfg)
	if err == nil || err.Error() != "mcp mute: the server did not answer initialize within 300ms (start_timeout); it was stopped" {
		t.Fatalf("err = %v", err)
	}
	if !strings.HasPrefix(log.String(), "codemode: still waiting for mute to start after ") {
		t.Fatalf("log = %q", log)
	}
}

func TestListToolsServerGetsOnlyPackEnv(t *testing.T) {
	t.Setenv("CODEMODE_T_SECRET", "in-codemode-only")
	t.Setenv("CODEMODE_T_GIVEN", "given-value")
	list, err := ListTools(ctxT(t, 30*time.Second), testMCP(t, "env", "env", map[string]string{"GIVEN": "$CODEMODE_T_GIVEN"}, nil))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct{ Tools []struct{ Name string } }
	if err := json.Unmarshal(list.Tools, &doc); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range doc.Tools {
		names = append(names, tl.Name)
	}
	want := "env_CODEMODE_TESTMCP env_GIVEN env_HOME env_PATH"
	if _, ok := os.LookupEnv("HOME"); !ok {
		want = "env_CODEMODE_TESTMCP env_GIVEN env_PATH"
	}
	if got := strings.Join(names, " "); got != want || list.Server.Name != "testmcp" {
		t.Fatalf("tools %q (server %+v), want %q", got, list.Server, want)
	}
}

func TestListToolsRepeatedCursorRefused(t *testing.T) {
	_, err := ListTools(ctxT(t, 30*time.Second), testMCP(t, "loop", "loop", nil, nil))
	if err == nil || err.Error() != `mcp loop: tools/list returned cursor "again" twice` {
		t.Fatalf("err = %v", err)
	}
}

func TestMCPReplyOverCapRefused(t *testing.T) {
	ctx := ctxT(t, 30*time.Second)
	big := tool("big", readOnly, "n")
	cfg := testMCP(t, "big", "big", nil, nil)
	cfg.MaxReply = 64 << 10
	u := newTestMCP(t, cfg)
	_, err := u.Call(ctx, big, map[string]any{"n": 100000})
	if err == nil || err.Error() != "mcp big: big: the reply is larger than the 64 KiB cap (runtime.max_reply); refused" {
		t.Fatalf("err = %v", err)
	}
	// The next call gets a new server and a small reply passes.
	if r := call(t, u, ctx, big, map[string]any{"n": 3}); r.Value != "xxx" {
		t.Fatalf("after: %#v", r.Value)
	}
	// The default cap refuses the 12 MB reply of issue 11.
	u = newTestMCP(t, testMCP(t, "big", "big", nil, nil))
	_, err = u.Call(ctx, big, map[string]any{"n": 12 << 20})
	if err == nil || err.Error() != "mcp big: big: the reply is larger than the 8 MiB cap (runtime.max_reply); refused" {
		t.Fatalf("err = %v", err)
	}

	// Over streamable HTTP, plain JSON replies.
	s := mcp.NewServer(&mcp.Implementation{Name: "bighttp", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "big"}, func(_ context.Context, _ *mcp.CallToolRequest, in struct {
		N int `json:"n"`
	}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("y", in.N)}}}, nil, nil
	})
	for _, jsonReply := range []bool{true, false} {
		srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{JSONResponse: jsonReply}))
		t.Cleanup(srv.Close)
		h := newTestMCP(t, MCPConfig{Name: "bighttp", URL: srv.URL, MaxReply: 64 << 10})
		_, err = h.Call(ctx, big, map[string]any{"n": 100000})
		if err == nil || err.Error() != "mcp bighttp: big: the reply is larger than the 64 KiB cap (runtime.max_reply); refused" {
			t.Fatalf("json %v: err = %v", jsonReply, err)
		}
		if r := call(t, h, ctx, big, map[string]any{"n": 2}); r.Value != "yy" {
			t.Fatalf("json %v: after: %#v", jsonReply, r.Value)
		}
	}
}

func TestAuthOnMCPURLSent(t *testing.T) {
	s, free := hangingServer(t)
	t.Cleanup(free)
	var mu sync.Mutex
	var got []string
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Header.Get("Authorization")+"|"+r.Header.Get("X-Api-Key"))
		mu.Unlock()
		if r.Header.Get("Authorization") != "Bearer tok-url-5e2b" && r.Header.Get("X-Api-Key") != "key-url-8d4c" {
			http.Error(w, "no credentials", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	t.Setenv("CODEMODE_T_BEARER", "tok-url-5e2b")
	t.Setenv("CODEMODE_T_KEY", "key-url-8d4c")
	ctx := ctxT(t, 20*time.Second)

	u := newTestMCP(t, MCPConfig{Name: "remote", URL: srv.URL, Auth: &Auth{Type: "bearer", TokenEnv: "CODEMODE_T_BEARER"}})
	r := call(t, u, ctx, tool("add", readOnly, "a", "b"), map[string]any{"a": json.Number("1"), "b": json.Number("2")})
	if jsonOf(t, r.Value) != `{"sum":3}` {
		t.Fatalf("add: %#v", r.Value)
	}
	mu.Lock()
	if len(got) == 0 || got[0] != "Bearer tok-url-5e2b|" {
		t.Fatalf("server saw %q", got)
	}
	mu.Unlock()

	// An apiKey header; the server echoing it back gets it redacted.
	u = newTestMCP(t, MCPConfig{Name: "remote", URL: srv.URL, Auth: &Auth{Type: "apiKey", TokenEnv: "CODEMODE_T_KEY", Name: "X-Api-Key"}})
	if r := call(t, u, ctx, tool("header", readOnly), nil); r.Value != "[redacted]" {
		t.Fatalf("header: %#v", r.Value)
	}

	// Without auth the server refuses, and says so in one line.
	u = newTestMCP(t, MCPConfig{Name: "remote", URL: srv.URL, StartTimeout: 10 * time.Second})
	if _, err := u.Call(ctx, tool("add", readOnly), nil); err == nil || strings.Contains(err.Error(), "\n") {
		t.Fatalf("err = %v", err)
	}
}

// runParent plays codemode for TestServerDiesWithCodemode: it starts a
// server, prints the server's pid and waits to be killed.
func runParent() {
	exe, _ := os.Executable()
	u, err := NewMCP(MCPConfig{Command: []string{exe}, Env: map[string]string{"CODEMODE_TESTMCP": "stubborn"}})
	if err != nil {
		panic(err)
	}
	r, err := u.Call(context.Background(), tool("pid", readOnly), nil)
	if err != nil {
		panic(err)
	}
	fmt.Println(r.Value)
	time.Sleep(time.Hour)
}

// waitGone waits until pid has exited (gone, or a zombie nobody reaps).
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return
		}
		if _, rest, ok := strings.Cut(string(b), ") "); ok && strings.HasPrefix(rest, "Z") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d is still running", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestServerDiesWithCodemode(t *testing.T) {
	if goruntime.GOOS != "linux" {
		t.Skip("Pdeathsig is Linux only")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), "CODEMODE_T_PARENT=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	pid, perr := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || perr != nil {
		cmd.Process.Kill()
		t.Fatalf("parent said %q: %v %v", line, err, perr)
	}
	cmd.Process.Kill()
	cmd.Wait()
	waitGone(t, pid)
}

func TestCloseKillsServerProcessGroup(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// A wrapper shell whose child is the real server (as npx does).
	u := newTestMCP(t, MCPConfig{Command: []string{"/bin/sh", "-c", "exec 3<&0; " + exe + " <&3 & wait"}, Env: map[string]string{"CODEMODE_TESTMCP": "stubborn"}})
	r := call(t, u, ctxT(t, 30*time.Second), tool("pid", readOnly), nil)
	pid, err := strconv.Atoi(fmt.Sprint(r.Value))
	if err != nil || pid == u.pid() {
		t.Fatalf("pid %v (wrapper %d)", r.Value, u.pid())
	}
	u.Close()
	waitGone(t, pid)
}

func TestListToolsThatNeverAnswersTimesOut(t *testing.T) {
	cfg := testMCP(t, "nolist", "nolist", nil, nil)
	cfg.StartTimeout = 300 * time.Millisecond
	_, err := ListTools(ctxT(t, 30*time.Second), cfg)
	if err == nil || err.Error() != "mcp nolist: tools/list did not finish within 300ms (start_timeout)" {
		t.Fatalf("err = %v", err)
	}
}

// TestListToolsKeepsServerOrder: over streamable HTTP, across pages, the
// tools come back as the server wrote them (zeta before alpha), with the
// server's initialize info.
func TestListToolsKeepsServerOrder(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "Test Server", Title: "A test", Version: "1.2.3"}, &mcp.ServerOptions{Instructions: "Use it well.", PageSize: 1})
	type echoArgs struct {
		Zeta  string `json:"zeta" jsonschema:"the last letter"`
		Alpha int    `json:"alpha,omitempty"`
	}
	handler := func(ctx context.Context, req *mcp.CallToolRequest, args echoArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{}, nil, nil
	}
	mcp.AddTool(server, &mcp.Tool{Name: "echo", Description: "Echo it."}, handler)
	mcp.AddTool(server, &mcp.Tool{Name: "class.del", Description: "Keyword name."}, handler)
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	defer ts.Close()
	list, err := ListTools(ctxT(t, 20*time.Second), MCPConfig{URL: ts.URL})
	if err != nil {
		t.Fatal(err)
	}
	if list.Server != (ServerInfo{Name: "Test Server", Title: "A test", Version: "1.2.3", Instructions: "Use it well."}) {
		t.Errorf("server = %+v", list.Server)
	}
	tools := string(list.Tools)
	if strings.Count(tools, `"name":`) != 2 || !strings.Contains(tools, `"properties":{"zeta":`) || strings.Index(tools, `"zeta"`) > strings.Index(tools, `"alpha"`) {
		t.Errorf("tools = %s", tools)
	}
	if _, err := ListTools(ctxT(t, 5*time.Second), MCPConfig{URL: "ftp://x"}); err == nil || err.Error() != `mcp_url "ftp://x": not an http(s) URL` {
		t.Errorf("err = %v", err)
	}
}

// BenchmarkRefusedBigReply refuses a 12 MB MCP reply (issue 11) over
// stdio; B/op is what refusing it costs the host (accepting it, with the
// cap raised, allocates several times more).
func BenchmarkRefusedBigReply(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	big := tool("big", readOnly, "n")
	u, err := NewMCP(MCPConfig{Name: "big", Command: []string{exe}, Env: map[string]string{"CODEMODE_TESTMCP": "big"}, Log: io.Discard})
	if err != nil {
		b.Fatal(err)
	}
	defer u.Close()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := u.Call(context.Background(), big, map[string]any{"n": 12 << 20}); err == nil {
			b.Fatal("not refused")
		}
	}
}
