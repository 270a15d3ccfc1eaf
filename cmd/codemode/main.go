// Command codemode compiles API descriptions (MCP tool lists, live MCP
// servers, OpenAPI specs) into typed Python modules and runs agents'
// programs against them in Monty.
//
//	codemode gen --mcp tools.json -o api/       compile one source
//	codemode gen -c codemode.yaml               compile a whole pack
//	codemode check -c codemode.yaml             fail if generated files are stale
//	codemode run -c codemode.yaml prog.py       run a program against the pack
//	codemode serve -c codemode.yaml             MCP server: find_tool + run_code
//
// Run "codemode help" for every command and flag.
package main

import "os"

func main() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
