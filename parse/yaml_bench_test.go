//go:build unix

package parse

import (
	"os"
	"runtime"
	"testing"

	"github.com/codemode-dev/codemode/internal/proccpu"
	"gopkg.in/yaml.v3"
)

// BenchmarkYAMLStage decodes stripe.yaml (4.5 MB) the way OpenAPI does
// (decode, split on every core), and its parts on one goroutine: the whole
// document decoded unsplit, yaml.v3's node tree alone, the conversion of
// that tree into values alone, and the line scan that finds the split.
// cpu-s/op is the CPU time of one decode on every core (GC included).
func BenchmarkYAMLStage(b *testing.B) {
	data, err := os.ReadFile("../testdata/corpus/openapi/stripe.yaml")
	if err != nil {
		b.Fatal(err)
	}
	run := func(b *testing.B, f func()) {
		b.ReportAllocs()
		b.SetBytes(int64(len(data)))
		runtime.GC()
		start := proccpu.Used()
		for b.Loop() {
			f()
		}
		b.ReportMetric((proccpu.Used()-start).Seconds()/float64(b.N), "cpu-s/op")
	}
	b.Run("decode", func(b *testing.B) {
		run(b, func() {
			if _, _, err := decodeYAML("stripe.yaml", data); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("whole", func(b *testing.B) {
		old := splitMin
		splitMin = 1 << 62
		defer func() { splitMin = old }()
		run(b, func() {
			if _, _, err := decodeYAML("stripe.yaml", data); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("nodes", func(b *testing.B) {
		run(b, func() {
			var root yaml.Node
			if err := yaml.Unmarshal(data, &root); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("convert", func(b *testing.B) {
		var root yaml.Node
		if err := yaml.Unmarshal(data, &root); err != nil {
			b.Fatal(err)
		}
		run(b, func() {
			c := &yamlConv{order: order{}}
			if _, err := c.value(root.Content[0]); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("lines", func(b *testing.B) {
		run(b, func() {
			if _, ok := scanYAMLLines(data); !ok {
				b.Fatal("not scanned")
			}
		})
	})
}
