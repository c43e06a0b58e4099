package cli

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
)

// How the command group prints commands for people; --json prints the
// API's Command objects instead.

// commandLine is the one line unlock prints.
func commandLine(c gatehouse.Command) string {
	s := fmt.Sprintf("issued command %s: unlock %q of %q for %ds, scope %s", c.ID, c.AccessPoint.Name, c.Location.Name,
		c.DurationSeconds, target(c))
	if c.FailureReason != nil {
		return s + fmt.Sprintf(", FAILED at once: %s", *c.FailureReason)
	}
	if c.Targets.Live == 0 {
		return s + fmt.Sprintf(", %s: no server of universe %s is live yet; the first to sync before %s receives it",
			c.Status, c.UniverseID, gatehouse.FormatTime(time.Time(c.ExpiresAt)))
	}
	return s + fmt.Sprintf(", %s for the %s of universe %s", c.Status, servers(c.Targets.Live), c.UniverseID)
}

// commandRow is a command's line in command list.
func commandRow(c gatehouse.Command) string {
	what := c.AccessPoint.Name + " @ " + c.Location.Name
	if c.Lockdown != nil {
		what = "lockdown of " + lockdownTarget(*c.Lockdown)
		if c.Lockdown.ReleasedAt != nil {
			what = "release of the " + what
		}
	}
	s := fmt.Sprintf("%s  %s  %-9s %-30s %-34s %s", c.ID, gatehouse.FormatTime(time.Time(c.IssuedAt)), c.Status,
		target(c), progress(c.Targets), what)
	if c.FailureReason != nil {
		s += "  (" + *c.FailureReason + ")"
	}
	return s
}

// target names a command's scope and whom it aims at.
func target(c gatehouse.Command) string {
	switch {
	case c.ServerJobID != nil:
		return string(c.Scope) + " " + *c.ServerJobID
	case c.PlatformUserID != nil:
		return string(c.Scope) + " " + *c.PlatformUserID
	}
	return string(c.Scope)
}

// progress is the k-of-N of a command: "2/3 executed, 1 failed".
func progress(t gatehouse.CommandTargets) string {
	s := fmt.Sprintf("%d/%d executed", t.Executed, t.Live)
	if t.Failed > 0 {
		s += fmt.Sprintf(", %d failed", t.Failed)
	}
	if t.Delivered > t.Executed+t.Failed {
		s += fmt.Sprintf(", %d waiting", t.Delivered-t.Executed-t.Failed)
	}
	if t.Joined > 0 {
		s += fmt.Sprintf(", +%d joined", t.Joined)
	}
	return s
}

func servers(n int) string {
	if n == 1 {
		return "1 live server"
	}
	return fmt.Sprintf("%d live servers", n)
}

// printCommand writes command show's human form: the command, then one
// line per server that was sent it.
func printCommand(w io.Writer, c gatehouse.Command) {
	fmt.Fprintf(w, "command %s  %s %s\n", c.ID, c.Type, c.Status)
	if c.FailureReason != nil {
		fmt.Fprintf(w, "  failure:      %s\n", *c.FailureReason)
	}
	switch l := c.Lockdown; {
	case c.Type == gatehouse.CommandLockdown && l != nil:
		// A lockdown's command has no access point or duration: it
		// carries the lockdown, started or released.
		what := "start"
		if l.ReleasedAt != nil {
			what = "release"
		}
		fmt.Fprintf(w, "  lockdown:     %s of %s (%s), universe %s\n", what, lockdownTarget(*l), l.ID, c.UniverseID)
	default:
		fmt.Fprintf(w, "  access point: %s (%s) at %s (%s), universe %s\n", c.AccessPoint.Name, c.AccessPoint.ID, c.Location.Name, c.Location.ID, c.UniverseID)
		fmt.Fprintf(w, "  scope:        %s, unlocked for %ds\n", target(c), c.DurationSeconds)
	}
	fmt.Fprintf(w, "  targets:      %s (%d delivered)\n", progress(c.Targets), c.Targets.Delivered)
	switch {
	case c.RequestedBy != nil:
		fmt.Fprintf(w, "  requested by: %s\n", c.RequestedBy.Email)
	case c.IssuedByKey != nil:
		fmt.Fprintf(w, "  issued by key %s (%s…)\n", c.IssuedByKey.Name, c.IssuedByKey.Prefix)
	}
	if c.Note != nil {
		fmt.Fprintf(w, "  note:         %s\n", *c.Note)
	}
	fmt.Fprintf(w, "  issued %s, expires %s, status since %s\n", gatehouse.FormatTime(time.Time(c.IssuedAt)),
		gatehouse.FormatTime(time.Time(c.ExpiresAt)), gatehouse.FormatTime(time.Time(c.StatusAt)))
	if len(c.Deliveries) == 0 {
		fmt.Fprintln(w, "  no server has been sent it")
		return
	}
	fmt.Fprintln(w, "  deliveries:")
	for _, d := range c.Deliveries {
		role := "target"
		if !d.Target {
			role = "joined"
		}
		fmt.Fprintf(w, "    %-40s %s  delivered %s  %s\n", d.ServerJobID, role, optTime(d.DeliveredAt), ackText(d))
	}
}

func optTime(t *gatehouse.Time) string {
	if t == nil {
		return "-"
	}
	return gatehouse.FormatTime(time.Time(*t))
}

// ackText is what a server answered of its delivery.
func ackText(d gatehouse.Delivery) string {
	if d.Result == nil {
		return "no answer yet"
	}
	s := string(*d.Result) + " " + optTime(d.AckedAt)
	if d.Detail != nil {
		s += ": " + *d.Detail
	}
	return s
}

func statusList() string {
	var s []string
	for _, st := range gatehouse.CommandStatuses {
		s = append(s, string(st))
	}
	return strings.Join(s, ", ")
}
