// Package readgate refuses the first call to a tool whose definition the
// agent has not read yet, and says exactly which lines to read.
//
// The generated surface is one file per service (api/<service>.py) with one
// def per tool; the manifest records each tool's line range. The gateway
// tells the Gate about every read it serves — read_api / the file resource
// ([Gate.Read]), find_tool with an exact name and help(api.svc.tool) inside a
// program ([Gate.ReadTool]) — and asks [Gate.Check] before each call.
//
// # Modes
//
//   - [PerFile] (the default, the zero Mode): a tool may be called once the
//     session's reads of its file covered its definition (the def line
//     through its docstring). A read of a line range unlocks the tools whose
//     definitions lie in it; a whole-file read unlocks them all; reading one
//     tool unlocks that tool, not its neighbours.
//   - [PerTool]: a tool may be called once its whole line range (with the
//     shapes printed just before its def) has been read.
//
// In both modes reads accumulate: lines 1-50 then 50-120 cover a tool on
// lines 41-63. A read that covers only part of the range does not unlock it.
//   - [Off]: every call passes.
//
// # Refusals
//
// A refused call gets a [*Refusal] whose message names the lines and the two
// ways to read them, for example:
//
//	read api/spotify.py lines 41-63 first: find_tool("spotify.show_liked_songs") or read_api("spotify", "41-63")
//
// The same message is used in both modes. A one-line definition says
// "line 7".
//
// A read counts when its text reaches the agent: the gateway records
// find_tool and read_api results and resource reads as it returns them;
// help() inside a program counts once run_code has returned the program's
// output, that is, from the next program on.
//
// Sessions are independent (one per agent conversation); a Gate is safe for
// concurrent use. [Gate.Forget] drops a session's state.
package readgate
