// Package monty drives Monty, Pydantic's sandboxed Python interpreter, as a
// child process speaking the `monty subprocess` protocol.
//
// The protocol is framed protobuf (a 4-byte little-endian length, then the
// message) in strict alternation: the parent writes one ParentRequest on the
// child's stdin; the child answers with zero or more Print events and then one
// turn-ending ChildEvent on its stdout. This package hand-encodes the messages
// with protowire against the pinned binary (protocol_version 2), which differs
// from the published schema in places (Print is {1: stream, 2: text}).
//
// A Worker is one child process and one session: Configure it, Feed it
// snippets, answer its host calls through a Handler, Dump/Load its state,
// Close it. A Pool keeps configured workers ready so a program never waits
// for a spawn; it fails closed when no worker can be started.
//
// Python values cross the boundary as Value (see value.go): nil, bool, int64,
// *big.Int, float64, string, []byte, []any (list), Tuple, *Dict, Set,
// *Instance, Function, *ExceptionValue and a few output-only kinds.
// FromJSON and ToJSON convert between Values and encoding/json data.
package monty
