// Package testmcp is a tiny stdio MCP server for tests, run as a command
// (a test binary's TestMain, or a testscript command) with one mode:
//
//	env    one tool per environment variable, named env_<NAME>: what the
//	       server was started with shows in its tools/list
//	leak   prints $TOKEN on stderr at start and in its tools: fail (prints
//	       it again, then answers isError with it in the message) and crash
//	       (prints it, then exits 1 mid-call)
//	mute   never answers initialize
//	big    tool big: a text reply of n bytes; tool pid: its process id
//	stubborn  big, but it does not exit when its stdin ends
//	loop   answers initialize, then every tools/list with the same cursor
//	nolist answers initialize, never tools/list
//	slow   tools write (neither read-only nor idempotent) and read
//	       (read-only): each appends "<tool> <tag>" to the file $SLOW_LOG
//	       when it starts, sleeps seconds, and answers "<tool> <tag> done"
//	       ("<tool> <tag> cancelled" is logged when the call is cancelled)
//	conformance  the conformance suite's fixture tools, resources and
//	       prompts (conformance.go)
//	asker  tool ask sends elicitation/create whatever the client declared
//	       and waits for the answer (conformance.go)
//	barrier  at start, makes a file named by its process id in
//	       $BARRIER_DIR and waits until $BARRIER_N such files are there
//	       (at most 20 s; then it says so on stderr and exits 1), then
//	       answers with one tool, ready: servers listed one at a time
//	       never get past it
package testmcp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Main runs the server mode args[0] on stdin/stdout and returns the exit
// code.
func Main(args []string) int {
	if len(args) != 1 {
		fmt.Fprintln(os.Stderr, "usage: testmcp env|leak|mute|big")
		return 2
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "testmcp", Version: "1"}, nil)
	type none struct{}
	switch args[0] {
	case "env":
		var names []string
		for _, kv := range os.Environ() {
			k, _, _ := strings.Cut(kv, "=")
			names = append(names, k)
		}
		sort.Strings(names)
		bad := regexp.MustCompile(`[^A-Za-z0-9_]`)
		for _, k := range names {
			mcp.AddTool(s, &mcp.Tool{Name: "env_" + bad.ReplaceAllString(k, "_"), Description: "The server's environment has " + k + "."},
				func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, any, error) {
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: os.Getenv(k)}}}, nil, nil
				})
		}
	case "leak":
		tok := os.Getenv("TOKEN")
		fmt.Fprintf(os.Stderr, "starting with token %s\n", tok)
		mcp.AddTool(s, &mcp.Tool{Name: "fail"}, func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, any, error) {
			fmt.Fprintf(os.Stderr, "auth failed for token=%s\n", tok)
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "token " + tok + " was rejected"}}}, nil, nil
		})
		mcp.AddTool(s, &mcp.Tool{Name: "crash"}, func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, any, error) {
			fmt.Fprintf(os.Stderr, "panic: bad token %s\n", tok)
			os.Exit(1)
			return nil, nil, nil
		})
	case "slow":
		type slowArgs struct {
			Seconds float64 `json:"seconds"`
			Tag     string  `json:"tag"`
		}
		for _, name := range []string{"write", "read"} {
			tool := &mcp.Tool{Name: name, Description: "Takes seconds, then answers with the tag."}
			if name == "read" {
				tool.Annotations = &mcp.ToolAnnotations{ReadOnlyHint: true}
			}
			mcp.AddTool(s, tool, func(ctx context.Context, _ *mcp.CallToolRequest, in slowArgs) (*mcp.CallToolResult, any, error) {
				logf := func(format string, a ...any) {
					if f, err := os.OpenFile(os.Getenv("SLOW_LOG"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
						fmt.Fprintf(f, format+"\n", a...)
						f.Close()
					}
				}
				logf("%s %s", name, in.Tag)
				select {
				case <-time.After(time.Duration(in.Seconds * float64(time.Second))):
				case <-ctx.Done():
					logf("%s %s cancelled", name, in.Tag)
					return nil, nil, ctx.Err()
				}
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name + " " + in.Tag + " done"}}}, nil, nil
			})
		}
	case "barrier":
		if err := barrier(os.Getenv("BARRIER_DIR"), os.Getenv("BARRIER_N"), 20*time.Second); err != nil {
			fmt.Fprintln(os.Stderr, "barrier:", err)
			return 1
		}
		mcp.AddTool(s, &mcp.Tool{Name: "ready", Description: "Answers once every server of the barrier has started."},
			func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, any, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ready"}}}, nil, nil
			})
	case "conformance":
		s = conformanceServer()
	case "asker":
		return asker()
	case "loop", "nolist":
		return loop(args[0] == "nolist")
	case "mute":
		io.Copy(io.Discard, os.Stdin)
		return 0
	case "big", "stubborn":
		mcp.AddTool(s, &mcp.Tool{Name: "big", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, func(_ context.Context, _ *mcp.CallToolRequest, in struct {
			N int `json:"n"`
		}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("x", in.N)}}}, nil, nil
		})
		mcp.AddTool(s, &mcp.Tool{Name: "pid", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strconv.Itoa(os.Getpid())}}}, nil, nil
		})
	default:
		fmt.Fprintf(os.Stderr, "testmcp: unknown mode %q\n", args[0])
		return 2
	}
	err := s.Run(context.Background(), &mcp.StdioTransport{})
	if args[0] == "stubborn" {
		time.Sleep(time.Hour)
	}
	if err != nil && err != io.EOF && !strings.Contains(err.Error(), "EOF") {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// loop speaks JSON-RPC by hand: a well-behaved initialize, then a
// tools/list that pages forever on one cursor.
func loop(nolist bool) int {
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(sc.Bytes(), &req) != nil || req.ID == nil {
			continue
		}
		var result string
		switch req.Method {
		case "initialize":
			result = `{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"loop","version":"1"}}`
		case "tools/list":
			if nolist {
				continue
			}
			result = `{"tools":[{"name":"t","inputSchema":{"type":"object"}}],"nextCursor":"again"}`
		default:
			result = `{}`
		}
		fmt.Printf(`{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", req.ID, result)
	}
	return 0
}

// barrier makes dir/<pid> and waits until dir holds n entries, for at most
// wait.
func barrier(dir, n string, wait time.Duration) error {
	want, err := strconv.Atoi(n)
	if err != nil || dir == "" {
		return fmt.Errorf("set BARRIER_DIR and BARRIER_N (a number), not %q and %q", dir, n)
	}
	if err := os.WriteFile(filepath.Join(dir, strconv.Itoa(os.Getpid())), nil, 0o600); err != nil {
		return err
	}
	deadline := time.Now().Add(wait)
	for {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return err
		}
		if len(entries) >= want {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("only %d of %d servers started within %v", len(entries), want, wait)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
