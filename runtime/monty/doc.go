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
// for a spawn (more of them while programs wait); it fails closed when no
// worker can be started. A Checker type-checks programs' text in a
// long-lived worker that never runs them, so they can run in workers
// without a type check.
//
// Python values cross the boundary as Value (see value.go): nil, bool, int64,
// *big.Int, float64, string, []byte, []any (list), Tuple, *Dict, Set,
// *Instance, Function, *ExceptionValue and a few output-only kinds.
// FromJSON and ToJSON convert between Values and encoding/json data.
package monty

// Facts about the pinned binary (monty 0.0.23) this package relies on, each
// pinned by a test:
//
//   - Limits: exceeding MaxDuration or MaxMemory ends the feed with an
//     uncatchable TimeoutError("time limit exceeded: A > B") without a
//     traceback, or MemoryError("memory limit exceeded: N bytes > M bytes")
//     without one or with the frame of the allocation that crossed it;
//     Feed reports it as Outcome.Limit. Discard or reset such a session.
//     A program's own raise of the same exception has a traceback whose
//     innermost frame is marked HideCaret, which no limit has: it is not a
//     limit. Some allocations over MaxMemory end the child instead (exit
//     status 65, stderr "monty worker: allocation of N bytes exceeds the
//     memory limit"): Feed's error then wraps ErrMemoryLimit.
//   - Workers are started with a parent-death signal (SIGKILL) and in
//     their own process group, which Kill and Close kill as a whole;
//     Start puts them inside the OS sandbox of package runtime/sandbox
//     (StartOptions.NoSandbox opts out). There the binary needs no file
//     but its libraries: its reads of /proc/self/maps and
//     /sys/fs/cgroup/cpu/* fail with ENOENT, which it tolerates.
//   - A handler error is delivered with AbortFeed: the program stops at its
//     suspended call, uncatchably, and the session survives.
//   - Runtime tracebacks name each feed "<python-input-N>" (N counts feeds
//     in the session) with lines relative to that feed; type-check
//     diagnostics name it Config.ScriptName, lines also relative to the feed.
//   - Type checking: the stubs are a .pyi module (repl_type_stubs.pyi)
//     whose public names the fed code sees as if star-imported; stub bodies
//     may be a docstring alone; diagnostics inside the stubs are never
//     reported. A host object bound as `api` checks when the stubs say
//
//	class _github:
//	    def create_issue(self, title: str, *, state: Literal["open", "closed"] | None = None) -> Issue:
//	        """Docstring."""
//	class _api:
//	    github: _github
//	api: _api
//
//     (instance attributes, methods with self); @staticmethod tools on a
//     class-valued attribute are not checked at all.
//   - A checked feed's cost grows with the number of earlier feeds in the
//     session (about 0.5 ms at first, 6 ms after 1,000 feeds).
