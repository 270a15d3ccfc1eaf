package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/codemode-dev/codemode/pack"
)

// starterPack is the head of the codemode.yaml that init writes; a
// service per source flag follows.
const starterPack = `# codemode pack: the APIs programs may call. Add a service per source:
#   mcp_command: npx -y some-mcp-server   (a stdio MCP server)
#   mcp_url: https://host/mcp             (a streamable-HTTP MCP server)
#   openapi: spec.yaml                    (an OpenAPI 2.0/3.x document)
#   mcp: tools.json                       (a saved tools/list answer)
# grant: [tool, ...] limits what programs may call (no grant: grants every tool).
out: api
services:
`

// cmdInit writes a starter codemode.yaml (one service per source flag) and
// adds .codemode/ (audit log, caches, jobs) to .gitignore. It never
// overwrites a pack.
func cmdInit(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("init", stderr)
	var srcs sourceFlags
	srcs.register(fs)
	config := fs.String("c", "codemode.yaml", "pack `FILE` to write")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErr("codemode init: unexpected argument %q", fs.Arg(0))
	}
	if len(srcs.sources) == 0 {
		return usageErr("codemode init: name a source: --mcp-cmd 'COMMAND', --mcp-url URL, --openapi FILE or --mcp FILE (each optionally followed by --service NAME)")
	}
	var b strings.Builder
	b.WriteString(starterPack)
	for _, s := range srcs.sources {
		b.WriteString("  - ")
		if s.Name != "" {
			fmt.Fprintf(&b, "name: %s\n    ", s.Name)
		}
		switch {
		case s.MCP != "":
			fmt.Fprintf(&b, "mcp: %s\n", strconv.Quote(s.MCP))
		case len(s.MCPCommand) > 0:
			q := make([]string, len(s.MCPCommand))
			for i, a := range s.MCPCommand {
				q[i] = strconv.Quote(a)
			}
			fmt.Fprintf(&b, "mcp_command: [%s]\n", strings.Join(q, ", "))
		case s.MCPURL != "":
			fmt.Fprintf(&b, "mcp_url: %s\n", strconv.Quote(s.MCPURL))
		default:
			fmt.Fprintf(&b, "openapi: %s\n", strconv.Quote(s.OpenAPI))
		}
	}
	if _, err := pack.Parse([]byte(b.String())); err != nil {
		return err
	}
	f, err := os.OpenFile(*config, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, iofs.ErrExist) {
		return fmt.Errorf("%s already exists; init writes a new pack only", *config)
	}
	if err != nil {
		return err
	}
	if _, err := f.WriteString(b.String()); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s\n", *config)
	added, err := ignoreStateDir(".gitignore")
	if err != nil {
		return err
	}
	if added {
		fmt.Fprintln(stdout, "added .codemode/ to .gitignore")
	}
	fmt.Fprintf(stdout, "next: codemode gen -c %s, then codemode tools -c %s\n", *config, *config)
	abs, err := filepath.Abs(*config)
	if err != nil {
		return err
	}
	fmt.Fprint(stdout, harnessConfig(abs))
	return nil
}

// harnessConfig is how the common harnesses start codemode serve on the
// pack at path (absolute: a harness starts servers from elsewhere).
func harnessConfig(path string) string {
	q, _ := json.Marshal(path)
	return fmt.Sprintf(`then connect your agent's harness to it:
  Claude Code:   claude mcp add codemode -- codemode serve -c %[1]s
  Codex (~/.codex/config.toml):
    [mcp_servers.codemode]
    command = "codemode"
    args = ["serve", "-c", %[2]s]
  Cursor (.cursor/mcp.json), or any client with an mcpServers file:
    {"mcpServers": {"codemode": {"command": "codemode", "args": ["serve", "-c", %[2]s]}}}
  over HTTP: codemode serve -c %[1]s --http 127.0.0.1:8080 --token-env CODEMODE_TOKEN,
    then the URL http://127.0.0.1:8080/mcp with the header "Authorization: Bearer <token>"
`, shellQuote(path), q)
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+=:@,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// ignoreStateDir adds a .codemode/ line to the .gitignore at path unless
// one is there, reporting whether it added it.
func ignoreStateDir(path string) (bool, error) {
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, iofs.ErrNotExist) {
		return false, err
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		switch strings.TrimSpace(line) {
		case ".codemode", ".codemode/", "/.codemode", "/.codemode/":
			return false, nil
		}
	}
	if len(data) > 0 && !bytes.HasSuffix(data, []byte("\n")) {
		data = append(data, '\n')
	}
	data = append(data, ".codemode/\n"...)
	return true, os.WriteFile(path, data, 0o644)
}
