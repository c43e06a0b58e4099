package move

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"slices"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// What became of the service secret, which seals the secrets Gatehouse
// stores (webhook and alert signing secrets, Open Cloud keys, the erasure
// webhook's token and secret), signs feed and list cursors and sessions
// unless GATEHOUSE_SECRET pins another, and keys the hashes that name
// erased players.
const (
	// SecretTaken: the target held no organization and took the source's
	// secret: everything sealed opens, and cursors handed out before the
	// move read on.
	SecretTaken = "taken"
	// SecretSame: the target's secret was the source's already (an
	// organization moved after another from the same source).
	SecretSame = "same"
	// SecretResealed: the target keeps its own secret, and the move
	// sealed the organization's secrets again under it. Its consumers'
	// cursors do not open there (a 400 naming after: read from the
	// start), and the hashes of players erased before the move stay
	// those of the source's secret.
	SecretResealed = "resealed"
)

// secrets decides what becomes of the service secret (see SecretTaken…).
func (m *mover) secrets(ctx context.Context) error {
	var src []byte
	err := m.src.QueryRowContext(ctx, "SELECT value FROM settings WHERE name = 'secret'").Scan(&src)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	if m.targetOrgs == 0 {
		m.rep.Secret = SecretTaken
		return nil
	}
	// The target's, made now as its store would if it has none yet.
	candidate := make([]byte, 32)
	rand.Read(candidate)
	var dst []byte
	if err := m.tx.QueryRow(ctx, `WITH ins AS (
		INSERT INTO settings (name, value) VALUES ('secret', $1) ON CONFLICT DO NOTHING RETURNING value)
		SELECT value FROM ins UNION ALL SELECT value FROM settings WHERE name = 'secret' LIMIT 1`, candidate).Scan(&dst); err != nil {
		return err
	}
	if bytes.Equal(src, dst) {
		m.rep.Secret = SecretSame
		return nil
	}
	m.rep.Secret = SecretResealed
	m.reseal = &resealer{}
	if len(src) > 0 { // none: nothing was ever sealed
		if m.reseal.from, err = gatehouse.NewSealer(src); err != nil {
			return err
		}
	}
	m.reseal.to, err = gatehouse.NewSealer(dst)
	return err
}

// resealer opens a secret sealed under the source's service secret and
// seals it under the target's, for the same organization and label.
type resealer struct {
	from, to *gatehouse.Sealer
}

func (s *resealer) again(orgID uuid.UUID, label string, sealed []byte) ([]byte, error) {
	if s.from == nil {
		return nil, gatehouse.ErrUnsealable
	}
	plain, err := s.from.Open(orgID, label, sealed)
	if err != nil {
		return nil, err
	}
	return s.to.Seal(orgID, label, plain), nil
}

// sealedColumn wraps the conversion of a sealed column: the value sealed
// again under the target's secret when the move reseals.
func (m *mover) sealedColumn(table, col string, label sealLabel, conv func(row) (any, error)) func(row) (any, error) {
	return func(r row) (any, error) {
		v, err := conv(r)
		if err != nil || v == nil || m.reseal == nil {
			return v, err
		}
		seq, err := r.int("org")
		if err != nil {
			return nil, err
		}
		l, err := label(r)
		if err != nil {
			return nil, err
		}
		out, err := m.reseal.again(m.orgID(seq), l, v.([]byte))
		if err != nil {
			return nil, fmt.Errorf("%s.%s (%s) does not open under the source's service secret, so it cannot be sealed again "+
				"under the target's: remove it at the source, or set it up again after the move: %w", table, col, l, err)
		}
		m.rep.Resealed++
		return out, nil
	}
}

// orgID is the id of the moved organization of source key seq.
func (m *mover) orgID(seq int64) uuid.UUID {
	for _, o := range m.orgs {
		if o.seq == seq {
			return o.id
		}
	}
	return uuid.Nil
}

// demoteUsers makes invitations of the moved users whose email a user of
// another organization of the target has proven (signed in with): proven
// on the source, they would otherwise take part in that person's every
// sign-in here without that person's acceptance, as a look-alike user
// (docs/security.md). Each gets an invitation of the usual lifetime
// whose link nobody holds: the person joins through the OpenID provider,
// which lists it, or through a new link an admin makes. A holder that is a proven user of the source itself (an organization
// moved before from the same file, with its users' ids) is the person the
// source proved both for: that user stays proven.
func (m *mover) demoteUsers(ctx context.Context) error {
	if m.targetOrgs == 0 {
		return nil
	}
	rows, _ := m.tx.Query(ctx, `SELECT DISTINCT u.email, o.id FROM users u
		JOIN users o ON o.email = u.email AND o.org <> ALL($1) AND o.proven
		WHERE u.org = ANY($1) AND u.proven ORDER BY 1, 2`, m.targetSeqs())
	var (
		email  string
		holder uuid.UUID
		held   []string
	)
	if _, err := pgx.ForEachRow(rows, []any{&email, &holder}, func() error {
		var same int
		err := m.src.QueryRowContext(ctx, "SELECT count(*) FROM users WHERE id = ? AND email = ? AND proven <> 0", holder[:], email).Scan(&same)
		if err == nil && same == 0 && !slices.Contains(held, email) {
			held = append(held, email)
		}
		return err
	}); err != nil {
		return err
	}
	if len(held) == 0 {
		return nil
	}
	if _, err := m.tx.Exec(ctx, "UPDATE users SET proven = false, proven_at = NULL, proven_by = NULL WHERE org = ANY($1) AND email = ANY($2)", m.targetSeqs(), held); err != nil {
		return err
	}
	if _, err := m.tx.Exec(ctx, `INSERT INTO invitations (org, user_id, token_hash, expires_at, created_at)
		SELECT org, id, sha256(uuid_send(gen_random_uuid()) || uuid_send(gen_random_uuid())), $3, $4
		FROM users WHERE org = ANY($1) AND email = ANY($2)
		ON CONFLICT (user_id) DO NOTHING`, m.targetSeqs(), held, m.o.Now().Add(gatehouse.InvitationLifetime), m.o.Now()); err != nil {
		return err
	}
	m.rep.Invitations = held
	return nil
}
