package parse

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/codemode-dev/codemode/ir"
)

// Options control how a source is compiled.
type Options struct {
	// Service overrides the service name (the api/<name>.py module). It is
	// sanitized by ir.ServiceIdent like any other name.
	Service string
	// Parsed, when set, is called with each tool of an OpenAPI document as
	// soon as it is built, in order, on the parser's goroutine: the parser
	// changes neither the tool nor anything its schemas reach after that,
	// so another goroutine may read them (enrich.Prefetch does) until the
	// parse returns.
	Parsed func(*ir.Tool)
}

// Error is a source that could not be compiled at all: it is not JSON or
// YAML, or not an MCP tool list or OpenAPI document.
type Error struct {
	File string // the source as given: a path, a command line or a URL
	Line int    // 1-based; 0 when unknown
	Col  int    // 1-based; 0 when unknown
	Msg  string // one line
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
	}
	return e.File + ": " + e.Msg
}

func errorf(file, format string, args ...any) *Error {
	return &Error{File: file, Msg: fmt.Sprintf(format, args...)}
}

// digest is the Source.Digest of b.
func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// baseName is a file name without its directory and extension.
func baseName(file string) string {
	b := filepath.Base(file)
	if ext := filepath.Ext(b); ext != "" && ext != b {
		b = strings.TrimSuffix(b, ext)
	}
	return b
}

// serviceName picks the service name: the override, else the first
// non-empty candidate.
func serviceName(opts Options, candidates ...string) ir.ServiceName {
	if opts.Service != "" {
		return ir.ServiceIdent(opts.Service)
	}
	for _, c := range candidates {
		if strings.TrimSpace(c) != "" {
			return ir.ServiceIdent(c)
		}
	}
	return ir.ServiceIdent("")
}

// diags collects diagnostics for one source.
type diags struct {
	file string
	list []ir.Diagnostic
}

func (d *diags) add(code ir.DiagCode, pointer, format string, args ...any) {
	d.list = append(d.list, ir.Diagnostic{Code: code, File: d.file, Pointer: pointer, Message: fmt.Sprintf(format, args...)})
}

// esc escapes one JSON pointer segment (RFC 6901).
func esc(s string) string { return ir.EscapeToken(s) }

// unesc undoes esc.
func unesc(s string) string { return ir.UnescapeToken(s) }

// Helpers over JSON values decoded into any.

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

func asString(v any) string {
	s, _ := v.(string)
	return s
}

func asBool(v any) bool {
	b, _ := v.(bool)
	return b
}

// stringSet is the set of strings in a JSON array (e.g. "required").
func stringSet(v any) map[string]bool {
	s := asSlice(v)
	if len(s) == 0 {
		return nil
	}
	set := make(map[string]bool, len(s))
	for _, x := range s {
		if str, ok := x.(string); ok {
			set[str] = true
		}
	}
	return set
}

// lookup resolves a local JSON pointer ("/a/b", without "#") in doc.
func lookup(doc any, ptr string) (any, bool) { return ir.Lookup(doc, ptr) }
