package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/service"
	"github.com/google/uuid"
)

// exitNoPolicy is policy show's status for an access point that has no
// policy yet: a script can tell "none" from a failure (1) without reading
// the message.
const exitNoPolicy = 3

// noPolicyError is policy show's answer for an access point without a
// policy.
type noPolicyError struct{ id uuid.UUID }

func (e *noPolicyError) Error() string {
	return fmt.Sprintf("access point %s has no policy yet: decisions for it are denied (ACCESS_POINT_DISABLED, rule failMode) until one is set with 'gatehouse policy set'", e.id)
}

func (e *noPolicyError) ExitStatus() int { return exitNoPolicy }

func runPolicyShow(ctx context.Context, e *env) error {
	f := newFlags(e, "policy show")
	return withExistingService(ctx, f, 1, func(svc *service.Service, args []string) error {
		id, err := positionalID(args, "policy show ACCESS_POINT_ID", "ACCESS_POINT_ID")
		if err != nil {
			return err
		}
		orgID, err := svc.OrgOfAccessPoint(ctx, id)
		if err != nil {
			return err
		}
		p, err := svc.Policy(ctx, orgID, id)
		if err != nil {
			return err
		}
		if p == nil {
			return &noPolicyError{id: id}
		}
		if *f.json {
			return f.print(p, "")
		}
		printPolicy(e.stdout, id.String(), *p)
		return nil
	})
}

// maxPolicyFile bounds what policy set reads: a policy at every bound
// (1,000 allow and 1,000 deny rules, 366 exceptions of 10 windows, 100
// windows) is about half a megabyte as policy show --json prints it
// (TestPolicySetLargest).
const maxPolicyFile = 4 << 20

// policySetRecord is what policy set prints with --json: the policy as
// stored and whether this call made its version.
type policySetRecord struct {
	AccessPointID uuid.UUID        `json:"accessPointId"`
	Changed       bool             `json:"changed"`
	Policy        gatehouse.Policy `json:"policy"`
}

func runPolicySet(ctx context.Context, e *env) error {
	f := newFlags(e, "policy set")
	ifVersion := f.String("if-version", "", "store only if the current version is still N (0: the access point has no policy yet); else exit 1 and change nothing")
	f.actor(asUsage)
	return withService(ctx, f, 2, func(svc *service.Service, args []string) error {
		const usage = "policy set ACCESS_POINT_ID FILE|- [--if-version N]"
		if len(args) != 2 {
			return usagef("usage: gatehouse %s", usage)
		}
		id, err := positionalID(args[:1], usage, "ACCESS_POINT_ID")
		if err != nil {
			return err
		}
		var expect *int64
		if *ifVersion != "" {
			v, err := strconv.ParseInt(*ifVersion, 10, 64)
			if err != nil || v < 0 {
				return usagef("--if-version must be a policy version (0 for none yet), got %q", *ifVersion)
			}
			expect = &v
		}
		data, err := readInput(e, args[1], maxPolicyFile)
		if err != nil {
			return err
		}
		orgID, err := svc.OrgOfAccessPoint(ctx, id)
		if err != nil {
			return err
		}
		if ctx, err = f.act(ctx, svc, orgID); err != nil {
			return err
		}
		p, err := decodePolicy(data)
		if err != nil {
			return policyInvalid(e, args[1], err)
		}
		before, err := svc.Policy(ctx, orgID, id)
		if err != nil {
			return err
		}
		stored, err := svc.SetPolicy(ctx, orgID, id, p, expect)
		switch {
		case errors.As(err, new(*gatehouse.StateError)): // archived
			return err
		case errors.Is(err, gatehouse.ErrConflict):
			return conflictError(ctx, svc, orgID, id, *expect, err)
		case errors.Is(err, gatehouse.ErrInvalid):
			return policyInvalid(e, args[1], err)
		case err != nil:
			return err
		}
		changed := before == nil || before.Version != stored.Version
		rec := policySetRecord{AccessPointID: id, Changed: changed, Policy: stored}
		if !changed {
			return f.print(rec, "unchanged: access point %s already has this policy, version %d", id, stored.Version)
		}
		return f.print(rec, "stored policy version %d of access point %s", stored.Version, id)
	})
}

// readInput reads a FILE argument, or standard input for "-", refusing
// more than limit bytes.
func readInput(e *env, name string, limit int64) ([]byte, error) {
	r := e.stdin
	if name != "-" {
		file, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		defer file.Close()
		r = file
	}
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: more than %d MiB, larger than any policy", name, limit>>20)
	}
	return data, nil
}

// decodePolicy reads a policy as the API does (gatehouse.DecodePolicy),
// and says where a file stops being JSON by line and column.
func decodePolicy(data []byte) (gatehouse.Policy, error) {
	if err := jsonSyntax(data); err != nil {
		return gatehouse.Policy{}, err
	}
	return gatehouse.DecodePolicy(data)
}

// policyInvalid prints every problem of a policy on stderr, one a line in
// the order of the document's paths, and returns the error to exit 1 with.
func policyInvalid(e *env, name string, err error) error {
	var ve *gatehouse.ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	if name == "-" {
		name = "standard input"
	}
	fields := slices.SortedFunc(maps.Keys(ve.Issues), comparePaths)
	n := 0
	for _, field := range fields {
		for _, m := range ve.Issues[field] {
			n++
			if field == "" {
				fmt.Fprintf(e.stderr, "%s: %s\n", name, m)
			} else {
				fmt.Fprintf(e.stderr, "%s: %s\n", field, m)
			}
		}
	}
	return &policyError{n: n, err: err}
}

// policyError is a policy refused for its problems, printed already.
type policyError struct {
	n   int
	err error
}

func (e *policyError) Error() string {
	if e.n == 1 {
		return "the policy has a problem (above); nothing was stored"
	}
	return fmt.Sprintf("the policy has %d problems (above); nothing was stored", e.n)
}

func (e *policyError) Unwrap() error { return e.err }

// comparePaths orders field paths as a reader meets them: indexes by
// number (windows[2] before windows[10]), then text.
func comparePaths(a, b string) int {
	for a != "" && b != "" {
		na, ra, okA := leadingNumber(a)
		nb, rb, okB := leadingNumber(b)
		if okA && okB {
			if na != nb {
				return na - nb
			}
			a, b = ra, rb
			continue
		}
		if a[0] != b[0] {
			return int(a[0]) - int(b[0])
		}
		a, b = a[1:], b[1:]
	}
	return len(a) - len(b)
}

// leadingNumber reads the digits s starts with.
func leadingNumber(s string) (int, string, bool) {
	end := strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' })
	if end == -1 {
		end = len(s)
	}
	if end == 0 {
		return 0, s, false
	}
	n, err := strconv.Atoi(s[:end])
	return n, s[end:], err == nil
}

// conflictError says which version the access point has now, for a set
// whose --if-version is stale.
func conflictError(ctx context.Context, svc *service.Service, orgID, id uuid.UUID, expected int64, err error) error {
	now := "another version"
	if p, perr := svc.Policy(ctx, orgID, id); perr == nil {
		now = "no policy"
		if p != nil {
			now = fmt.Sprintf("policy version %d", p.Version)
		}
	}
	named := fmt.Sprintf("version %d", expected)
	if expected == 0 {
		named = "no policy yet"
	}
	return &staleError{err: err, msg: fmt.Sprintf("access point %s has %s now, not what --if-version %d names (%s): nothing was stored; read it again with 'gatehouse policy show %s'",
		id, now, expected, named, id)}
}

// staleError is a set refused for a stale --if-version: the service's
// conflict (exit status 1), said for the operator.
type staleError struct {
	msg string
	err error
}

func (e *staleError) Error() string { return e.msg }

func (e *staleError) Unwrap() error { return e.err }
