//go:build unix

package parse_test

import (
	"os"
	"testing"

	"github.com/codemode-dev/codemode/internal/proccpu"
)

// BenchmarkCompile compiles one spec per sub-benchmark (stripe, github,
// kubernetes) the way BenchmarkCompileVsKinFloor does, without the floor:
// the benchmark to profile (-cpuprofile, -memprofile) one spec's compile.
// cpu-s/op is the CPU time of a compile on every core (GC included), which
// other processes on the machine change less than the wall time.
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
			start := proccpu.Used()
			for b.Loop() {
				compileSpec(b, s.file, data)
			}
			b.ReportMetric((proccpu.Used()-start).Seconds()/float64(b.N), "cpu-s/op")
		})
	}
}
