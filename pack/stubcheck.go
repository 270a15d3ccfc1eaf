package pack

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/codemode-dev/codemode/manifest"
	"github.com/codemode-dev/codemode/runtime/monty"
)

// ErrNoMonty is CheckStubs's error when no monty binary is found: the stubs
// were then checked by manifest.CheckPython alone.
var ErrNoMonty = errors.New("no monty binary")

// montyBin is the pack's runtime.monty, else the binary
// monty.FindBinaryNear finds from the pack's directory (node_modules beside
// the pack counts), else "" (the runtime then says how to install one).
func (p *Pack) montyBin() string {
	if p.Runtime.Monty != "" {
		return p.Path(p.Runtime.Monty)
	}
	bin, err := monty.FindBinaryNear(p.Dir)
	if err != nil {
		return ""
	}
	return bin
}

// CheckStubs hands each service's type-check stub, on its own, to Monty's
// checker with a program that names the service, as the runtime will. The
// services of a pack share one stub module at run time, and a module the
// checker cannot read leaves api undefined for every program; Compile has
// already checked each stub with manifest.CheckPython, and this makes sure the
// checker itself reads it. The binary is the pack's runtime.monty, else
// the one monty.FindBinary finds; without one, CheckStubs returns
// ErrNoMonty and checks nothing.
func (o *Output) CheckStubs(ctx context.Context, p *Pack) error {
	bin := p.montyBin()
	if bin == "" {
		return ErrNoMonty
	}
	for i := range o.Manifest.Services {
		ms := &o.Manifest.Services[i]
		if err := checkStub(ctx, bin, monty.StartOptions{NoSandbox: p.Runtime.NoSandbox()}, ms); err != nil {
			return err
		}
	}
	return nil
}

func checkStub(ctx context.Context, bin string, so monty.StartOptions, ms *manifest.Service) error {
	w, err := monty.StartWith(ctx, bin, so)
	if err != nil {
		return fmt.Errorf("checking the stub of %s: %w", ms.File, err)
	}
	defer w.Close()
	stubs := manifest.AssembleStubs([]*manifest.Service{ms})
	if err := w.Configure(monty.Config{ScriptName: "check.py", TypeCheck: true, TypeCheckStubs: stubs, TypeCheckFormat: "concise"}); err != nil {
		return fmt.Errorf("checking the stub of %s: %w", ms.File, err)
	}
	// The probe names an attribute no service has, inside a def so it is
	// checked but never run: a stub the checker read answers with exactly
	// that one error about the service's class. A stub it could not read
	// leaves api undefined, or (its parser recovers from some errors)
	// unknown, and then nothing is reported at all.
	out, err := w.Feed(ctx, "def _codemode_check():\n    api."+string(ms.Name)+"._codemode_probe\n", nil, monty.Funcs{})
	if err != nil {
		return fmt.Errorf("checking the stub of %s: %w", ms.File, err)
	}
	got := strings.TrimSpace(out.TypingError)
	want := "error[unresolved-attribute] Object of type `_svc_" + string(ms.Name) + "` has no attribute `_codemode_probe`"
	if strings.Count(got, "\n") > 0 || !strings.HasSuffix(got, want) {
		msg, _, _ := strings.Cut(got, "\n")
		if msg == "" {
			msg = "it reports nothing for an attribute the service lacks"
		}
		return fmt.Errorf("codemode bug: Monty's type checker cannot read the stub of %s (%s); nothing was written", ms.File, msg)
	}
	return nil
}
