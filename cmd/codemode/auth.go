package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/codemode-dev/codemode/runtime/upstream"
)

const authUsage = "usage: codemode auth login|logout [-c codemode.yaml] SERVICE, or codemode auth status [-c codemode.yaml]"

// cmdAuth is "codemode auth login|logout|status": OAuth for the pack's
// mcp_url services with auth type oauth. login connects and, when the
// server asks for authorization, prints the URL to open and waits on the
// loopback redirect for the browser (with auth.headless it follows the
// authorization server's redirect itself); the token is kept in
// .codemode/oauth/ beside the pack (0600), where gen, run and serve find
// it. logout forgets it; status says which services have one.
func cmdAuth(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usageErr(authUsage)
	}
	sub := args[0]
	fs := newFlags("auth "+sub, stderr)
	config := fs.String("c", "codemode.yaml", "pack `FILE`")
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	switch sub {
	case "login", "logout":
		if fs.NArg() != 1 {
			return usageErr(authUsage)
		}
	case "status":
		if fs.NArg() != 0 {
			return usageErr(authUsage)
		}
	default:
		return usageErr(authUsage)
	}
	p, err := loadPack(*config, nil, "")
	if err != nil {
		return err
	}
	switch sub {
	case "login":
		file, err := p.Login(ctx, fs.Arg(0), stderr)
		if err != nil {
			return err
		}
		if file == "" {
			fmt.Fprintf(stdout, "%s uses client_credentials: codemode gets its token itself, no login needed (checked: the server accepts it)\n", fs.Arg(0))
			return nil
		}
		fmt.Fprintf(stdout, "logged in to %s; the token is kept in %s\n", fs.Arg(0), file)
	case "logout":
		had, err := p.Logout(fs.Arg(0))
		if err != nil {
			return err
		}
		if had {
			fmt.Fprintf(stdout, "logged out of %s: its token is deleted\n", fs.Arg(0))
		} else {
			fmt.Fprintf(stdout, "%s had no token\n", fs.Arg(0))
		}
	case "status":
		n := 0
		for _, s := range p.Services {
			file := p.TokenFile(s)
			if file == "" {
				continue
			}
			n++
			name := s.Name
			if name == "" {
				name = s.MCPURL
			}
			if s.Auth.Grant == "client_credentials" {
				fmt.Fprintf(stdout, "%s: client_credentials, no login needed\n", name)
				continue
			}
			info, err := upstream.ReadTokenInfo(file)
			switch {
			case errors.Is(err, os.ErrNotExist):
				fmt.Fprintf(stdout, "%s: not logged in (codemode auth login %s)\n", name, name)
			case err != nil:
				fmt.Fprintf(stdout, "%s: %v\n", name, err)
			case info.Resource != s.MCPURL:
				fmt.Fprintf(stdout, "%s: the token is for %s, not %s (codemode auth login %s)\n", name, info.Resource, s.MCPURL, name)
			default:
				state := "no expiry given"
				if !info.Expiry.IsZero() {
					verb := "expires"
					if time.Now().After(info.Expiry) {
						verb = "expired"
					}
					state = verb + " " + info.Expiry.UTC().Format(time.RFC3339)
				}
				if info.Refreshable {
					state += ", refreshable"
				}
				fmt.Fprintf(stdout, "%s: logged in (client %s), token %s, kept in %s\n", name, info.ClientID, state, file)
			}
		}
		if n == 0 {
			return fmt.Errorf("the pack has no service with auth type oauth")
		}
	}
	return nil
}
