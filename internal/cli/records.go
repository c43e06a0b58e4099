package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/password"
	"github.com/google/uuid"
	"golang.org/x/term"
)

// withStore parses f, opens (creating and migrating) the store and runs fn with it.
func withStore(ctx context.Context, f *flags, maxArgs int, fn func(store gatehouse.Store, args []string) error) error {
	return withOpenedStore(ctx, f, maxArgs, openStore, fn)
}

// withExistingStore is withStore for a command that only reads: the
// database must exist and be migrated already.
func withExistingStore(ctx context.Context, f *flags, maxArgs int, fn func(store gatehouse.Store, args []string) error) error {
	return withOpenedStore(ctx, f, maxArgs, openExistingStore, fn)
}

func withOpenedStore(ctx context.Context, f *flags, maxArgs int, open func(context.Context, string) (gatehouse.Store, error),
	fn func(store gatehouse.Store, args []string) error) error {
	args, err := f.parse(maxArgs)
	if err != nil {
		return err
	}
	store, err := open(ctx, *f.db)
	if err != nil {
		return err
	}
	defer store.Close()
	return fn(store, args)
}

func runMigrate(ctx context.Context, e *env) error {
	f := newFlags(e, "migrate")
	return withStore(ctx, f, 0, func(gatehouse.Store, []string) error {
		return f.print(map[string]string{"status": "migrated"}, "database %s is up to date", *f.db)
	})
}

func runOrgCreate(ctx context.Context, e *env) error {
	f := newFlags(e, "org create")
	name := f.String("name", "", "organization name")
	return withStore(ctx, f, 0, func(store gatehouse.Store, _ []string) error {
		if err := required("name", *name); err != nil {
			return err
		}
		o, err := store.CreateOrganization(ctx, *name)
		if err != nil {
			return err
		}
		return f.print(o, "created organization %s %q", o.ID, o.Name)
	})
}

func runOrgList(ctx context.Context, e *env) error {
	f := newFlags(e, "org list")
	return withExistingStore(ctx, f, 0, func(store gatehouse.Store, _ []string) error {
		orgs, err := store.ListOrganizations(ctx)
		if err != nil || *f.json {
			return errors.Join(err, f.print(orgs, ""))
		}
		for _, o := range orgs {
			fmt.Fprintf(e.stdout, "%s  %s  %s\n", o.ID, gatehouse.FormatTime(time.Time(o.CreatedAt)), o.Name)
		}
		return nil
	})
}

func runLocationCreate(ctx context.Context, e *env) error {
	f := newFlags(e, "location create")
	org := f.String("org", "", "organization id")
	name := f.String("name", "", "location name")
	return withStore(ctx, f, 0, func(store gatehouse.Store, _ []string) error {
		orgID, err := parseID("org", *org)
		if err != nil {
			return err
		}
		if err := required("name", *name); err != nil {
			return err
		}
		l, err := store.CreateLocation(ctx, orgID, *name)
		if err != nil {
			return err
		}
		return f.print(struct {
			ID        string         `json:"id"`
			Name      string         `json:"name"`
			CreatedAt gatehouse.Time `json:"createdAt"`
		}{l.ID.String(), l.Name, l.CreatedAt}, "created location %s %q", l.ID, l.Name)
	})
}

func runAccessPointCreate(ctx context.Context, e *env) error {
	f := newFlags(e, "access-point create")
	loc := f.String("location", "", "location id")
	name := f.String("name", "", "access point name")
	return withStore(ctx, f, 0, func(store gatehouse.Store, _ []string) error {
		locID, err := parseID("location", *loc)
		if err != nil {
			return err
		}
		if err := required("name", *name); err != nil {
			return err
		}
		orgID, err := orgOfLocation(ctx, store, locID)
		if err != nil {
			return err
		}
		ap, err := store.CreateAccessPoint(ctx, orgID, locID, *name)
		if err != nil {
			return err
		}
		return f.print(ap, "created access point %s %q in location %s", ap.ID, ap.Name, ap.LocationID)
	})
}

// orgOfLocation finds which organization a location belongs to. The
// operator's CLI spans organizations; the API never does.
func orgOfLocation(ctx context.Context, store gatehouse.Store, locID uuid.UUID) (uuid.UUID, error) {
	orgs, err := store.ListOrganizations(ctx)
	if err != nil {
		return uuid.UUID{}, err
	}
	for _, o := range orgs {
		if _, err := store.FindLocation(ctx, o.ID, locID); err == nil {
			return o.ID, nil
		} else if !errors.Is(err, gatehouse.ErrNotFound) {
			return uuid.UUID{}, err
		}
	}
	return uuid.UUID{}, fmt.Errorf("location %s: %w", locID, gatehouse.ErrNotFound)
}

func runUserCreate(ctx context.Context, e *env) error {
	f := newFlags(e, "user create")
	org := f.String("org", "", "organization id")
	email := f.String("email", "", "sign-in email")
	name := f.String("name", "", "display name")
	return withStore(ctx, f, 0, func(store gatehouse.Store, _ []string) error {
		orgID, err := parseID("org", *org)
		if err != nil {
			return err
		}
		if err := required("email", *email); err != nil {
			return err
		}
		hash, err := readPasswordHash(e)
		if err != nil {
			return err
		}
		u, err := store.CreateUser(ctx, gatehouse.User{OrgID: orgID, Email: *email, Name: *name, PasswordHash: hash})
		if err != nil {
			return err
		}
		return f.print(struct {
			ID        string         `json:"id"`
			Email     string         `json:"email"`
			Name      string         `json:"name"`
			CreatedAt gatehouse.Time `json:"createdAt"`
		}{u.ID.String(), u.Email, u.Name, gatehouse.Time(u.CreatedAt)}, "created user %s %s", u.ID, u.Email)
	})
}

func runUserSetPassword(ctx context.Context, e *env) error {
	f := newFlags(e, "user set-password")
	email := f.String("email", "", "the user's sign-in email")
	return withStore(ctx, f, 0, func(store gatehouse.Store, _ []string) error {
		if err := required("email", *email); err != nil {
			return err
		}
		hash, err := readPasswordHash(e)
		if err != nil {
			return err
		}
		u, err := store.SetUserPassword(ctx, *email, hash)
		if err != nil {
			return err
		}
		return f.print(struct {
			ID    string `json:"id"`
			Email string `json:"email"`
		}{u.ID.String(), u.Email}, "set the password of %s; their sessions have ended", u.Email)
	})
}

const minPasswordLen = 12

// readPasswordHash reads a new password (see readPassword) and hashes it.
func readPasswordHash(e *env) (string, error) {
	pw, err := readPassword(e)
	if err != nil {
		return "", err
	}
	return password.Hash(pw)
}

// readPassword takes the password from GATEHOUSE_PASSWORD or, on a
// terminal, from a prompt without echo, asked twice.
func readPassword(e *env) (string, error) {
	pw := e.getenv("GATEHOUSE_PASSWORD")
	if pw == "" {
		in, ok := e.stdin.(*os.File)
		if !ok || !term.IsTerminal(int(in.Fd())) {
			return "", usagef("set GATEHOUSE_PASSWORD, or run on a terminal to be asked for the password")
		}
		first, err := prompt(e, in, "Password: ")
		if err != nil {
			return "", err
		}
		again, err := prompt(e, in, "Password again: ")
		if err != nil {
			return "", err
		}
		if first != again {
			return "", errors.New("the passwords differ")
		}
		pw = first
	}
	if utf8.RuneCountInString(pw) < minPasswordLen {
		return "", fmt.Errorf("the password must have at least %d characters", minPasswordLen)
	}
	return pw, nil
}

func prompt(e *env, in *os.File, label string) (string, error) {
	fmt.Fprint(e.stderr, label)
	b, err := term.ReadPassword(int(in.Fd()))
	fmt.Fprintln(e.stderr)
	return strings.TrimRight(string(b), "\r\n"), err
}
