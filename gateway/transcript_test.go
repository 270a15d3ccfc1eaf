package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rogpeppe/go-internal/txtar"

	"github.com/codemode-dev/codemode/gateway"
	"github.com/codemode-dev/codemode/golden"
	"github.com/codemode-dev/codemode/internal/testpeer"
)

// TestTranscripts replays testdata/transcripts/*.txtar against a real
// gateway (in-memory MCP transport, the real Monty binary, server-everything
// as the upstream, the fixture's hooks: a note on echo, a wait on get-sum
// with a=99) and compares every reply with the one written down, byte for
// byte. With -update it rewrites the replies instead; review them as diffs.
//
// A transcript is a txtar archive. Its comment says what it shows. Its
// sections, in order:
//
//   - "pack.yaml" (optional): the pack's codemode.yaml, with $EVERYTHING
//     standing for server-everything's command. Without it the pack is
//     packYAML (everything's tools granted except get-env).
//   - "options" (optional): one option a line: "direct" serves the granted
//     tools directly instead of code mode; "read_lines N" cuts read_api at
//     N lines.
//   - then requests, each followed by its reply. A request section is named
//     after the tool called and holds its JSON arguments, except run_code,
//     whose body is the program itself; "tools/list" lists the tools.
//   - a reply is "reply" (or "error reply" when isError is set): the text
//     blocks joined, a non-text block as one "[image/png, N bytes]" line. A
//     reply that does not end in a newline is stored with one added and
//     "(no newline at end)" after its name. Then, where the transcript
//     asks for it by having a "structured" section after the request (an
//     empty one to start), the structuredContent as one line of JSON
//     (encoded without HTML escapes, so "<module>" reads as itself; null
//     when the reply has none).
//
// Masking, so that replies are deterministic: RFC 3339 times become
// <time>, a wait's random id (w-1a2b3c4d) w-<id>, server-everything's path
// $EVERYTHING and the test's temporary directories $TMP. Nothing else varies
// today; a reply that starts to show durations or ids gets a rule here.
func TestTranscripts(t *testing.T) {
	files, err := filepath.Glob("testdata/transcripts/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			runTranscript(t, file)
		})
	}
}

const noNewline = " (no newline at end)"

func runTranscript(t *testing.T, file string) {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	ar := txtar.Parse(data)
	out := &txtar.Archive{Comment: ar.Comment}
	yaml, direct := packYAML, false
	readLines := 0
	type request struct {
		txtar.File
		structured bool
	}
	var calls []request
	for _, f := range ar.Files {
		switch name := strings.TrimSuffix(f.Name, noNewline); name {
		case "pack.yaml":
			yaml = strings.ReplaceAll(strings.ReplaceAll(string(f.Data), "%", "%%"), "$EVERYTHING", "%q")
			out.Files = append(out.Files, f)
		case "options":
			for _, line := range strings.Split(strings.TrimSpace(string(f.Data)), "\n") {
				switch fields := strings.Fields(line); {
				case len(fields) == 1 && fields[0] == "direct":
					direct = true
				case len(fields) == 2 && fields[0] == "read_lines":
					if readLines, err = strconv.Atoi(fields[1]); err != nil || readLines < 1 {
						t.Fatalf("options: read_lines %q: want a positive number", fields[1])
					}
				default:
					t.Fatalf("options: unknown option %q; the options are direct, read_lines N", line)
				}
			}
			out.Files = append(out.Files, f)
		case "structured":
			if len(calls) == 0 {
				t.Fatal("structured before any request")
			}
			calls[len(calls)-1].structured = true
		case "reply", "error reply":
			// Replaced by the replies got.
		default:
			calls = append(calls, request{File: f})
		}
	}
	if len(calls) == 0 {
		t.Fatal("no requests")
	}
	if readLines > 0 {
		// A global: this transcript runs alone, before the parallel ones.
		old := gateway.SetMaxReadLines(readLines)
		t.Cleanup(func() { gateway.SetMaxReadLines(old) })
	} else {
		t.Parallel()
	}
	f := newFixtureAt(t, writePackYAML(t, yaml), direct, nil)
	cs := f.connect(t)
	bin, err := testpeer.NodeBin("mcp-server-everything")
	if err != nil {
		t.Fatal(err)
	}
	paths := strings.NewReplacer(bin, "$EVERYTHING", filepath.Dir(f.pack.Dir), "$TMP")
	for _, c := range calls {
		out.Files = append(out.Files, c.File)
		out.Files = append(out.Files, transcriptReply(t, cs, c.File, c.structured, paths)...)
	}
	got := txtar.Format(out)
	if golden.Updating() {
		if !bytes.Equal(got, data) {
			if err := os.WriteFile(file, got, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	if !bytes.Equal(got, data) {
		t.Errorf("replies differ (run with -update to rewrite them, then review the diff):\n%s", golden.Diff(file, data, got))
	}
}

// transcriptReply makes request c and returns its reply sections.
func transcriptReply(t *testing.T, cs *mcp.ClientSession, c txtar.File, structured bool, paths *strings.Replacer) []txtar.File {
	ctx := context.Background()
	if c.Name == "tools/list" {
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatalf("tools/list: %v", err)
		}
		var b strings.Builder
		for _, tl := range res.Tools {
			b.WriteString(tl.Name + "\n")
		}
		return []txtar.File{{Name: "reply", Data: []byte(b.String())}}
	}
	var args map[string]any
	if c.Name == "run_code" {
		args = map[string]any{"code": string(c.Data)}
	} else if len(bytes.TrimSpace(c.Data)) > 0 {
		if err := json.Unmarshal(c.Data, &args); err != nil {
			t.Fatalf("%s: arguments: %v", c.Name, err)
		}
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.Name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", c.Name, err)
	}
	var b strings.Builder
	for _, block := range res.Content {
		switch block := block.(type) {
		case *mcp.TextContent:
			b.WriteString(block.Text)
		case *mcp.ImageContent:
			fmt.Fprintf(&b, "[%s, %d bytes]\n", block.MIMEType, len(block.Data))
		default:
			fmt.Fprintf(&b, "[%T]\n", block)
		}
	}
	name, text := "reply", mask(b.String(), paths)
	if res.IsError {
		name = "error reply"
	}
	if !strings.HasSuffix(text, "\n") {
		name, text = name+noNewline, text+"\n"
	}
	files := []txtar.File{{Name: name, Data: []byte(text)}}
	if structured {
		var js bytes.Buffer
		enc := json.NewEncoder(&js)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(res.StructuredContent); err != nil {
			t.Fatalf("%s: structuredContent: %v", c.Name, err)
		}
		files = append(files, txtar.File{Name: "structured", Data: []byte(mask(js.String(), paths))})
	}
	return files
}

var (
	rfc3339 = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)`)
	waitID  = regexp.MustCompile(`\bw-[0-9a-f]{8}\b`)
)

// mask makes a reply deterministic: see TestTranscripts.
func mask(s string, paths *strings.Replacer) string {
	s = paths.Replace(s)
	s = waitID.ReplaceAllString(s, "w-<id>")
	return rfc3339.ReplaceAllString(s, "<time>")
}
