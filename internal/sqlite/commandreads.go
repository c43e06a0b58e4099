package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
)

// commandColumns are what scanCommand reads: the command with its
// counts, the current names of its access point and location, and who
// issued it.
const commandColumns = `c.id, c.type, c.status, c.failure_reason, c.scope, c.server_job_id, c.platform_user_id,
	c.universe_id, c.access_point_id, coalesce(a.name, ''), c.location_id, coalesce(l.name, ''),
	c.duration_s, c.note, c.issued_at, c.expires_at, c.status_at, c.started_at,
	c.requested_by, coalesce(u.email, ''), coalesce(u.name, ''), c.issued_by_key, coalesce(k.name, ''), coalesce(k.prefix, ''),
	c.targets_live, c.targets_delivered, c.targets_executed, c.targets_failed, c.targets_joined, c.lockdown`

// commandJoins follow FROM commands c.
const commandJoins = `
	LEFT JOIN access_points a ON a.id = c.access_point_id
	LEFT JOIN locations l ON l.id = c.location_id
	LEFT JOIN users u ON u.id = c.requested_by
	LEFT JOIN api_keys k ON k.id = c.issued_by_key`

func scanCommand(rows interface{ Scan(...any) error }, orgID uuid.UUID) (gatehouse.Command, error) {
	var (
		c                            = gatehouse.Command{OrgID: orgID}
		failure, job, player, note   sql.NullString
		issued, expires, statusAt    int64
		started                      sql.NullInt64
		requestedBy, issuedByKey     []byte
		userEmail, userName, kn, kpf string
		lockdown                     sql.NullString
	)
	err := rows.Scan(&c.ID, &c.Type, &c.Status, &failure, &c.Scope, &job, &player,
		&c.UniverseID, &c.AccessPoint.ID, &c.AccessPoint.Name, &c.Location.ID, &c.Location.Name,
		&c.DurationSeconds, &note, &issued, &expires, &statusAt, &started,
		&requestedBy, &userEmail, &userName, &issuedByKey, &kn, &kpf,
		&c.Targets.Live, &c.Targets.Delivered, &c.Targets.Executed, &c.Targets.Failed, &c.Targets.Joined, &lockdown)
	if err != nil {
		return c, err
	}
	if c.Lockdown, err = gatehouse.CommandLockdownOf(lockdown.String); err != nil {
		return c, err
	}
	c.FailureReason, c.ServerJobID, c.PlatformUserID, c.Note = fromOptString(failure), fromOptString(job), fromOptString(player), fromOptString(note)
	c.IssuedAt, c.ExpiresAt, c.StatusAt = gatehouse.Time(fromMillis(issued)), gatehouse.Time(fromMillis(expires)), gatehouse.Time(fromMillis(statusAt))
	if t := fromOptMillis(started); t != nil {
		st := gatehouse.Time(*t)
		c.StartedAt = &st
	}
	if requestedBy != nil {
		c.RequestedBy = &gatehouse.Requester{Email: userEmail, Name: userName}
		copy(c.RequestedBy.ID[:], requestedBy)
	}
	if issuedByKey != nil {
		c.IssuedByKey = &gatehouse.KeyRef{Name: kn, Prefix: kpf}
		copy(c.IssuedByKey.ID[:], issuedByKey)
	}
	return c, nil
}

// commandByID reads one issued command of an organization: $1 org, $2 id.
const commandByID = `SELECT ` + commandColumns + ` FROM commands c` + commandJoins + `
	WHERE c.org = ? AND c.id = ? AND c.issued = 1`

// findCommand reads one of the organization's issued commands with its
// counts (columns of its row) and, when asked, its deliveries; ErrNotFound.
func findCommand(ctx context.Context, q querier, org int64, orgID, id uuid.UUID, deliveries bool) (gatehouse.Command, error) {
	c, err := scanCommand(q.QueryRowContext(ctx, commandByID, org, id[:]), orgID)
	if errors.Is(err, sql.ErrNoRows) {
		return c, fmt.Errorf("command %s: %w", id, gatehouse.ErrNotFound)
	}
	if err != nil {
		return c, err
	}
	if deliveries {
		c.Deliveries, err = findDeliveries(ctx, q, org, id)
	}
	return c, err
}

// findDeliveries reads a command's delivery rows: targets first, then by
// job id.
func findDeliveries(ctx context.Context, q querier, org int64, id uuid.UUID) ([]gatehouse.Delivery, error) {
	rows, err := q.QueryContext(ctx, `SELECT job_id, target, delivered_at, result, detail, acked_at
		FROM command_deliveries WHERE org = ? AND command_id = ? ORDER BY target DESC, job_id`, org, id[:])
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []gatehouse.Delivery{}
	for rows.Next() {
		var (
			d                gatehouse.Delivery
			delivered, acked sql.NullInt64
			result, detail   sql.NullString
		)
		if err := rows.Scan(&d.ServerJobID, &d.Target, &delivered, &result, &detail, &acked); err != nil {
			return nil, err
		}
		d.DeliveredAt, d.AckedAt = optTime(delivered), optTime(acked)
		if result.Valid {
			r := gatehouse.AckResult(result.String)
			d.Result = &r
		}
		d.Detail = fromOptString(detail)
		out = append(out, d)
	}
	return out, rows.Err()
}

func optTime(ms sql.NullInt64) *gatehouse.Time {
	t := fromOptMillis(ms)
	if t == nil {
		return nil
	}
	gt := gatehouse.Time(*t)
	return &gt
}

// FindCommand returns an organization's issued command with its deliveries.
func (db *DB) FindCommand(ctx context.Context, orgID, id uuid.UUID) (_ gatehouse.Command, err error) {
	defer sqlstore.Label(&err, "Store.FindCommand", orgID, id)
	org, err := db.orgSeq(ctx, db.read, orgID)
	if err != nil {
		return gatehouse.Command{}, err
	}
	c, err := findCommand(ctx, db.read, org, orgID, id, true)
	return c, wrap(err)
}

// ListCommands returns a page of an organization's issued commands,
// newest first. Every filter narrows the range of the commands_page index
// walked in order, so a page stops after f.Limit+1 matching rows.
func (db *DB) ListCommands(ctx context.Context, orgID uuid.UUID, f gatehouse.CommandFilter) (_ gatehouse.CommandPage, err error) {
	defer sqlstore.Label(&err, "Store.ListCommands", orgID)
	// An empty reach keeps no command. Asked in SQL, its constant false
	// would leave INDEXED BY commands_page no plan at all.
	if f.Within != nil && len(f.Within) == 0 {
		return gatehouse.CommandPage{Commands: []gatehouse.Command{}}, nil
	}
	org, err := db.orgSeq(ctx, db.read, orgID)
	if errors.Is(err, gatehouse.ErrNotFound) {
		return gatehouse.CommandPage{Commands: []gatehouse.Command{}}, nil
	}
	if err != nil {
		return gatehouse.CommandPage{}, err
	}
	where, args := []string{"c.org = ?", "c.issued = 1"}, []any{org}
	add := func(cond string, a ...any) { where, args = append(where, cond), append(args, a...) }
	if f.Status != nil {
		add("c.status = ?", string(*f.Status))
	}
	if f.Scope != nil {
		add("c.scope = ?", string(*f.Scope))
	}
	if f.AccessPointID != nil {
		add("c.access_point_id = ?", f.AccessPointID[:])
	}
	if f.LocationID != nil {
		add("c.location_id = ?", f.LocationID[:])
	}
	if f.Within != nil {
		cond, a := inLocations("c.location_id", f.Within)
		add(cond, a...)
	}
	if f.After != nil {
		add("(c.issued_at, c.id) < (?, ?)", millis(f.After.IssuedAt), f.After.ID[:])
	}
	rows, err := db.read.QueryContext(ctx, `SELECT `+commandColumns+` FROM commands c INDEXED BY commands_page`+commandJoins+`
		WHERE `+strings.Join(where, " AND ")+` ORDER BY c.issued_at DESC, c.id DESC LIMIT ?`, append(args, f.Limit+1)...)
	if err != nil {
		return gatehouse.CommandPage{}, wrap(err)
	}
	cmds, err := scanCommands(rows, orgID)
	if err != nil {
		return gatehouse.CommandPage{}, wrap(err)
	}
	cmds, next := sqlstore.KeysetPage(cmds, f.Limit, gatehouse.Command.Key)
	return gatehouse.CommandPage{Commands: cmds, Next: next}, nil
}

func scanCommands(rows *sql.Rows, orgID uuid.UUID) ([]gatehouse.Command, error) {
	defer rows.Close()
	cmds := []gatehouse.Command{}
	for rows.Next() {
		c, err := scanCommand(rows, orgID)
		if err != nil {
			return nil, err
		}
		cmds = append(cmds, c)
	}
	return cmds, rows.Err()
}
