// Package upstream calls the real services behind a generated surface: MCP
// servers (stdio or streamable HTTP) and OpenAPI operations over HTTP. The
// runtime hands it a tool's manifest entry and the bound, validated
// arguments; it hands back the full result. Credentials live here, in the
// host process, and never reach a Monty worker: every error and result an
// upstream returns has passed its Redactor, credentials go only to the
// service's own origin (never along a redirect elsewhere, never in a
// Referer), and an MCP server's stderr goes to the operator's log only.
// NewMCP is the one way an MCP server is started, for gen, check, run and
// serve alike.
package upstream

import (
	"context"
	"fmt"

	"github.com/codemode-dev/codemode/internal/bytesize"
	"github.com/codemode-dev/codemode/manifest"
)

// Upstream is one service's connection.
type Upstream interface {
	// Call invokes tool with args (keys are ManifestParam.Arg, values as
	// decoded by encoding/json with UseNumber). A transport failure is an
	// error; an upstream that answers with an error (MCP isError, HTTP
	// 4xx/5xx) is a Result with IsError set.
	Call(ctx context.Context, tool *manifest.Tool, args map[string]any) (*Result, error)
	// Close releases the connection (stops a stdio server).
	Close() error
}

// Result is what came back from one call.
type Result struct {
	// Value is the result as a JSON value (UseNumber): MCP structuredContent
	// when present, else the text content decoded as JSON when it is JSON,
	// else the text; a list when there are several content items. For HTTP:
	// the decoded JSON body, else the body text.
	Value any
	// IsError marks an MCP isError result or an HTTP status >= 400; Message
	// is the upstream's error text and Status the HTTP status (0 for MCP).
	IsError bool
	Message string
	Status  int
	// Meta is the MCP result's _meta (nil for HTTP).
	Meta map[string]any
}

// DefaultMaxReply caps one reply from an upstream (an HTTP body, an MCP
// message) unless configured otherwise: a larger reply is refused before it
// is decoded.
const DefaultMaxReply = 8 << 20

// replyTooLarge is the one-line error for a reply over the cap.
func replyTooLarge(limit int64) string {
	return fmt.Sprintf("the reply is larger than the %s cap (runtime.max_reply); refused", bytesize.Format(limit))
}
