// Package emit prints a resolved IR: the Python surface a model reads
// (api/<service>.py), the type-check stubs the runtime hands to Monty, and the
// manifest the runtime loads. It never invents a name: every identifier comes
// from the IR. Output is byte-deterministic.
package emit
