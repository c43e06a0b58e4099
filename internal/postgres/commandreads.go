package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// commandSelect reads issued commands (alias c) with what they show of
// other records: the access point's and location's current names, the
// requester or key, and the k-of-N counts of their deliveries (kept by
// the transactions that change the deliveries: the live targets on the
// command, the rest in the shards of command_delivery_counts). The
// caller appends its conditions after "WHERE c.org = $1 AND c.issued".
const commandSelect = `SELECT c.id, c.type, c.status, c.failure_reason, c.scope, c.server_job_id, c.platform_user_id,
		c.universe_id, c.access_point_id, coalesce(a.name, ''), c.location_id, coalesce(l.name, ''), c.duration_s, c.note,
		c.issued_at, c.expires_at, c.status_at, c.started_at,
		c.requested_by, coalesce(u.email, ''), coalesce(u.name, ''), c.issued_by_key, coalesce(k.name, ''), coalesce(k.prefix, ''),
		c.targets_live, t.delivered, t.executed, t.failed, t.joined, c.lockdown
	FROM commands c
	LEFT JOIN access_points a ON a.id = c.access_point_id AND a.org = c.org
	LEFT JOIN locations l ON l.id = c.location_id AND l.org = c.org
	LEFT JOIN users u ON u.id = c.requested_by AND u.org = c.org
	LEFT JOIN api_keys k ON k.id = c.issued_by_key AND k.org = c.org
	CROSS JOIN LATERAL (SELECT coalesce(sum(n.delivered), 0) AS delivered, coalesce(sum(n.joined), 0) AS joined,
			coalesce(sum(n.executed), 0) AS executed, coalesce(sum(n.failed), 0) AS failed
		FROM command_delivery_counts n WHERE n.org = c.org AND n.command_id = c.id) t
	WHERE c.org = $1 AND c.issued`

func scanCommand(row pgx.CollectableRow) (gatehouse.Command, error) {
	var (
		c                                   gatehouse.Command
		issued, expires, statusAt           time.Time
		started                             *time.Time
		userID, keyID                       *uuid.UUID
		email, userName, keyName, keyPrefix string
		lockdown                            *string
	)
	err := row.Scan(&c.ID, &c.Type, &c.Status, &c.FailureReason, &c.Scope, &c.ServerJobID, &c.PlatformUserID,
		&c.UniverseID, &c.AccessPoint.ID, &c.AccessPoint.Name, &c.Location.ID, &c.Location.Name, &c.DurationSeconds, &c.Note,
		&issued, &expires, &statusAt, &started,
		&userID, &email, &userName, &keyID, &keyName, &keyPrefix,
		&c.Targets.Live, &c.Targets.Delivered, &c.Targets.Executed, &c.Targets.Failed, &c.Targets.Joined, &lockdown)
	if err != nil {
		return c, err
	}
	if lockdown != nil {
		if c.Lockdown, err = gatehouse.CommandLockdownOf(*lockdown); err != nil {
			return c, err
		}
	}
	c.IssuedAt, c.ExpiresAt, c.StatusAt = gatehouse.Time(issued.UTC()), gatehouse.Time(expires.UTC()), gatehouse.Time(statusAt.UTC())
	if started != nil {
		t := gatehouse.Time(started.UTC())
		c.StartedAt = &t
	}
	// A requester removed since keeps its id: no command is unattributed.
	if userID != nil {
		c.RequestedBy = &gatehouse.Requester{ID: *userID, Email: email, Name: userName}
	}
	if keyID != nil {
		c.IssuedByKey = &gatehouse.KeyRef{ID: *keyID, Name: keyName, Prefix: keyPrefix}
	}
	return c, nil
}

// readCommands reads the organization's issued commands with ids, in the
// order asked; an id that is not one of them is left out.
func readCommands(ctx context.Context, q querier, org int64, orgID uuid.UUID, order string, ids []uuid.UUID) ([]gatehouse.Command, error) {
	rows, _ := q.Query(ctx, commandSelect+` AND c.id = ANY($2) ORDER BY `+order, org, ids)
	cmds, err := pgx.CollectRows(rows, scanCommand)
	for i := range cmds {
		cmds[i].OrgID = orgID
	}
	return cmds, err
}

// findCommand reads one issued command of the organization with its
// deliveries, or ErrNotFound.
func findCommand(ctx context.Context, q querier, org int64, orgID, id uuid.UUID) (gatehouse.Command, error) {
	cmds, err := readCommands(ctx, q, org, orgID, "c.id", []uuid.UUID{id})
	if err != nil {
		return gatehouse.Command{}, err
	}
	if len(cmds) == 0 {
		return gatehouse.Command{}, fmt.Errorf("command %s: %w", id, gatehouse.ErrNotFound)
	}
	c := cmds[0]
	rows, _ := q.Query(ctx, `SELECT job_id, target, delivered_at, result, detail, acked_at FROM command_deliveries
		WHERE org = $1 AND command_id = $2 ORDER BY target DESC, job_id COLLATE "C"`, org, id)
	c.Deliveries, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (gatehouse.Delivery, error) {
		var (
			d                gatehouse.Delivery
			delivered, acked *time.Time
			result           *string
		)
		err := row.Scan(&d.ServerJobID, &d.Target, &delivered, &result, &d.Detail, &acked)
		d.DeliveredAt, d.AckedAt = optTime(delivered), optTime(acked)
		if result != nil {
			d.Result = (*gatehouse.AckResult)(result)
		}
		return d, err
	})
	if c.Deliveries == nil {
		c.Deliveries = []gatehouse.Delivery{}
	}
	return c, err
}

func optTime(t *time.Time) *gatehouse.Time {
	if t == nil {
		return nil
	}
	g := gatehouse.Time(t.UTC())
	return &g
}

// FindCommand returns an organization's issued command with its deliveries.
func (db *DB) FindCommand(ctx context.Context, orgID, id uuid.UUID) (_ gatehouse.Command, err error) {
	defer sqlstore.Label(&err, "Store.FindCommand", orgID, id)
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if err != nil {
		return gatehouse.Command{}, err
	}
	c, err := findCommand(ctx, db.pool, org, orgID, id)
	return c, wrap(err)
}

// ListCommands returns a page of an organization's issued commands,
// newest first.
func (db *DB) ListCommands(ctx context.Context, orgID uuid.UUID, f gatehouse.CommandFilter) (_ gatehouse.CommandPage, err error) {
	defer sqlstore.Label(&err, "Store.ListCommands", orgID)
	page := gatehouse.CommandPage{Commands: []gatehouse.Command{}}
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if errors.Is(err, gatehouse.ErrNotFound) {
		return page, nil
	}
	if err != nil {
		return page, err
	}
	var b strings.Builder
	b.WriteString(commandSelect)
	args := []any{org}
	where := func(cond string, v any) {
		args = append(args, v)
		b.WriteString(" AND " + strings.ReplaceAll(cond, "$?", "$"+strconv.Itoa(len(args))))
	}
	if f.Status != nil {
		where("c.status = $?", string(*f.Status))
	}
	if f.Scope != nil {
		where("c.scope = $?", string(*f.Scope))
	}
	if f.AccessPointID != nil {
		where("c.access_point_id = $?", *f.AccessPointID)
	}
	if f.LocationID != nil {
		where("c.location_id = $?", *f.LocationID)
	}
	if f.Within != nil {
		where("c.location_id = ANY($?::uuid[])", []uuid.UUID(f.Within))
	}
	if f.After != nil {
		where("c.issued_at <= $?", f.After.IssuedAt)
		where("(c.issued_at, c.id) < ($"+strconv.Itoa(len(args))+", $?)", f.After.ID)
	}
	args = append(args, f.Limit+1)
	b.WriteString(" ORDER BY c.issued_at DESC, c.id DESC LIMIT $" + strconv.Itoa(len(args)))
	rows, _ := db.pool.Query(ctx, b.String(), args...)
	cmds, err := pgx.CollectRows(rows, scanCommand)
	if err != nil {
		return page, wrap(err)
	}
	for i := range cmds {
		cmds[i].OrgID = orgID
	}
	page.Commands, page.Next = sqlstore.KeysetPage(cmds, f.Limit, gatehouse.Command.Key)
	return page, nil
}
