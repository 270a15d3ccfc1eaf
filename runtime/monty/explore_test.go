package monty

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"
)

func TestExplore(t *testing.T) {
	if os.Getenv("EXPLORE") == "" {
		t.Skip()
	}
	bin, err := FindBinary()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	run := func(cfg Config, code string, inputs []NamedValue) {
		w, err := Start(ctx, bin)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		if err := w.Configure(cfg); err != nil {
			t.Fatal(err)
		}
		h := Funcs{
			OnPrint: func(s Stream, text string) { fmt.Printf("PRINT %v %q\n", s, text) },
			OnCall: func(ctx context.Context, c *Call) (Reply, error) {
				fmt.Printf("CALL %+v\n", c)
				return Return(NewDict("a", int64(1))), nil
			},
			OnLookup: func(name string, o *UUID) (Value, bool) { fmt.Printf("LOOKUP %s %v\n", name, o); return nil, false },
		}
		t0 := time.Now()
		out, err := w.Feed(ctx, code, inputs, h)
		fmt.Printf("--- %v err=%v\n", time.Since(t0), err)
		if out != nil {
			fmt.Printf("value=%s limit=%q exec=%v\n", Format(out.Value), out.Limit, out.ExecTime)
			if out.Exception != nil {
				fmt.Printf("exc=%+v\n%s", out.Exception, out.Exception.Format())
			}
			if out.TypingError != "" {
				fmt.Printf("TYPING:\n%s\n", out.TypingError)
			}
		}
	}
	code := os.Getenv("EXPLORE")
	if b, err := os.ReadFile(code); err == nil {
		code = string(b)
	}
	stubs := ""
	if s := os.Getenv("STUBS"); s != "" {
		b, _ := os.ReadFile(s)
		stubs = string(b)
	}
	api := NewInstance("_api", Attr{"github", NewInstance("github", Attr{"create_issue", Function{Name: "github.create_issue"}})})
	run(Config{ScriptName: "prog.py", TypeCheck: stubs != "", TypeCheckStubs: stubs,
		Limits: Limits{MaxDuration: 500 * time.Millisecond, MaxMemory: 50 << 20}}, code, []NamedValue{{"api", api}})
}
