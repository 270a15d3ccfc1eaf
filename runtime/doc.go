// Package runtime runs agents' programs against a generated surface.
//
// A Runtime loads a manifest (from codemode gen), connects each service to
// its upstream, and runs every program in its own Monty worker process,
// taken from a pre-started pool: the process that holds credentials never
// runs model-written code. Inside a program, tools are called as
// api.<service>.<tool>(...) or run_tool("wire_name", {...}); every call
// passes, in order, the grant, the read-gate, argument binding, validation
// (enriched schema, then the original), policy hooks and the upstream, and
// the full result comes back to the program as Python values.
//
// Programs run through a [Runner] (Config.Runner): Monty's worker pool
// ([MontyRunner]) unless another interpreter is named. The runtime owns the
// call path and speaks to the interpreter only through [Runner] and
// [Interp], in package monty's vocabulary (values, calls, replies,
// outcomes); the unit tests run it on a fake interpreter. With Monty's
// runner a program is type-checked first, by a long-lived checker that
// holds the stubs and never runs programs (checkers.go), and then runs in
// a pool worker without a type check; another Runner's workers check
// their programs themselves.
//
// A plain tool call is synchronous: a program calls a tool like a function
// and gets its result. api.aio.<service>.<tool>(...) is the same call as
// an awaitable, so `await asyncio.gather(...)` runs calls at the same time
// (parallel.go); jobs.submit runs one in the background past the program's
// end (jobs.go).
//
//	rt, err := runtime.New(ctx, runtime.Config{Manifest: m, Files: files, Upstreams: ups})
//	res, err := rt.Run(ctx, "session-1", `print(api.everything.echo(message="hi"))`)
//	fmt.Print(res.Text())
package runtime
