//go:build unix

package emit_test

import (
	"os"
	"testing"

	"github.com/codemode-dev/codemode/emit"
	"github.com/codemode-dev/codemode/enrich"
	"github.com/codemode-dev/codemode/internal/proccpu"
	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/manifest"
	"github.com/codemode-dev/codemode/parse"
)

// BenchmarkEmitStage is the last two stages of a compile (emit.Emit and
// manifest.Marshal) of one spec per sub-benchmark, the spec parsed,
// enriched and resolved once beforehand: the part of BenchmarkCompile
// (package parse) this package and manifest own, with less of the other
// stages' noise. cpu-s/op is the CPU of one emit and marshal on every core.
func BenchmarkEmitStage(b *testing.B) {
	for _, s := range []struct{ key, file string }{
		{"stripe", "stripe.yaml"},
		{"github", "github-rest.json"},
		{"kubernetes", "kubernetes-swagger.json"},
	} {
		b.Run(s.key, func(b *testing.B) {
			data, err := os.ReadFile("../testdata/corpus/openapi/" + s.file)
			if err != nil {
				b.Fatal(err)
			}
			svc, err := parse.OpenAPI(s.file, data, parse.Options{})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := enrich.Run(svc, enrich.Options{}); err != nil {
				b.Fatal(err)
			}
			ir.Resolve(svc)
			b.ReportAllocs()
			start := proccpu.Used()
			for b.Loop() {
				_, ms := emit.Emit(svc, string(svc.Name)+".py", nil)
				if _, err := manifest.Marshal(&manifest.Manifest{Version: manifest.Version, Services: []manifest.Service{ms}}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric((proccpu.Used()-start).Seconds()/float64(b.N), "cpu-s/op")
		})
	}
}
