package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/service"
	"github.com/google/uuid"
	"golang.org/x/term"
)

// runMessagingSet stores a universe's Open Cloud key. The key is read
// from stdin (asked for without echo on a terminal), never from a flag,
// so that it stays out of shell history and process listings.
func runMessagingSet(ctx context.Context, e *env) error {
	return withUniverse(ctx, e, "messaging set", func(ctx context.Context, f *flags, svc *service.Service, orgID uuid.UUID, universe string) error {
		key, err := readMessagingKey(e)
		if err != nil {
			return err
		}
		k, err := svc.SetMessaging(ctx, orgID, universe, key)
		if err != nil {
			return err
		}
		return f.print(k, "commands of universe %s are now also pushed with the key …%s", k.UniverseID, k.Hint)
	})
}

func runMessagingList(ctx context.Context, e *env) error {
	f := newFlags(e, "messaging list")
	org := f.String("org", "", "organization id")
	return withExistingService(ctx, f, 0, func(svc *service.Service, _ []string) error {
		orgID, err := parseID("org", *org)
		if err != nil {
			return err
		}
		keys, err := svc.ListMessaging(ctx, orgID)
		if err != nil {
			return err
		}
		if *f.json {
			return f.print(keys, "")
		}
		for _, k := range keys {
			fmt.Fprintf(e.stdout, "%s  …%s  %s\n", k.UniverseID, k.Hint, gatehouse.FormatTime(time.Time(k.CreatedAt)))
		}
		return nil
	})
}

func runMessagingRemove(ctx context.Context, e *env) error {
	return withUniverse(ctx, e, "messaging remove", func(ctx context.Context, f *flags, svc *service.Service, orgID uuid.UUID, universe string) error {
		if err := svc.RemoveMessaging(ctx, orgID, universe); err != nil {
			return err
		}
		return f.print(map[string]string{"universeId": universe, "status": "removed"},
			"commands of universe %s are no longer pushed; its key is deleted", universe)
	})
}

// withUniverse runs fn for a messaging command that names one universe
// of one organization (--org, --universe-id, both required), with the
// service open.
func withUniverse(ctx context.Context, e *env, name string, fn func(ctx context.Context, f *flags, svc *service.Service, orgID uuid.UUID, universe string) error) error {
	f := newFlags(e, name)
	org := f.String("org", "", "organization id")
	universe := f.String("universe-id", "", "the platform universe id")
	f.actor(asUsage)
	return withService(ctx, f, 0, func(svc *service.Service, _ []string) error {
		orgID, err := parseID("org", *org)
		if err != nil {
			return err
		}
		if ctx, err = f.act(ctx, svc, orgID); err != nil {
			return err
		}
		if err := required("universe-id", *universe); err != nil {
			return err
		}
		return fn(ctx, f, svc, orgID, *universe)
	})
}

// readMessagingKey reads the key: asked for without echo on a terminal,
// else the whole of stdin (bounded), trimmed.
func readMessagingKey(e *env) (string, error) {
	if in, ok := e.stdin.(*os.File); ok && term.IsTerminal(int(in.Fd())) {
		return prompt(e, in, "Open Cloud API key: ")
	}
	b, err := io.ReadAll(io.LimitReader(e.stdin, gatehouse.MaxMessagingKey+2))
	if err != nil {
		return "", err
	}
	key := strings.TrimSpace(string(b))
	if key == "" {
		return "", usagef("pipe the Open Cloud API key on stdin (it is never taken from a flag), or run on a terminal to be asked for it")
	}
	return key, nil
}
