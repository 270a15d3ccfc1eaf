package parse_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/emit"
	"github.com/codemode-dev/codemode/enrich"
	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/manifest"
	"github.com/codemode-dev/codemode/parse"
	"github.com/getkin/kin-openapi/openapi2"
	"github.com/getkin/kin-openapi/openapi2conv"
	"github.com/getkin/kin-openapi/openapi3"
)

// compileSpec compiles one spec the way a pack does (parse, enrich with
// its proposals worked out during the parse and Resolve following it, the
// Python module, the manifest entry with its pins, and the manifest's
// bytes, which it returns).
func compileSpec(tb testing.TB, name string, data []byte) []byte {
	pf := enrich.NewPrefetch(ir.SourceOpenAPI)
	svc, err := parse.OpenAPI(name, data, parse.Options{Parsed: pf.Add})
	pf.End()
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := enrich.RunResolving(svc, enrich.Options{Prefetch: pf}); err != nil {
		tb.Fatal(err)
	}
	return manifestOf(tb, svc)
}

// manifestOf emits svc (enriched and resolved) and returns the bytes of a
// manifest of it alone.
func manifestOf(tb testing.TB, svc *ir.Service) []byte {
	_, ms := emit.Emit(svc, string(svc.Name)+".py", nil)
	data, err := manifest.Marshal(&manifest.Manifest{Version: manifest.Version, Services: []manifest.Service{ms}})
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

// kinLoad is the floor: kin-openapi loading the same bytes (decode and
// resolve its references), no code generated.
// A Swagger 2.0 document (Kubernetes) is decoded as openapi2 and
// converted to 3 (ToV3 resolves its references).
func kinLoad(tb testing.TB, data []byte, swagger bool) {
	if swagger {
		var v2 openapi2.T
		if err := json.Unmarshal(data, &v2); err != nil {
			tb.Fatal(err)
		}
		if _, err := openapi2conv.ToV3(&v2); err != nil {
			tb.Fatal(err)
		}
		return
	}
	if _, err := openapi3.NewLoader().LoadFromData(data); err != nil {
		tb.Fatal(err)
	}
}

// peakHeap runs f and returns the largest live heap seen while it ran, in
// bytes (sampled every millisecond, after a GC before it starts).
func peakHeap(f func()) uint64 {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 { metrics.Read(sample); return sample[0].Value.Uint64() }
	peak := read()
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if v := read(); v > peak {
					peak = v
				}
			}
		}
	}()
	f()
	close(done)
	wg.Wait()
	if v := read(); v > peak {
		peak = v
	}
	return peak
}

// BenchmarkCompileVsKinFloor compiles Stripe (YAML), GitHub REST (JSON)
// and Kubernetes (Swagger 2.0) and loads each with kin-openapi in the same run, reporting
// stripe-x-floor, github-x-floor and kubernetes-x-floor: codemode's compile time over
// kin-openapi's load time (the goal is <= 0.5), and each compile's peak
// live heap in MB.
func BenchmarkCompileVsKinFloor(b *testing.B) {
	specs := []struct{ key, file string }{
		{"stripe", "stripe.yaml"},
		{"github", "github-rest.json"},
		{"kubernetes", "kubernetes-swagger.json"},
	}
	datas := make([][]byte, len(specs))
	for i, s := range specs {
		d, err := os.ReadFile("../testdata/corpus/openapi/" + s.file)
		if err != nil {
			b.Fatal(err)
		}
		datas[i] = d
	}
	compile := make([]time.Duration, len(specs))
	floor := make([]time.Duration, len(specs))
	peak := make([]uint64, len(specs))
	for b.Loop() {
		for i, s := range specs {
			start := time.Now()
			kinLoad(b, datas[i], s.key == "kubernetes")
			floor[i] += time.Since(start)
			var d time.Duration
			p := peakHeap(func() {
				start := time.Now()
				compileSpec(b, s.file, datas[i])
				d = time.Since(start)
			})
			compile[i] += d
			peak[i] = max(peak[i], p)
		}
	}
	for i, s := range specs {
		b.ReportMetric(compile[i].Seconds()/floor[i].Seconds(), s.key+"-x-floor")
		b.ReportMetric(float64(peak[i])/1e6, s.key+"-peak-MB")
		b.ReportMetric(compile[i].Seconds()/float64(b.N), s.key+"-s/compile")
	}
}

// TestPinnerMatchesMarshalOnCorpus: over every tool of the OpenAPI
// corpus, compiled as a pack does, one Pinner per service gives the pin
// encoding/json gives, in both formats (a changed pin would break every
// pack's pins; format 1 is how committed packs are still checked).
func TestPinnerMatchesMarshalOnCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles the whole corpus")
	}
	files, _ := filepath.Glob("../testdata/corpus/openapi/*")
	mcps, _ := filepath.Glob("../testdata/corpus/mcp/*")
	n := 0
	for _, f := range append(files, mcps...) {
		if strings.HasSuffix(f, ".source.json") {
			continue
		}
		var svc *ir.Service
		var err error
		if strings.Contains(f, "/mcp/") {
			svc, err = parse.MCPFile(f, parse.Options{})
		} else {
			svc, err = parse.OpenAPIFile(f, parse.Options{})
		}
		if err != nil {
			t.Fatal(err)
		}
		if _, err := enrich.Run(svc, enrich.Options{}); err != nil {
			t.Fatal(err)
		}
		ir.Resolve(svc)
		p, p1 := manifest.NewPinner(), manifest.NewPinnerV1()
		ref := &marshalV2{defs: map[*byte]string{}}
		pins := manifest.Pins(svc.Tools)
		for i, tool := range svc.Tools {
			n++
			if got, want := p1.Pin(tool), marshalPin(tool); got != want {
				t.Errorf("%s %s: format 1 pin %s, encoding/json %s", f, tool.Wire, got, want)
			}
			want := ref.pin(tool)
			if got := p.Pin(tool); got != want {
				t.Errorf("%s %s: pin %s, encoding/json %s", f, tool.Wire, got, want)
			}
			if pins[i] != want {
				t.Errorf("%s %s: Pins %s, encoding/json %s", f, tool.Wire, pins[i], want)
			}
		}
	}
	if n < 3000 {
		t.Errorf("%d tools pinned", n)
	}
}

func marshalPin(t *ir.Tool) string {
	in := t.Original
	if in == nil {
		in = t.Input
	}
	def := struct {
		Name        ir.WireName `json:"name"`
		Description string      `json:"description"`
		Input       ir.Schema   `json:"input"`
		Output      ir.Schema   `json:"output,omitempty"`
	}{t.Wire, t.Description, in, t.Output}
	j, err := json.Marshal(def)
	if err != nil {
		j = []byte("null")
	}
	sum := sha256.Sum256(j)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// marshalV2 is pin format 2 by encoding/json: each "$defs" object written
// as its names mapped to the "sha256:" hash of each definition in the same
// form (remembered by map, as a definition is the same wherever it is met).
type marshalV2 struct{ defs map[*byte]string }

func (r *marshalV2) pin(t *ir.Tool) string {
	in := t.Original
	if in == nil {
		in = t.Input
	}
	def := struct {
		Name        ir.WireName `json:"name"`
		Description string      `json:"description"`
		Input       any         `json:"input"`
		Output      any         `json:"output,omitempty"`
	}{t.Wire, t.Description, r.form(map[string]any(in), 0), nil}
	if len(t.Output) > 0 {
		def.Output = r.form(map[string]any(t.Output), 0)
	}
	j, err := json.Marshal(def)
	if err != nil {
		j = []byte("null")
	}
	sum := sha256.Sum256(j)
	return "v2:sha256:" + hex.EncodeToString(sum[:])
}

func (r *marshalV2) form(v any, depth int) any {
	if depth > 10000 {
		return math.NaN()
	}
	switch x := v.(type) {
	case map[string]any:
		if x == nil {
			return x
		}
		out := map[string]any{}
		for k, e := range x {
			d, ok := e.(map[string]any)
			if !ok || k != "$defs" || d == nil {
				out[k] = r.form(e, depth+1)
				continue
			}
			hashes := map[string]any{}
			for name, def := range d {
				dm, isMap := def.(map[string]any)
				if h, ok := r.defs[mapID(dm)]; ok && isMap && dm != nil {
					hashes[name] = h
					continue
				}
				j, err := json.Marshal(r.form(def, depth+1))
				if err != nil {
					return math.NaN()
				}
				sum := sha256.Sum256(j)
				hashes[name] = "sha256:" + hex.EncodeToString(sum[:])
				if isMap && dm != nil {
					r.defs[mapID(dm)] = hashes[name].(string)
				}
			}
			out[k] = hashes
		}
		return out
	case []any:
		if x == nil {
			return x
		}
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = r.form(e, depth+1)
		}
		return out
	}
	return v
}

func mapID(m map[string]any) *byte { return (*byte)(reflect.ValueOf(m).UnsafePointer()) }
