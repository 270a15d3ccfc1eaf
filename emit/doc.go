// Package emit prints a resolved IR: the Python surface a model reads
// (api/<service>.py), each service's type-check stub, the manifest entry
// (ManifestFor) the runtime loads, and a Go package that embeds the surface
// (GoPackage). The manifest's types, its reading and writing and the stub
// assembly live in package manifest, which is all a runtime links. It never
// invents a name: every identifier comes from the IR. Output is
// byte-deterministic.
package emit
