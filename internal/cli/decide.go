package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/service"
	"github.com/google/uuid"
)

// runDecide explains what an access point's policy decides for a player,
// now or at another instant. It never records: a decision the operator
// asks for is a question about the rules, not a player at the door, and
// recording belongs to the game servers (POST /decisions).
func runDecide(ctx context.Context, e *env) error {
	f := newFlags(e, "decide")
	ap := f.String("access-point", "", "the access point id")
	player := f.String("platform-user-id", "", "the player's platform user id")
	job := f.String("server-job-id", "", "the game server's job id, for remote unlocks of scope SERVER")
	attrs := f.String("attributes", "", `what the game server knows of the player, JSON: {"groups":{"456":200},"gamepasses":["789"],"badges":["12"],"premium":true}`)
	at := f.String("at", "", "decide at this RFC 3339 instant instead of now, as things stood then (the policy version in force, the unlocks, lockdowns and grants), e.g. 2026-03-02T18:00:00Z")
	current := f.Bool("current-policy", false, "with --at, decide by the current policy instead of the version in force then: a test of today's rules at another time")
	event := f.String("event", "", "explain this recorded attempt (with --org): its access point, player, server and instant are the event's; give --attributes as the game server knew them")
	org := f.String("org", "", "the organization of --event")
	return withExistingService(ctx, f, 0, func(svc *service.Service, _ []string) error {
		var recorded *gatehouse.Event
		if *event != "" {
			ev, err := eventToExplain(ctx, svc, *org, *event, *ap, *player, *job, *at)
			if err != nil {
				return err
			}
			recorded = &ev
			*ap, *player, *at = ev.AccessPoint.ID.String(), *ev.PlatformUserID, gatehouse.FormatTime(time.Time(ev.OccurredAt))
			if ev.ServerJobID != nil {
				*job = *ev.ServerJobID
			}
		}
		apID, err := parseID("access-point", *ap)
		if err != nil {
			return err
		}
		if err := required("platform-user-id", *player); err != nil {
			return err
		}
		r := gatehouse.DecisionRequest{AccessPointID: apID,
			DecisionInput: gatehouse.DecisionInput{PlatformUserID: *player, ServerJobID: *job}}
		if *current && *at == "" {
			return usagef("--current-policy goes with --at: now, the current policy is the one in force")
		}
		if *at != "" {
			t, err := gatehouse.ParseTime(*at)
			if err != nil {
				return usagef("--at must be an RFC 3339 instant with an offset, e.g. 2026-03-02T18:00:00Z; got %q", *at)
			}
			instant := gatehouse.Time(t)
			r.At, r.CurrentPolicy = &instant, *current
		}
		var issues gatehouse.ValidationError
		if *attrs != "" {
			err := jsonSyntax([]byte(*attrs))
			if err == nil {
				r.Attributes, err = gatehouse.DecodeAttributes([]byte(*attrs))
			}
			issues.Absorb("attributes", err)
		}
		issues.Absorb("", r.DecisionInput.Check())
		if err := renameFields(&issues, decideFlag).Err(); err != nil {
			return err
		}
		orgID, err := svc.OrgOfAccessPoint(ctx, apID)
		if err != nil {
			return err
		}
		res, err := svc.Decide(ctx, orgID, r)
		if err != nil {
			return err
		}
		if *f.json {
			return f.print(res, "")
		}
		var p *gatehouse.Policy
		if res.PolicyVersion != nil {
			// The rule's text comes from the version that decided, the
			// one in force at the decision's instant; one set since then
			// explains nothing of this decision.
			policy := svc.Policy
			if !r.CurrentPolicy {
				policy = func(ctx context.Context, org, ap uuid.UUID) (*gatehouse.Policy, error) {
					return svc.PolicyAt(ctx, org, ap, time.Time(res.At))
				}
			}
			if cur, err := policy(ctx, orgID, apID); err == nil && cur != nil && cur.Version == *res.PolicyVersion {
				p = cur
			}
		}
		printDecision(e, res, p)
		if recorded != nil {
			fmt.Fprintf(e.stdout, "  recorded      %s: %s\n", *recorded.Allowed, *recorded.Reason)
		}
		return nil
	})
}

// eventToExplain returns the organization's recorded attempt (an
// ACCESS_GRANTED or ACCESS_DENIED event with a player) that decide
// --event explains; the flags it fills must not be given as well.
func eventToExplain(ctx context.Context, svc *service.Service, org, id, ap, player, job, at string) (gatehouse.Event, error) {
	if ap != "" || player != "" || job != "" || at != "" {
		return gatehouse.Event{}, usagef("--event gives the access point, player, server and instant: leave out --access-point, --platform-user-id, --server-job-id and --at")
	}
	orgID, err := parseID("org", org)
	if err != nil {
		return gatehouse.Event{}, err
	}
	evID, err := parseID("event", id)
	if err != nil {
		return gatehouse.Event{}, err
	}
	ev, err := svc.FindEvent(ctx, orgID, evID)
	if err != nil {
		return ev, err
	}
	if (ev.Type != gatehouse.EventAccessGranted && ev.Type != gatehouse.EventAccessDenied) || ev.PlatformUserID == nil || ev.Allowed == nil || ev.Reason == nil {
		return ev, usagef("event %s is %s: only an attempt of a player (ACCESS_GRANTED or ACCESS_DENIED) is explained", ev.ID, ev.Type)
	}
	return ev, nil
}

// decideFlag names the flag that sets a field of a decision request, so
// that a problem names what the operator typed: platformUserId is
// --platform-user-id, attributes.groups.456 is "--attributes groups.456".
func decideFlag(field string) string {
	if name, ok := flagNames[field]; ok {
		return name
	}
	if rest, ok := strings.CutPrefix(field, "attributes."); ok {
		return "--attributes " + rest
	}
	if field == "attributes" {
		return "--attributes"
	}
	return field
}

// renameFields returns the issues of ve under the names rename gives.
func renameFields(ve *gatehouse.ValidationError, rename func(string) string) *gatehouse.ValidationError {
	var out gatehouse.ValidationError
	for field, msgs := range ve.Issues {
		for _, m := range msgs {
			out.Add(rename(field), "%s", m)
		}
	}
	return &out
}

// printDecision writes decide's human form: the outcome and reason, where
// and when, the policy version and the rule with its text.
func printDecision(e *env, res gatehouse.DecisionResult, p *gatehouse.Policy) {
	w := e.stdout
	fmt.Fprintf(w, "%s: %s\n", res.Allowed, res.Reason)
	fmt.Fprintf(w, "  access point  %s (%s) at %s (%s)\n", res.AccessPoint.Name, res.AccessPoint.ID, res.Location.Name, res.Location.ID)
	when := gatehouse.FormatTime(time.Time(res.At))
	if local := localText(p, time.Time(res.At)); local != "" {
		when += ", " + local
	}
	fmt.Fprintf(w, "  at            %s\n", when)
	if res.PolicyVersion == nil {
		fmt.Fprintln(w, "  policy        none")
	} else {
		fmt.Fprintf(w, "  policy        version %d\n", *res.PolicyVersion)
	}
	rule := res.Rule
	if text := ruleText(p, res.Rule); text != "" {
		rule += ": " + text
	}
	fmt.Fprintf(w, "  rule          %s\n", rule)
}
