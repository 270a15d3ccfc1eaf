package parse_test

import (
	"os"
	"testing"
)

// BenchmarkCompile compiles one spec per sub-benchmark (stripe, github,
// kubernetes) the way BenchmarkCompileVsKinFloor does, without the floor:
// the benchmark to profile (-cpuprofile, -memprofile) one spec's compile.
func BenchmarkCompile(b *testing.B) {
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
			b.ReportAllocs()
			for b.Loop() {
				compileSpec(b, s.file, data)
			}
		})
	}
}
