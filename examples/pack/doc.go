// Package pack is an example codemode pack: the MCP reference server
// (@modelcontextprotocol/server-everything), compiled into api/ for programs
// and into this package for Go callers. codemode_gen.go is generated; it
// embeds api/ and declares a typed argument struct and call helper per tool.
//
// Regenerate with go generate; CI runs codemode check -c codemode.yaml.
package pack

//go:generate go run ../../cmd/codemode gen -c codemode.yaml
