package parse

import (
	"github.com/codemode-dev/codemode/ir"
)

// Server is what a live MCP server said about itself in its initialize
// result.
type Server struct {
	Name, Title, Version, Instructions string
}

// MCPListed compiles the tools a live MCP server listed. tools is the
// {"tools": [...]} document of every tools/list page, each tool as the
// server wrote it (the caller starts the server and lists it; parse only
// reads bytes). src names the server (its command line or URL) in errors;
// the service is named after the server's name, else fallback.
func MCPListed(src string, tools []byte, server Server, fallback string, opts Options) (*ir.Service, error) {
	doc, ord, err := decodeJSON(src, tools)
	if err != nil {
		return nil, err
	}
	svc, err := mcpService(src, doc, ord, opts)
	if err != nil {
		return nil, err
	}
	svc.Name = serviceName(opts, server.Name, fallback)
	svc.Title = server.Title
	if svc.Title == "" {
		svc.Title = server.Name
	}
	svc.Description, svc.Version = server.Instructions, server.Version
	svc.Source = ir.Source{Kind: ir.SourceMCP, Digest: digest(tools)}
	return svc, nil
}
