// Package manifest is the compiled surface: the contract between the
// compiler (emit writes it) and everything that runs it (runtime,
// runtime/upstream, gateway, validate and generated Go packages read it).
//
// It holds the manifest's types (Manifest, Service, Tool, Param), reading
// and writing them (Read, Marshal), the Surface (manifest plus .py files)
// and LoadSurface over any fs.FS, tool pins (Pin), and the type-check stub
// module Monty is handed (AssembleStubs, with CheckPython guarding each
// service's stub). It imports only ir and the standard library, so a
// program that runs a pack links no code generator.
package manifest
