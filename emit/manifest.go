package emit

import (
	"encoding/json"

	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/manifest"
)

// ManifestFor builds the manifest entry of a resolved service whose .py has
// the given spans. decisions holds each tool's enrichment log lines (JSON),
// keyed by wire name; it may be nil.
func ManifestFor(svc *ir.Service, file string, spans map[ir.WireName]Span, decisions map[ir.WireName][]json.RawMessage) manifest.Service {
	return manifestFor(svc, file, spans, decisions, canonicalShapes(svc))
}

func manifestFor(svc *ir.Service, file string, spans map[ir.WireName]Span, decisions map[ir.WireName][]json.RawMessage, canon map[*ir.ObjectType]*ir.ObjectType) manifest.Service {
	// The pins are hashed beside the stub and the signatures (each only
	// reads the service).
	pinsOf := make(chan []string, 1)
	go func() { pinsOf <- manifest.Pins(svc.Tools) }()
	ms := manifest.Service{
		Name: svc.Name, Title: svc.Title, File: file, Source: svc.Source,
		Servers: svc.Servers, Security: svc.Security, Tools: make([]manifest.Tool, 0, len(svc.Tools)),
		Stub: serviceStub(svc, canon), Defs: map[string]any{},
	}
	for _, d := range svc.Diagnostics {
		ms.Diagnostics = append(ms.Diagnostics, d.String())
	}
	sigs := signatures(svc, canon)
	hoist := &manifest.Hoister{Defs: ms.Defs}
	pins := <-pinsOf
	for i, t := range svc.Tools {
		sp := spans[t.Wire]
		mt := manifest.Tool{
			Wire: t.Wire, Py: t.Py, Call: "api." + string(svc.Name) + "." + string(t.Py),
			Signature: sigs[i],
			Title:     t.Title, Description: t.Description, Deprecated: t.Deprecated,
			Lines: [2]int{sp.Start, sp.End}, Params: make([]manifest.Param, 0, len(t.Params)),
			Input: t.Input, Output: t.Output, Annotations: t.Annotations, HTTP: t.HTTP,
			Enrichment: decisions[t.Wire], Pin: pins[i],
		}
		mt.Original = t.Original
		mt.Input = hoist.Hoist(mt.Input)
		mt.Original = hoist.Hoist(mt.Original)
		mt.Output = hoist.Hoist(mt.Output)
		if t.ResultObserved {
			mt.Observed = t.Observed
		}
		for _, p := range SignatureOrder(t) {
			mt.Params = append(mt.Params, manifest.Param{
				Arg: p.Arg, Wire: p.Wire, Py: p.Py, In: p.In, Required: p.Required,
				Style: p.Style, Explode: p.Explode, Ref: p.Ref,
			})
		}
		ms.Tools = append(ms.Tools, mt)
	}
	return ms
}

// SignatureOrder is the order parameters appear in the Python signature:
// required ones first, each group in source order.
func SignatureOrder(t *ir.Tool) []*ir.Param {
	if len(t.Params) == 0 {
		return nil
	}
	// One slice at its size, the required ones then the rest (called for
	// every tool by the module, the stub, the signatures and the manifest).
	out := make([]*ir.Param, 0, len(t.Params))
	for _, p := range t.Params {
		if p.Required {
			out = append(out, p)
		}
	}
	for _, p := range t.Params {
		if !p.Required {
			out = append(out, p)
		}
	}
	return out
}
