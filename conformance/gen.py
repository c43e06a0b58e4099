#!/usr/bin/env python3
"""Writes decisions.json, the conformance vectors of the access-policy
evaluator (see README.md).

Every expected outcome below is written by hand from the contract's rules
("Access policies and decisions" and docs/decisions.md, "Access policies");
nothing here runs an evaluator. The only computation is turning a local
wall-clock time into an RFC 3339 instant (Python's zoneinfo), and the
daylight-saving cases do not even use that: their instants are spelled out
in UTC with the local time they are in a comment.

Run: python3 conformance/gen.py > conformance/decisions.json
"""

import calendar
import datetime
import json
import sys
import zoneinfo

CASES = []

G, D = "granted", "denied"


def case(name, policy, at, allowed, reason, rule, user="42", job="job-a", attrs=None, unlocks=None,
         lockdowns=None, grants=None):
    inp = {"platformUserId": user, "serverJobId": job,
           "attributes": attrs or {"groups": {}, "gamepasses": [], "badges": [], "premium": False}}
    if unlocks:
        inp["unlocks"] = unlocks
    if lockdowns is not None:
        inp["lockdowns"] = lockdowns
    if grants is not None:
        inp["grants"] = grants
    for c in CASES:
        assert c["name"] != name, name
    CASES.append({"name": name, "policy": policy, "input": inp, "at": at,
                  "want": {"allowed": allowed, "reason": reason, "rule": rule}})


def attrs(groups=None, gamepasses=None, badges=None, premium=False):
    return {"groups": groups or {}, "gamepasses": gamepasses or [], "badges": badges or [], "premium": premium}


def local(zone, s, weekday=None):
    """The instant of local wall-clock time s ("YYYY-MM-DD HH:MM:SS") in
    zone, as RFC 3339 with the zone's offset. weekday, when given, asserts
    the date's day (MON..SUN) so a typo in a date cannot pass silently."""
    dt = datetime.datetime.fromisoformat(s).replace(tzinfo=zoneinfo.ZoneInfo(zone))
    if weekday:
        assert ["MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN"][dt.weekday()] == weekday, (s, weekday)
    return dt.isoformat()


def policy(mode="RULES", schedule=None, allow=None, deny=None, fail="CLOSED"):
    return {"mode": mode, "schedule": schedule, "allow": allow or [], "deny": deny or [], "failMode": fail}


def sched(zone, windows, exceptions=None):
    return {"timeZone": zone, "windows": windows, "exceptions": exceptions or []}


def win(days, f, t):
    return {"days": days.split(",") if isinstance(days, str) else days, "from": f, "to": t}


WEEK = ["MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN"]
WORKDAYS = "MON,TUE,WED,THU,FRI"
OFFICE = lambda zone: sched(zone, [win(WORKDAYS, "09:00", "17:30"), win("SAT", "22:00", "02:00")])
UNTIL_FAR = "2030-01-01T00:00:00Z"

# ---------------------------------------------------------------------------
# 1. Order of evaluation: remote unlock, LOCKED, deny, OPEN, schedule, allow.
# ---------------------------------------------------------------------------
B = "Europe/Berlin"
wed10 = local(B, "2026-11-25 10:00:00", "WED")   # inside MON-FRI 09:00-17:30
wed20 = local(B, "2026-11-25 20:00:00", "WED")   # outside every window
allow_user = [{"platformUserId": "42"}]

case("locked denies a player on the allow list", policy("LOCKED", OFFICE(B), allow_user), wed10, D, "ACCESS_POINT_DISABLED", "mode")
case("locked denies without schedule or rules", policy("LOCKED"), wed10, D, "ACCESS_POINT_DISABLED", "mode")
case("locked wins over a deny rule", policy("LOCKED", deny=[{"platformUserId": "42"}]), wed10, D, "ACCESS_POINT_DISABLED", "mode")
case("locked denies even with fail mode open", policy("LOCKED", fail="OPEN"), wed10, D, "ACCESS_POINT_DISABLED", "mode")
case("remote unlock of the universe wins over locked", policy("LOCKED"), wed10, G, "REMOTE_UNLOCK", "remoteUnlock",
     unlocks=[{"scope": "UNIVERSE", "until": UNTIL_FAR}])
case("remote unlock wins over a deny rule", policy(deny=[{"platformUserId": "42"}]), wed10, G, "REMOTE_UNLOCK", "remoteUnlock",
     unlocks=[{"scope": "PLAYER", "platformUserId": "42", "until": UNTIL_FAR}])
case("remote unlock wins outside the schedule", policy(schedule=OFFICE(B), allow=allow_user), wed20, G, "REMOTE_UNLOCK", "remoteUnlock",
     unlocks=[{"scope": "SERVER", "serverJobId": "job-a", "until": UNTIL_FAR}])
case("remote unlock wins for a player not on the allow list", policy(schedule=OFFICE(B), allow=[{"platformUserId": "7"}]), wed10, G,
     "REMOTE_UNLOCK", "remoteUnlock", unlocks=[{"scope": "UNIVERSE", "until": UNTIL_FAR}])
case("deny wins over open", policy("OPEN", deny=[{"platformUserId": "42"}]), wed10, D, "BLOCKED", "deny[0]")
case("deny wins over the allow list", policy(allow=allow_user, deny=[{"platformUserId": "42"}]), wed10, D, "BLOCKED", "deny[0]")
case("deny names its index", policy("OPEN", deny=[{"platformUserId": "1"}, {"platformUserId": "2"}, {"platformUserId": "42"}]), wed10, D, "BLOCKED", "deny[2]")
case("deny of another player does not apply", policy("OPEN", deny=[{"platformUserId": "43"}]), wed10, G, "OPEN", "mode")
case("deny applies outside the schedule before the schedule", policy(schedule=OFFICE(B), deny=[{"platformUserId": "42"}]), wed20, D, "BLOCKED", "deny[0]")
case("open grants outside the schedule", policy("OPEN", OFFICE(B), [{"platformUserId": "7"}]), wed20, G, "OPEN", "mode")
case("open grants a player not on the allow list", policy("OPEN", allow=[{"platformUserId": "7"}]), wed10, G, "OPEN", "mode")
case("open with nothing else", policy("OPEN"), wed10, G, "OPEN", "mode")
case("outside the schedule wins over the allow list", policy(schedule=OFFICE(B), allow=allow_user), wed20, D, "OUTSIDE_SCHEDULE", "schedule")
case("allow list in schedule", policy(schedule=OFFICE(B), allow=allow_user), wed10, G, "ALLOWLIST", "allow[0]")
case("not on the allow list in schedule", policy(schedule=OFFICE(B), allow=[{"platformUserId": "7"}]), wed10, D, "NOT_ON_ALLOWLIST", "allow")
case("empty allow lets everyone in the schedule pass", policy(schedule=OFFICE(B)), wed10, G, "SCHEDULE", "schedule.windows[0]")
case("empty allow outside the schedule", policy(schedule=OFFICE(B)), wed20, D, "OUTSIDE_SCHEDULE", "schedule")
case("no schedule and empty allow is always in schedule", policy(), wed20, G, "SCHEDULE", "schedule")
case("no schedule with an allow list", policy(allow=allow_user), wed20, G, "ALLOWLIST", "allow[0]")
case("no schedule, not on the allow list", policy(allow=[{"platformUserId": "7"}]), wed20, D, "NOT_ON_ALLOWLIST", "allow")
case("schedule with no windows is never open", policy(schedule=sched(B, [])), wed10, D, "OUTSIDE_SCHEDULE", "schedule")
case("fail mode open does not change a decision with a policy", policy(allow=[{"platformUserId": "7"}], fail="OPEN"), wed10, D, "NOT_ON_ALLOWLIST", "allow")

# ---------------------------------------------------------------------------
# 2. Deny rules that expire: until is exclusive.
# ---------------------------------------------------------------------------
U = "2026-12-01T00:00:00Z"
deny_until = [{"platformUserId": "42", "until": U}]
case("deny until: one second before", policy("OPEN", deny=deny_until), "2026-11-30T23:59:59Z", D, "BLOCKED", "deny[0]")
case("deny until: exactly at, expired", policy("OPEN", deny=deny_until), "2026-12-01T00:00:00Z", G, "OPEN", "mode")
case("deny until: after", policy("OPEN", deny=deny_until), "2026-12-01T00:00:01Z", G, "OPEN", "mode")
case("deny until: at, given with an offset", policy("OPEN", deny=deny_until), "2026-12-01T01:00:00+01:00", G, "OPEN", "mode")
case("deny until: one second before, given with an offset", policy("OPEN", deny=deny_until), "2026-12-01T00:59:59+01:00", D, "BLOCKED", "deny[0]")
case("deny until long past", policy("OPEN", deny=[{"platformUserId": "42", "until": "2020-01-01T00:00:00Z"}]), wed10, G, "OPEN", "mode")
case("deny without until is forever", policy("OPEN", deny=[{"platformUserId": "42"}]), "2099-06-01T12:00:00Z", D, "BLOCKED", "deny[0]")
case("expired deny falls through to the allow list", policy(allow=allow_user, deny=deny_until), "2026-12-02T10:00:00Z", G, "ALLOWLIST", "allow[0]")
case("unexpired deny before the allow list", policy(allow=allow_user, deny=deny_until), "2026-11-02T10:00:00Z", D, "BLOCKED", "deny[0]")
case("expired deny then outside the schedule", policy(schedule=OFFICE(B), deny=deny_until), local(B, "2026-12-02 20:00:00", "WED"), D, "OUTSIDE_SCHEDULE", "schedule")
case("deny until with milliseconds, just before", policy("OPEN", deny=[{"platformUserId": "42", "until": "2026-12-01T00:00:00.500Z"}]),
     "2026-12-01T00:00:00.499Z", D, "BLOCKED", "deny[0]")
case("deny until with milliseconds, at", policy("OPEN", deny=[{"platformUserId": "42", "until": "2026-12-01T00:00:00.500Z"}]),
     "2026-12-01T00:00:00.500Z", G, "OPEN", "mode")

# ---------------------------------------------------------------------------
# 3. Remote unlocks of each scope, and expired ones.
# ---------------------------------------------------------------------------
L = policy("LOCKED")
AT = "2026-11-25T10:00:00Z"
def ul(scope, until="2026-11-25T10:00:10Z", **kw):
    u = {"scope": scope, "until": until}
    u.update(kw)
    return u
case("unlock universe active", L, AT, G, "REMOTE_UNLOCK", "remoteUnlock", unlocks=[ul("UNIVERSE")])
case("unlock universe until exactly now has ended", L, AT, D, "ACCESS_POINT_DISABLED", "mode", unlocks=[ul("UNIVERSE", AT)])
case("unlock universe one second left", L, "2026-11-25T10:00:09Z", G, "REMOTE_UNLOCK", "remoteUnlock", unlocks=[ul("UNIVERSE")])
case("unlock universe ended a second ago", L, "2026-11-25T10:00:11Z", D, "ACCESS_POINT_DISABLED", "mode", unlocks=[ul("UNIVERSE")])
case("unlock server of this job", L, AT, G, "REMOTE_UNLOCK", "remoteUnlock", unlocks=[ul("SERVER", serverJobId="job-a")])
case("unlock server of another job", L, AT, D, "ACCESS_POINT_DISABLED", "mode", unlocks=[ul("SERVER", serverJobId="job-b")])
case("unlock server of this job expired", L, AT, D, "ACCESS_POINT_DISABLED", "mode", unlocks=[ul("SERVER", "2026-11-25T09:59:59Z", serverJobId="job-a")])
case("unlock player of this player", L, AT, G, "REMOTE_UNLOCK", "remoteUnlock", unlocks=[ul("PLAYER", platformUserId="42")])
case("unlock player of another player", L, AT, D, "ACCESS_POINT_DISABLED", "mode", unlocks=[ul("PLAYER", platformUserId="43")])
case("unlock player expired exactly", L, "2026-11-25T10:00:10Z", D, "ACCESS_POINT_DISABLED", "mode", unlocks=[ul("PLAYER", platformUserId="42")])
case("unlock player does not match a job id equal to the player id", L, AT, D, "ACCESS_POINT_DISABLED", "mode",
     job="42", unlocks=[ul("SERVER", serverJobId="43"), ul("PLAYER", platformUserId="job-a")])
case("one active unlock among expired and unrelated ones", L, AT, G, "REMOTE_UNLOCK", "remoteUnlock",
     unlocks=[ul("UNIVERSE", "2026-11-25T09:00:00Z"), ul("PLAYER", platformUserId="43"), ul("SERVER", serverJobId="job-a")])
case("every unlock expired", L, AT, D, "ACCESS_POINT_DISABLED", "mode",
     unlocks=[ul("UNIVERSE", "2026-11-25T09:00:00Z"), ul("PLAYER", "2026-11-25T09:59:00Z", platformUserId="42"), ul("SERVER", AT, serverJobId="job-a")])
case("no unlock, locked", L, AT, D, "ACCESS_POINT_DISABLED", "mode", unlocks=[])
# An unlock covers an instant only from its issue (from) to its end (until):
# a decision about an earlier instant does not count an unlock issued later.
case("unlock issued after the instant does not cover it", L, AT, D, "ACCESS_POINT_DISABLED", "mode",
     unlocks=[ul("UNIVERSE", "2026-11-25T10:05:10Z", **{"from": "2026-11-25T10:05:00Z"})])
case("unlock issued exactly at the instant covers it", L, AT, G, "REMOTE_UNLOCK", "remoteUnlock",
     unlocks=[ul("PLAYER", **{"from": AT, "platformUserId": "42"})])
case("unlock issued a millisecond after the instant", L, AT, D, "ACCESS_POINT_DISABLED", "mode",
     unlocks=[ul("SERVER", **{"from": "2026-11-25T10:00:00.001Z", "serverJobId": "job-a"})])
case("unlock issued before the instant and running", L, AT, G, "REMOTE_UNLOCK", "remoteUnlock",
     unlocks=[ul("UNIVERSE", **{"from": "2026-11-25T09:59:55Z"})])
case("a later unlock ignored, an earlier one counts", L, AT, G, "REMOTE_UNLOCK", "remoteUnlock",
     unlocks=[ul("UNIVERSE", "2026-11-26T00:00:00Z", **{"from": "2026-11-25T23:00:00Z"}), ul("PLAYER", **{"from": "2026-11-25T09:59:59Z", "platformUserId": "42"})])
case("unlock in rules mode outside the schedule", policy(schedule=OFFICE(B)), local(B, "2026-11-25 03:00:00", "WED"), G, "REMOTE_UNLOCK", "remoteUnlock",
     unlocks=[ul("UNIVERSE", "2026-11-25T03:00:00Z")])
case("expired unlock in rules mode outside the schedule", policy(schedule=OFFICE(B)), local(B, "2026-11-25 03:00:00", "WED"), D, "OUTSIDE_SCHEDULE", "schedule",
     unlocks=[ul("UNIVERSE", "2026-11-25T02:00:00Z")])
case("unlock in open mode still names the unlock", policy("OPEN"), AT, G, "REMOTE_UNLOCK", "remoteUnlock", unlocks=[ul("PLAYER", platformUserId="42")])
case("expired unlock in open mode", policy("OPEN"), AT, G, "OPEN", "mode", unlocks=[ul("PLAYER", AT, platformUserId="42")])
case("unlock with a deny rule in open mode", policy("OPEN", deny=[{"platformUserId": "42"}]), AT, G, "REMOTE_UNLOCK", "remoteUnlock", unlocks=[ul("SERVER", serverJobId="job-a")])
case("expired unlock with a deny rule", policy("OPEN", deny=[{"platformUserId": "42"}]), AT, D, "BLOCKED", "deny[0]", unlocks=[ul("SERVER", "2026-11-25T09:00:00Z", serverJobId="job-a")])

# ---------------------------------------------------------------------------
# 4. Allow rules: ranks, gamepasses, badges, premium, the first that matches.
# ---------------------------------------------------------------------------
def grp(rank, gid="456"):
    return [{"groupId": gid, "minRank": rank}]
for min_rank, rank, ok in [(200, 199, False), (200, 200, True), (200, 201, True), (200, 255, True), (200, 0, False),
                           (255, 254, False), (255, 255, True), (1, 0, False), (1, 1, True), (0, 0, True), (0, 255, True),
                           (100, 99, False), (100, 100, True)]:
    case(f"group rank {rank} against minRank {min_rank}", policy(allow=grp(min_rank)), AT,
         G if ok else D, "ALLOWLIST" if ok else "NOT_ON_ALLOWLIST", "allow[0]" if ok else "allow", attrs=attrs({"456": rank}))
case("group rule without minRank admits rank 1", policy(allow=[{"groupId": "456"}]), AT, G, "ALLOWLIST", "allow[0]", attrs=attrs({"456": 1}))
case("group rule without minRank refuses rank 0", policy(allow=[{"groupId": "456"}]), AT, D, "NOT_ON_ALLOWLIST", "allow", attrs=attrs({"456": 0}))
case("group rule, player not in the group", policy(allow=grp(0)), AT, D, "NOT_ON_ALLOWLIST", "allow", attrs=attrs({"457": 255}))
case("group rule, player in no group", policy(allow=grp(1)), AT, D, "NOT_ON_ALLOWLIST", "allow")
case("group rules of two groups, the second matches", policy(allow=grp(200, "1") + grp(10, "2")), AT, G, "ALLOWLIST", "allow[1]",
     attrs=attrs({"1": 100, "2": 10}))
case("group rules of two groups, both match: the first wins", policy(allow=grp(200, "1") + grp(10, "2")), AT, G, "ALLOWLIST", "allow[0]",
     attrs=attrs({"1": 250, "2": 10}))
case("many player groups, one matches", policy(allow=grp(5, "9")), AT, G, "ALLOWLIST", "allow[0]",
     attrs=attrs({str(i): 5 for i in range(1, 20)}))
case("gamepass owned", policy(allow=[{"gamepassId": "789"}]), AT, G, "ALLOWLIST", "allow[0]", attrs=attrs(gamepasses=["1", "789"]))
case("gamepass not owned", policy(allow=[{"gamepassId": "789"}]), AT, D, "NOT_ON_ALLOWLIST", "allow", attrs=attrs(gamepasses=["788", "7890"]))
case("gamepass id is not a badge id", policy(allow=[{"gamepassId": "789"}]), AT, D, "NOT_ON_ALLOWLIST", "allow", attrs=attrs(badges=["789"]))
case("badge owned", policy(allow=[{"badgeId": "1011"}]), AT, G, "ALLOWLIST", "allow[0]", attrs=attrs(badges=["1011"]))
case("badge not owned", policy(allow=[{"badgeId": "1011"}]), AT, D, "NOT_ON_ALLOWLIST", "allow", attrs=attrs(badges=["101"]))
case("badge id is not a gamepass id", policy(allow=[{"badgeId": "1011"}]), AT, D, "NOT_ON_ALLOWLIST", "allow", attrs=attrs(gamepasses=["1011"]))
case("premium player", policy(allow=[{"premium": True}]), AT, G, "ALLOWLIST", "allow[0]", attrs=attrs(premium=True))
case("player without premium", policy(allow=[{"premium": True}]), AT, D, "NOT_ON_ALLOWLIST", "allow", attrs=attrs(premium=False))
case("platform user id on the list", policy(allow=[{"platformUserId": "7"}, {"platformUserId": "42"}]), AT, G, "ALLOWLIST", "allow[1]")
case("platform user id is compared whole", policy(allow=[{"platformUserId": "4"}, {"platformUserId": "420"}]), AT, D, "NOT_ON_ALLOWLIST", "allow")
case("group id is not a user id", policy(allow=[{"platformUserId": "456"}]), AT, D, "NOT_ON_ALLOWLIST", "allow", attrs=attrs({"456": 255}))
FULL = [{"platformUserId": "42"}, {"groupId": "456", "minRank": 200}, {"gamepassId": "789"}, {"badgeId": "1011"}, {"premium": True}]
case("every rule matches: the first wins", policy(allow=FULL), AT, G, "ALLOWLIST", "allow[0]",
     attrs=attrs({"456": 255}, ["789"], ["1011"], True))
case("all but the user match: the group wins", policy(allow=FULL), AT, G, "ALLOWLIST", "allow[1]", user="43",
     attrs=attrs({"456": 255}, ["789"], ["1011"], True))
case("gamepass, badge and premium match: the gamepass wins", policy(allow=FULL), AT, G, "ALLOWLIST", "allow[2]", user="43",
     attrs=attrs({"456": 199}, ["789"], ["1011"], True))
case("badge and premium match: the badge wins", policy(allow=FULL), AT, G, "ALLOWLIST", "allow[3]", user="43", attrs=attrs(badges=["1011"], premium=True))
case("only premium matches", policy(allow=FULL), AT, G, "ALLOWLIST", "allow[4]", user="43", attrs=attrs(premium=True))
case("nothing matches the full list", policy(allow=FULL), AT, D, "NOT_ON_ALLOWLIST", "allow", user="43",
     attrs=attrs({"456": 199}, ["788"], ["1010"], False))
REV = list(reversed(FULL))
case("reversed list: premium first", policy(allow=REV), AT, G, "ALLOWLIST", "allow[0]", attrs=attrs({"456": 255}, ["789"], ["1011"], True))
case("reversed list: the user last", policy(allow=REV), AT, G, "ALLOWLIST", "allow[4]")
case("reversed list: group before user", policy(allow=REV), AT, G, "ALLOWLIST", "allow[3]", attrs=attrs({"456": 200}))
case("reversed list: gamepass before group", policy(allow=REV), AT, G, "ALLOWLIST", "allow[2]", attrs=attrs({"456": 200}, ["789"]))

# ---------------------------------------------------------------------------
# 5. Every weekday, and to-exclusive boundaries, in three zones.
# ---------------------------------------------------------------------------
# Week of Monday 2026-11-16 (no DST change near it in any zone used).
DAYS = {d: f"2026-11-{16 + i:02d}" for i, d in enumerate(WEEK)}
for zone in ["Europe/Berlin", "America/New_York", "Australia/Sydney"]:
    office = policy(schedule=OFFICE(zone))
    for d in WEEK:
        date = DAYS[d]
        if d in WORKDAYS.split(","):
            case(f"{zone} {d} 10:00 in office hours", office, local(zone, f"{date} 10:00:00", d), G, "SCHEDULE", "schedule.windows[0]")
        else:
            case(f"{zone} {d} 10:00 no office hours", office, local(zone, f"{date} 10:00:00", d), D, "OUTSIDE_SCHEDULE", "schedule")
    # Boundaries on a Wednesday: from inclusive, to exclusive.
    date = DAYS["WED"]
    for t, ok in [("08:59:59", False), ("09:00:00", True), ("09:00:01", True), ("17:29:59", True), ("17:30:00", False), ("17:30:01", False)]:
        case(f"{zone} WED {t} office boundary", office, local(zone, f"{date} {t}", "WED"),
             G if ok else D, "SCHEDULE" if ok else "OUTSIDE_SCHEDULE", "schedule.windows[0]" if ok else "schedule")

# One window per day, 01:00-02:00, so the rule names the weekday's window.
PER_DAY = [win(d, "01:00", "02:00") for d in WEEK]
for zone in ["Europe/Berlin", "America/New_York", "Australia/Sydney"]:
    p = policy(schedule=sched(zone, PER_DAY))
    for i, d in enumerate(WEEK):
        case(f"{zone} {d} 01:30 is that day's window", p, local(zone, f"{DAYS[d]} 01:30:00", d), G, "SCHEDULE", f"schedule.windows[{i}]")
    case(f"{zone} MON 02:00 after every window", p, local(zone, f"{DAYS['MON']} 02:00:00", "MON"), D, "OUTSIDE_SCHEDULE", "schedule")

# ---------------------------------------------------------------------------
# 6. Windows across midnight belong to the day they start.
# ---------------------------------------------------------------------------
night = policy(schedule=OFFICE(B))  # SAT 22:00-02:00 is windows[1]
for s, d, ok in [("2026-11-21 21:59:59", "SAT", False), ("2026-11-21 22:00:00", "SAT", True), ("2026-11-21 23:59:59", "SAT", True),
                 ("2026-11-22 00:00:00", "SUN", True), ("2026-11-22 01:59:59", "SUN", True), ("2026-11-22 02:00:00", "SUN", False),
                 ("2026-11-22 22:30:00", "SUN", False), ("2026-11-23 01:00:00", "MON", False), ("2026-11-20 23:00:00", "FRI", False),
                 ("2026-11-21 01:00:00", "SAT", False)]:
    case(f"Berlin night SAT 22:00-02:00 at {d} {s[11:]}", night, local(B, s, d), G if ok else D,
         "SCHEDULE" if ok else "OUTSIDE_SCHEDULE", "schedule.windows[1]" if ok else "schedule")
# A Sunday night crosses into Monday, the week's end into its start.
sun = policy(schedule=sched(B, [win("SUN", "23:00", "01:00")]))
case("SUN 23:00-01:00 at MON 00:30", sun, local(B, "2026-11-23 00:30:00", "MON"), G, "SCHEDULE", "schedule.windows[0]")
case("SUN 23:00-01:00 at MON 01:00", sun, local(B, "2026-11-23 01:00:00", "MON"), D, "OUTSIDE_SCHEDULE", "schedule")
case("SUN 23:00-01:00 at SUN 00:30 (the Saturday night is not this window)", sun, local(B, "2026-11-22 00:30:00", "SUN"), D, "OUTSIDE_SCHEDULE", "schedule")
case("SUN 23:00-01:00 at SUN 23:00", sun, local(B, "2026-11-22 23:00:00", "SUN"), G, "SCHEDULE", "schedule.windows[0]")
# A window to 00:00 ends at midnight and to 24:00 says the same.
for to in ["00:00", "24:00"]:
    p = policy(schedule=sched(B, [win("FRI", "20:00", to)]))
    case(f"FRI 20:00-{to} at FRI 23:59:59", p, local(B, "2026-11-20 23:59:59", "FRI"), G, "SCHEDULE", "schedule.windows[0]")
    case(f"FRI 20:00-{to} at SAT 00:00", p, local(B, "2026-11-21 00:00:00", "SAT"), D, "OUTSIDE_SCHEDULE", "schedule")
whole = policy(schedule=sched(B, [win("TUE", "00:00", "24:00")]))
case("TUE 00:00-24:00 at TUE 00:00", whole, local(B, "2026-11-17 00:00:00", "TUE"), G, "SCHEDULE", "schedule.windows[0]")
case("TUE 00:00-24:00 at TUE 23:59:59", whole, local(B, "2026-11-17 23:59:59", "TUE"), G, "SCHEDULE", "schedule.windows[0]")
case("TUE 00:00-24:00 at WED 00:00", whole, local(B, "2026-11-18 00:00:00", "WED"), D, "OUTSIDE_SCHEDULE", "schedule")
case("TUE 00:00-24:00 at MON 23:59:59", whole, local(B, "2026-11-16 23:59:59", "MON"), D, "OUTSIDE_SCHEDULE", "schedule")
# Almost a whole day, crossing: 00:01 to 00:00 the next day.
long = policy(schedule=sched(B, [win("THU", "00:01", "00:00")]))
case("THU 00:01-00:00 at THU 00:00:59", long, local(B, "2026-11-19 00:00:59", "THU"), D, "OUTSIDE_SCHEDULE", "schedule")
case("THU 00:01-00:00 at THU 00:01", long, local(B, "2026-11-19 00:01:00", "THU"), G, "SCHEDULE", "schedule.windows[0]")
# A window of the day wins over one carried over from the day before.
overlap = policy(schedule=sched(B, [win("FRI", "22:00", "04:00"), win("SAT", "01:00", "03:00")]))
case("carried FRI night at SAT 00:30", overlap, local(B, "2026-11-21 00:30:00", "SAT"), G, "SCHEDULE", "schedule.windows[0]")
case("SAT's own window over the carried FRI night at SAT 01:30", overlap, local(B, "2026-11-21 01:30:00", "SAT"), G, "SCHEDULE", "schedule.windows[1]")
case("carried FRI night after SAT's window at SAT 03:30", overlap, local(B, "2026-11-21 03:30:00", "SAT"), G, "SCHEDULE", "schedule.windows[0]")
case("after both at SAT 04:00", overlap, local(B, "2026-11-21 04:00:00", "SAT"), D, "OUTSIDE_SCHEDULE", "schedule")
# Two windows of the same day: the lower index is named.
same = policy(schedule=sched(B, [win("MON", "08:00", "12:00"), win("MON", "10:00", "14:00")]))
case("two MON windows at 11:00: the first", same, local(B, "2026-11-16 11:00:00", "MON"), G, "SCHEDULE", "schedule.windows[0]")
case("two MON windows at 13:00: the second", same, local(B, "2026-11-16 13:00:00", "MON"), G, "SCHEDULE", "schedule.windows[1]")
# Night club: FRI and SAT 22:00-04:00 with a VIP gamepass list.
club = policy(schedule=sched("America/New_York", [win("FRI,SAT", "22:00", "04:00")]), allow=[{"gamepassId": "555"}])
NY = "America/New_York"
case("club SAT 03:59 VIP", club, local(NY, "2026-11-21 03:59:00", "SAT"), G, "ALLOWLIST", "allow[0]", attrs=attrs(gamepasses=["555"]))
case("club SUN 03:59 VIP", club, local(NY, "2026-11-22 03:59:00", "SUN"), G, "ALLOWLIST", "allow[0]", attrs=attrs(gamepasses=["555"]))
case("club MON 03:59 VIP", club, local(NY, "2026-11-23 03:59:00", "MON"), D, "OUTSIDE_SCHEDULE", "schedule", attrs=attrs(gamepasses=["555"]))
case("club SAT 04:00 VIP", club, local(NY, "2026-11-21 04:00:00", "SAT"), D, "OUTSIDE_SCHEDULE", "schedule", attrs=attrs(gamepasses=["555"]))
case("club FRI 22:00 not VIP", club, local(NY, "2026-11-20 22:00:00", "FRI"), D, "NOT_ON_ALLOWLIST", "allow")
case("club THU 23:00 VIP", club, local(NY, "2026-11-19 23:00:00", "THU"), D, "OUTSIDE_SCHEDULE", "schedule", attrs=attrs(gamepasses=["555"]))

# ---------------------------------------------------------------------------
# 7. Exceptions, by local date.
# ---------------------------------------------------------------------------
xmas = sched(B, [win(WORKDAYS, "09:00", "17:30"), win("THU", "22:00", "02:00")], [{"date": "2026-12-25", "closed": True}])
case("closed FRI 2026-12-25 at 10:00", policy(schedule=xmas), local(B, "2026-12-25 10:00:00", "FRI"), D, "OUTSIDE_SCHEDULE", "schedule.exceptions[0]")
case("closed date: the night of THU 24th still runs into FRI 25th", policy(schedule=xmas), local(B, "2026-12-25 01:00:00", "FRI"), G, "SCHEDULE", "schedule.windows[1]")
case("closed date: the night of THU 24th ends at 02:00", policy(schedule=xmas), local(B, "2026-12-25 02:00:00", "FRI"), D, "OUTSIDE_SCHEDULE", "schedule.exceptions[0]")
case("the day before the closed date is open", policy(schedule=xmas), local(B, "2026-12-24 10:00:00", "THU"), G, "SCHEDULE", "schedule.windows[0]")
case("the day after the closed date is not closed", policy(schedule=xmas), local(B, "2026-12-28 10:00:00", "MON"), G, "SCHEDULE", "schedule.windows[0]")
case("a week later the same weekday is open", policy(schedule=xmas), local(B, "2027-01-01 10:00:00", "FRI"), G, "SCHEDULE", "schedule.windows[0]")
case("closed date outside its windows anyway names the exception", policy(schedule=xmas), local(B, "2026-12-25 20:00:00", "FRI"), D, "OUTSIDE_SCHEDULE", "schedule.exceptions[0]")
# The exception is by local date: 2026-12-25 00:30 in Berlin is 2026-12-24 23:30 UTC.
sat_night_closed = sched(B, [win("SAT", "22:00", "02:00")], [{"date": "2026-11-28", "closed": True}])
case("closed SAT: no night from SAT 22:00", policy(schedule=sat_night_closed), local(B, "2026-11-28 23:00:00", "SAT"), D, "OUTSIDE_SCHEDULE", "schedule.exceptions[0]")
case("closed SAT: nothing carried into SUN 01:00", policy(schedule=sat_night_closed), local(B, "2026-11-29 01:00:00", "SUN"), D, "OUTSIDE_SCHEDULE", "schedule")
case("closed SAT: the SAT before is open", policy(schedule=sat_night_closed), local(B, "2026-11-22 01:00:00", "SUN"), G, "SCHEDULE", "schedule.windows[0]")
case("exception by local date: 23:30 UTC on the 24th is the 25th in Berlin", policy(schedule=xmas, allow=[{"platformUserId": "42"}]),
     "2026-12-24T23:30:00Z", G, "ALLOWLIST", "allow[0]")  # the THU night (Berlin 00:30 on the 25th) carries over
midnight = sched(B, [win(WORKDAYS, "00:00", "01:00")], [{"date": "2026-12-25", "closed": True}])
case("exception by local date: 23:30 UTC on the 24th is 00:30 on the closed 25th", policy(schedule=midnight), "2026-12-24T23:30:00Z",
     D, "OUTSIDE_SCHEDULE", "schedule.exceptions[0]")
case("exception by local date: 23:30 UTC on the 23rd is 00:30 on the open 24th", policy(schedule=midnight), "2026-12-23T23:30:00Z",
     G, "SCHEDULE", "schedule.windows[0]")
case("exception by local date: 00:30 UTC on the 25th is 01:30, after the window", policy(schedule=midnight), "2026-12-25T00:30:00Z",
     D, "OUTSIDE_SCHEDULE", "schedule.exceptions[0]")
case("exception by local date: 09:30 UTC on the 25th", policy(schedule=xmas), "2026-12-25T09:30:00Z", D, "OUTSIDE_SCHEDULE", "schedule.exceptions[0]")
special = sched(B, [win(WORKDAYS, "09:00", "17:30")],
                [{"date": "2026-12-24", "windows": [{"from": "09:00", "to": "12:00"}]},
                 {"date": "2026-12-27", "windows": [{"from": "10:00", "to": "11:00"}, {"from": "23:00", "to": "01:00"}]},
                 {"date": "2026-12-31", "closed": True}])
case("special hours THU 24th at 11:59", policy(schedule=special), local(B, "2026-12-24 11:59:00", "THU"), G, "SCHEDULE", "schedule.exceptions[0].windows[0]")
case("special hours THU 24th at 12:00", policy(schedule=special), local(B, "2026-12-24 12:00:00", "THU"), D, "OUTSIDE_SCHEDULE", "schedule.exceptions[0]")
case("special hours THU 24th replace the weekday at 15:00", policy(schedule=special), local(B, "2026-12-24 15:00:00", "THU"), D, "OUTSIDE_SCHEDULE", "schedule.exceptions[0]")
case("special hours open a SUN at 10:30", policy(schedule=special), local(B, "2026-12-27 10:30:00", "SUN"), G, "SCHEDULE", "schedule.exceptions[1].windows[0]")
case("special hours SUN at 11:00", policy(schedule=special), local(B, "2026-12-27 11:00:00", "SUN"), D, "OUTSIDE_SCHEDULE", "schedule.exceptions[1]")
case("special night SUN 23:00 crossing", policy(schedule=special), local(B, "2026-12-27 23:30:00", "SUN"), G, "SCHEDULE", "schedule.exceptions[1].windows[1]")
case("special night carried into MON 00:59", policy(schedule=special), local(B, "2026-12-28 00:59:59", "MON"), G, "SCHEDULE", "schedule.exceptions[1].windows[1]")
case("special night ends MON 01:00", policy(schedule=special), local(B, "2026-12-28 01:00:00", "MON"), D, "OUTSIDE_SCHEDULE", "schedule")
case("the MON after special hours keeps its own window", policy(schedule=special), local(B, "2026-12-28 09:00:00", "MON"), G, "SCHEDULE", "schedule.windows[0]")
case("closed THU 31st", policy(schedule=special), local(B, "2026-12-31 10:00:00", "THU"), D, "OUTSIDE_SCHEDULE", "schedule.exceptions[2]")
case("special hours and an allow list", policy(schedule=special, allow=[{"badgeId": "1"}]), local(B, "2026-12-24 10:00:00", "THU"), G, "ALLOWLIST", "allow[0]",
     attrs=attrs(badges=["1"]))
case("special hours, not on the allow list", policy(schedule=special, allow=[{"badgeId": "1"}]), local(B, "2026-12-24 10:00:00", "THU"), D, "NOT_ON_ALLOWLIST", "allow")
case("OPEN ignores a closed date", policy("OPEN", special), local(B, "2026-12-31 10:00:00", "THU"), G, "OPEN", "mode")
case("remote unlock on a closed date", policy(schedule=special), local(B, "2026-12-31 10:00:00", "THU"), G, "REMOTE_UNLOCK", "remoteUnlock",
     unlocks=[ul("UNIVERSE", "2027-01-01T00:00:00Z")])
syd_x = sched("Australia/Sydney", [win(WORKDAYS, "09:00", "17:00")], [{"date": "2026-01-26", "closed": True}])
case("Sydney closed MON 26 Jan at 09:00 local (SUN 22:00 UTC)", policy(schedule=syd_x), "2026-01-25T22:00:00Z", D, "OUTSIDE_SCHEDULE", "schedule.exceptions[0]")
case("Sydney TUE 27 Jan 09:00 local (MON 22:00 UTC) is open", policy(schedule=syd_x), "2026-01-26T22:00:00Z", G, "SCHEDULE", "schedule.windows[0]")
case("Sydney FRI 23 Jan 16:59:59 local", policy(schedule=syd_x), "2026-01-23T05:59:59Z", G, "SCHEDULE", "schedule.windows[0]")

# ---------------------------------------------------------------------------
# 8. Daylight saving: Europe/Berlin (last Sunday of March / October).
#    2026-03-29 02:00 CET (+01) becomes 03:00 CEST (+02) at 01:00 UTC.
#    2026-10-25 03:00 CEST (+02) becomes 02:00 CET (+01) at 01:00 UTC.
# ---------------------------------------------------------------------------
def dst(label, p, at, ok, rule_in, rule_out="schedule", reason_in="SCHEDULE"):
    case(label, p, at, G if ok else D, reason_in if ok else "OUTSIDE_SCHEDULE", rule_in if ok else rule_out)

skip = policy(schedule=sched(B, [win("SUN", "02:00", "03:00")]))
dst("Berlin spring: 01:59:59 CET is before the skipped hour", skip, "2026-03-29T00:59:59Z", False, None)
dst("Berlin spring: 03:00 CEST follows at once, the window was empty", skip, "2026-03-29T01:00:00Z", False, None)
dst("Berlin spring: 03:30 CEST", skip, "2026-03-29T01:30:00Z", False, None)
dst("Berlin: the same window a week later, 02:30 CEST", skip, "2026-04-05T00:30:00Z", True, "schedule.windows[0]")
dst("Berlin: the same window a week earlier, 02:30 CET", skip, "2026-03-22T01:30:00Z", True, "schedule.windows[0]")
part = policy(schedule=sched(B, [win("SUN", "02:30", "04:00")]))
dst("Berlin spring: 02:30-04:00 open from 03:00 CEST", part, "2026-03-29T01:00:00Z", True, "schedule.windows[0]")
dst("Berlin spring: 02:30-04:00 at 01:59:59 CET", part, "2026-03-29T00:59:59Z", False, None)
dst("Berlin spring: 02:30-04:00 closes at 04:00 CEST", part, "2026-03-29T02:00:00Z", False, None)
dst("Berlin spring: 02:30-04:00 at 03:59:59 CEST", part, "2026-03-29T01:59:59Z", True, "schedule.windows[0]")
spring_night = policy(schedule=sched(B, [win("SAT", "22:00", "04:00")]))
dst("Berlin spring night: SAT 22:00 CET", spring_night, "2026-03-28T21:00:00Z", True, "schedule.windows[0]")
dst("Berlin spring night: SAT 21:59:59 CET", spring_night, "2026-03-28T20:59:59Z", False, None)
dst("Berlin spring night: SUN 01:59:59 CET", spring_night, "2026-03-29T00:59:59Z", True, "schedule.windows[0]")
dst("Berlin spring night: SUN 03:00 CEST", spring_night, "2026-03-29T01:00:00Z", True, "schedule.windows[0]")
dst("Berlin spring night: SUN 03:59:59 CEST (5 hours long)", spring_night, "2026-03-29T01:59:59Z", True, "schedule.windows[0]")
dst("Berlin spring night: SUN 04:00 CEST", spring_night, "2026-03-29T02:00:00Z", False, None)
work = policy(schedule=sched(B, [win(WORKDAYS, "09:00", "17:30")]))
dst("Berlin: FRI before spring 09:00 CET = 08:00 UTC", work, "2026-03-27T08:00:00Z", True, "schedule.windows[0]")
dst("Berlin: FRI before spring 07:59:59 UTC = 08:59:59 CET", work, "2026-03-27T07:59:59Z", False, None)
dst("Berlin: MON after spring 09:00 CEST = 07:00 UTC", work, "2026-03-30T07:00:00Z", True, "schedule.windows[0]")
dst("Berlin: MON after spring 06:59:59 UTC = 08:59:59 CEST", work, "2026-03-30T06:59:59Z", False, None)
dst("Berlin: MON after spring 17:29:59 CEST = 15:29:59 UTC", work, "2026-03-30T15:29:59Z", True, "schedule.windows[0]")
dst("Berlin: MON after spring 16:29:59 UTC = 18:29:59 CEST", work, "2026-03-30T16:29:59Z", False, None)
dst("Berlin: FRI before fall 09:00 CEST = 07:00 UTC", work, "2026-10-23T07:00:00Z", True, "schedule.windows[0]")
dst("Berlin: MON after fall 09:00 CET = 08:00 UTC", work, "2026-10-26T08:00:00Z", True, "schedule.windows[0]")
dst("Berlin: MON after fall 07:30 UTC = 08:30 CET", work, "2026-10-26T07:30:00Z", False, None)
rep = policy(schedule=sched(B, [win("SUN", "02:00", "03:00")]))
dst("Berlin fall: 01:59:59 CEST", rep, "2026-10-24T23:59:59Z", False, None)
dst("Berlin fall: first 02:00 CEST", rep, "2026-10-25T00:00:00Z", True, "schedule.windows[0]")
dst("Berlin fall: first 02:59:59 CEST", rep, "2026-10-25T00:59:59Z", True, "schedule.windows[0]")
dst("Berlin fall: second 02:00 CET", rep, "2026-10-25T01:00:00Z", True, "schedule.windows[0]")
dst("Berlin fall: second 02:59:59 CET", rep, "2026-10-25T01:59:59Z", True, "schedule.windows[0]")
dst("Berlin fall: 03:00 CET", rep, "2026-10-25T02:00:00Z", False, None)
fall_night = policy(schedule=sched(B, [win("SAT", "22:00", "02:00")]))
dst("Berlin fall night: SAT 22:00 CEST", fall_night, "2026-10-24T20:00:00Z", True, "schedule.windows[0]")
dst("Berlin fall night: SUN 01:59:59 CEST", fall_night, "2026-10-24T23:59:59Z", True, "schedule.windows[0]")
dst("Berlin fall night: SUN 02:00 CEST ends it", fall_night, "2026-10-25T00:00:00Z", False, None)
dst("Berlin fall night: the second 02:30 (CET) is after its end", fall_night, "2026-10-25T01:30:00Z", False, None)
fall_late = policy(schedule=sched(B, [win("SAT", "23:00", "03:00")]))
dst("Berlin fall night to 03:00: first 02:30 CEST", fall_late, "2026-10-25T00:30:00Z", True, "schedule.windows[0]")
dst("Berlin fall night to 03:00: second 02:30 CET", fall_late, "2026-10-25T01:30:00Z", True, "schedule.windows[0]")
dst("Berlin fall night to 03:00: 03:00 CET", fall_late, "2026-10-25T02:00:00Z", False, None)
sun_day = policy(schedule=sched(B, [win("SUN", "00:00", "24:00")]))
dst("Berlin fall: a whole Sunday of 25 hours, its last second", sun_day, "2026-10-25T22:59:59Z", True, "schedule.windows[0]")
dst("Berlin fall: the Monday after", sun_day, "2026-10-25T23:00:00Z", False, None)
dst("Berlin spring: a whole Sunday of 23 hours, its last second", sun_day, "2026-03-29T21:59:59Z", True, "schedule.windows[0]")
dst("Berlin spring: the Monday after", sun_day, "2026-03-29T22:00:00Z", False, None)
dst("Berlin spring: the Sunday's first second", sun_day, "2026-03-28T23:00:00Z", True, "schedule.windows[0]")

# ---------------------------------------------------------------------------
# 9. Daylight saving: Australia/Sydney (southern hemisphere).
#    2026-04-05 03:00 AEDT (+11) becomes 02:00 AEST (+10) at 16:00 UTC on the 4th.
#    2026-10-04 02:00 AEST (+10) becomes 03:00 AEDT (+11) at 16:00 UTC on the 3rd.
# ---------------------------------------------------------------------------
S = "Australia/Sydney"
srep = policy(schedule=sched(S, [win("SUN", "02:00", "03:00")]))
dst("Sydney fall back: 01:59:59 AEDT", srep, "2026-04-04T14:59:59Z", False, None)
dst("Sydney fall back: first 02:00 AEDT", srep, "2026-04-04T15:00:00Z", True, "schedule.windows[0]")
dst("Sydney fall back: first 02:59:59 AEDT", srep, "2026-04-04T15:59:59Z", True, "schedule.windows[0]")
dst("Sydney fall back: second 02:00 AEST", srep, "2026-04-04T16:00:00Z", True, "schedule.windows[0]")
dst("Sydney fall back: second 02:59:59 AEST", srep, "2026-04-04T16:59:59Z", True, "schedule.windows[0]")
dst("Sydney fall back: 03:00 AEST", srep, "2026-04-04T17:00:00Z", False, None)
dst("Sydney spring forward: 01:59:59 AEST", srep, "2026-10-03T15:59:59Z", False, None)
dst("Sydney spring forward: 03:00 AEDT, the window was empty", srep, "2026-10-03T16:00:00Z", False, None)
dst("Sydney spring forward: a week later 02:30 AEDT", srep, "2026-10-10T15:30:00Z", True, "schedule.windows[0]")
swork = policy(schedule=sched(S, [win(WORKDAYS, "09:00", "17:00")]))
dst("Sydney: FRI 2 Oct 09:00 AEST = THU 23:00 UTC", swork, "2026-10-01T23:00:00Z", True, "schedule.windows[0]")
dst("Sydney: FRI 2 Oct 08:59:59 AEST", swork, "2026-10-01T22:59:59Z", False, None)
dst("Sydney: MON 5 Oct 09:00 AEDT = SUN 22:00 UTC", swork, "2026-10-04T22:00:00Z", True, "schedule.windows[0]")
dst("Sydney: MON 5 Oct 08:59:59 AEDT", swork, "2026-10-04T21:59:59Z", False, None)
dst("Sydney: MON 5 Oct 16:59:59 AEDT", swork, "2026-10-05T05:59:59Z", True, "schedule.windows[0]")
dst("Sydney: MON 5 Oct 17:00 AEDT", swork, "2026-10-05T06:00:00Z", False, None)
dst("Sydney: FRI 3 Apr 16:59:59 AEDT", swork, "2026-04-03T05:59:59Z", True, "schedule.windows[0]")
dst("Sydney: MON 6 Apr 09:00 AEST = SUN 23:00 UTC", swork, "2026-04-05T23:00:00Z", True, "schedule.windows[0]")
dst("Sydney: MON 6 Apr 08:30 AEST = SUN 22:30 UTC", swork, "2026-04-05T22:30:00Z", False, None)
snight = policy(schedule=sched(S, [win("SAT", "22:00", "04:00")]))
dst("Sydney spring night: SAT 22:00 AEST", snight, "2026-10-03T12:00:00Z", True, "schedule.windows[0]")
dst("Sydney spring night: SUN 01:59:59 AEST", snight, "2026-10-03T15:59:59Z", True, "schedule.windows[0]")
dst("Sydney spring night: SUN 03:00 AEDT", snight, "2026-10-03T16:00:00Z", True, "schedule.windows[0]")
dst("Sydney spring night: SUN 04:00 AEDT", snight, "2026-10-03T17:00:00Z", False, None)
dst("Sydney fall night: SUN 03:59:59 AEST", snight, "2026-04-04T17:59:59Z", True, "schedule.windows[0]")
dst("Sydney fall night: SUN 04:00 AEST", snight, "2026-04-04T18:00:00Z", False, None)
dst("Sydney fall night: SAT 21:59:59 AEDT", snight, "2026-04-04T10:59:59Z", False, None)

# ---------------------------------------------------------------------------
# 10. Daylight saving: America/New_York.
#     2026-03-08 02:00 EST (-05) becomes 03:00 EDT (-04) at 07:00 UTC.
#     2026-11-01 02:00 EDT (-04) becomes 01:00 EST (-05) at 06:00 UTC.
# ---------------------------------------------------------------------------
nskip = policy(schedule=sched(NY, [win("SUN", "02:00", "03:00")]))
dst("New York spring: 01:59:59 EST", nskip, "2026-03-08T06:59:59Z", False, None)
dst("New York spring: 03:00 EDT, the window was empty", nskip, "2026-03-08T07:00:00Z", False, None)
npart = policy(schedule=sched(NY, [win("SUN", "02:30", "04:00")]))
dst("New York spring: 02:30-04:00 at 03:00 EDT", npart, "2026-03-08T07:00:00Z", True, "schedule.windows[0]")
dst("New York spring: 02:30-04:00 at 04:00 EDT", npart, "2026-03-08T08:00:00Z", False, None)
nrep = policy(schedule=sched(NY, [win("SUN", "01:00", "02:00")]))
dst("New York fall: 00:59:59 EDT", nrep, "2026-11-01T04:59:59Z", False, None)
dst("New York fall: first 01:00 EDT", nrep, "2026-11-01T05:00:00Z", True, "schedule.windows[0]")
dst("New York fall: first 01:59:59 EDT", nrep, "2026-11-01T05:59:59Z", True, "schedule.windows[0]")
dst("New York fall: second 01:00 EST", nrep, "2026-11-01T06:00:00Z", True, "schedule.windows[0]")
dst("New York fall: second 01:59:59 EST", nrep, "2026-11-01T06:59:59Z", True, "schedule.windows[0]")
dst("New York fall: 02:00 EST", nrep, "2026-11-01T07:00:00Z", False, None)
nwork = policy(schedule=sched(NY, [win(WORKDAYS, "09:00", "17:00")]))
dst("New York: FRI 6 Mar 09:00 EST = 14:00 UTC", nwork, "2026-03-06T14:00:00Z", True, "schedule.windows[0]")
dst("New York: MON 9 Mar 09:00 EDT = 13:00 UTC", nwork, "2026-03-09T13:00:00Z", True, "schedule.windows[0]")
dst("New York: MON 9 Mar 12:59:59 UTC = 08:59:59 EDT", nwork, "2026-03-09T12:59:59Z", False, None)
dst("New York: FRI 30 Oct 16:59:59 EDT = 20:59:59 UTC", nwork, "2026-10-30T20:59:59Z", True, "schedule.windows[0]")
dst("New York: MON 2 Nov 16:59:59 EST = 21:59:59 UTC", nwork, "2026-11-02T21:59:59Z", True, "schedule.windows[0]")
dst("New York: MON 2 Nov 22:00 UTC = 17:00 EST", nwork, "2026-11-02T22:00:00Z", False, None)
dst("New York: MON 2 Nov 13:30 UTC = 08:30 EST", nwork, "2026-11-02T13:30:00Z", False, None)
nclub = policy(schedule=sched(NY, [win("SAT", "22:00", "04:00")]), allow=[{"groupId": "9", "minRank": 50}])
case("New York fall night: SUN 01:30 EST, second time, ranked member", nclub, "2026-11-01T06:30:00Z", G, "ALLOWLIST", "allow[0]", attrs=attrs({"9": 50}))
case("New York fall night: SUN 03:59:59 EST, rank too low", nclub, "2026-11-01T08:59:59Z", D, "NOT_ON_ALLOWLIST", "allow", attrs=attrs({"9": 49}))
case("New York fall night: SUN 04:00 EST", nclub, "2026-11-01T09:00:00Z", D, "OUTSIDE_SCHEDULE", "schedule", attrs=attrs({"9": 255}))
case("New York spring night: SUN 03:30 EDT", nclub, "2026-03-08T07:30:00Z", G, "ALLOWLIST", "allow[0]", attrs=attrs({"9": 255}))

# ---------------------------------------------------------------------------
# 10b. A half-hour daylight-saving shift: Australia/Lord_Howe.
#     2026-04-05 02:00 (+11) becomes 01:30 (+10:30) at 15:00 UTC on the 4th.
#     2026-10-04 02:00 (+10:30) becomes 02:30 (+11) at 15:30 UTC on the 3rd.
# ---------------------------------------------------------------------------
LH = "Australia/Lord_Howe"
lrep = policy(schedule=sched(LH, [win("SUN", "01:30", "02:00")]))
dst("Lord Howe fall: 01:29:59 (+11)", lrep, "2026-04-04T14:29:59Z", False, None)
dst("Lord Howe fall: first 01:30 (+11)", lrep, "2026-04-04T14:30:00Z", True, "schedule.windows[0]")
dst("Lord Howe fall: first 01:59:59 (+11)", lrep, "2026-04-04T14:59:59Z", True, "schedule.windows[0]")
dst("Lord Howe fall: second 01:30 (+10:30)", lrep, "2026-04-04T15:00:00Z", True, "schedule.windows[0]")
dst("Lord Howe fall: second 01:59:59 (+10:30)", lrep, "2026-04-04T15:29:59Z", True, "schedule.windows[0]")
dst("Lord Howe fall: 02:00 (+10:30)", lrep, "2026-04-04T15:30:00Z", False, None)
lskip = policy(schedule=sched(LH, [win("SUN", "02:00", "02:30"), win("SUN", "02:15", "03:00")]))
dst("Lord Howe spring: 01:59:59 (+10:30)", lskip, "2026-10-03T15:29:59Z", False, None)
dst("Lord Howe spring: 02:30 (+11), the first window was empty, the second opens", lskip, "2026-10-03T15:30:00Z", True, "schedule.windows[1]")
dst("Lord Howe spring: 02:59:59 (+11)", lskip, "2026-10-03T15:59:59Z", True, "schedule.windows[1]")
dst("Lord Howe spring: 03:00 (+11)", lskip, "2026-10-03T16:00:00Z", False, None)

# ---------------------------------------------------------------------------
# 11. Instants given with other offsets are the same instant.
# ---------------------------------------------------------------------------
for at, ok in [("2026-11-25T09:00:00+01:00", True), ("2026-11-25T08:00:00Z", True), ("2026-11-25T03:00:00-05:00", True),
               ("2026-11-25T17:59:59+10:00", False), ("2026-11-25T19:00:00+11:00", True), ("2026-11-25T07:59:59.999Z", False)]:
    case(f"office hours at {at}", policy(schedule=OFFICE(B)), at, G if ok else D, "SCHEDULE" if ok else "OUTSIDE_SCHEDULE",
         "schedule.windows[0]" if ok else "schedule")

# ---------------------------------------------------------------------------
# 12. The demo policies.
# ---------------------------------------------------------------------------
hq = policy(schedule=sched(B, [win(WORKDAYS, "08:00", "19:00")], [{"date": "2026-12-24", "closed": True}]),
            allow=[{"groupId": "100", "minRank": 10}], deny=[{"platformUserId": "666", "until": "2026-12-01T00:00:00Z"}])
case("HQ staff on a weekday", hq, local(B, "2026-11-24 08:00:00", "TUE"), G, "ALLOWLIST", "allow[0]", attrs=attrs({"100": 10}))
case("HQ guest on a weekday", hq, local(B, "2026-11-24 08:00:00", "TUE"), D, "NOT_ON_ALLOWLIST", "allow", attrs=attrs({"100": 9}))
case("HQ staff on Sunday", hq, local(B, "2026-11-29 12:00:00", "SUN"), D, "OUTSIDE_SCHEDULE", "schedule", attrs=attrs({"100": 200}))
case("HQ staff on Christmas Eve", hq, local(B, "2026-12-24 12:00:00", "THU"), D, "OUTSIDE_SCHEDULE", "schedule.exceptions[0]", attrs=attrs({"100": 200}))
case("HQ suspended staff", hq, local(B, "2026-11-24 12:00:00", "TUE"), D, "BLOCKED", "deny[0]", user="666", attrs=attrs({"100": 200}))
case("HQ suspension over", hq, local(B, "2026-12-01 12:00:00", "TUE"), G, "ALLOWLIST", "allow[0]", user="666", attrs=attrs({"100": 200}))
vip = policy(allow=[{"gamepassId": "4242"}, {"platformUserId": "1"}])
case("VIP with the pass", vip, AT, G, "ALLOWLIST", "allow[0]", attrs=attrs(gamepasses=["4242"]))
case("VIP owner without the pass", vip, AT, G, "ALLOWLIST", "allow[1]", user="1")
case("VIP without the pass", vip, AT, D, "NOT_ON_ALLOWLIST", "allow")

# ---------------------------------------------------------------------------
# 13. Lockdowns and grants. Precedence, strongest first: lockdown; a remote
# unlock; LOCKED; a deny rule; a grant of the player; OPEN; the schedule;
# the allow rules. Every pair that involves a lockdown or a grant, then the
# edges of their windows: from is inclusive, until exclusive, a lockdown
# without until runs until released (the caller then passes its release
# as until), and a revoked grant ends at its revocation (likewise).
# ---------------------------------------------------------------------------
LD = [{"from": "2026-11-25T09:00:00Z"}]                       # running, no end
def gr(frm="2026-11-25T00:00:00Z", until="2026-11-26T00:00:00Z", user="42"):
    return {"platformUserId": user, "from": frm, "until": until}
GR = [gr()]
U_ALL = [ul("UNIVERSE"), ul("SERVER", serverJobId="job-a"), ul("PLAYER", platformUserId="42")]
in_sched = policy(schedule=OFFICE(B), allow=allow_user)
# Lockdown over everything weaker.
case("lockdown wins over a universe unlock", policy(), AT, D, "LOCKDOWN", "lockdown", lockdowns=LD, unlocks=[ul("UNIVERSE")])
case("lockdown wins over a server unlock", policy(), AT, D, "LOCKDOWN", "lockdown", lockdowns=LD, unlocks=[ul("SERVER", serverJobId="job-a")])
case("lockdown wins over a player unlock", policy(), AT, D, "LOCKDOWN", "lockdown", lockdowns=LD, unlocks=[ul("PLAYER", platformUserId="42")])
case("lockdown wins over locked", policy("LOCKED"), AT, D, "LOCKDOWN", "lockdown", lockdowns=LD)
case("lockdown wins over a deny rule", policy(deny=[{"platformUserId": "42"}]), AT, D, "LOCKDOWN", "lockdown", lockdowns=LD)
case("lockdown wins over a grant", policy(), AT, D, "LOCKDOWN", "lockdown", lockdowns=LD, grants=GR)
case("lockdown wins over open", policy("OPEN"), AT, D, "LOCKDOWN", "lockdown", lockdowns=LD)
case("lockdown wins over open with fail mode open", policy("OPEN", fail="OPEN"), AT, D, "LOCKDOWN", "lockdown", lockdowns=LD)
case("lockdown wins outside the schedule", in_sched, wed20, D, "LOCKDOWN", "lockdown", lockdowns=LD)
case("lockdown wins over the allow list", in_sched, wed10, D, "LOCKDOWN", "lockdown", lockdowns=LD)
case("lockdown wins over an empty allow list in schedule", policy(schedule=OFFICE(B)), wed10, D, "LOCKDOWN", "lockdown", lockdowns=LD)
case("lockdown wins over not on the allow list", policy(allow=[{"platformUserId": "7"}]), AT, D, "LOCKDOWN", "lockdown", lockdowns=LD)
case("lockdown wins over everything at once", policy("OPEN", allow=allow_user), AT, D, "LOCKDOWN", "lockdown",
     lockdowns=LD, unlocks=U_ALL, grants=GR)
# A grant under what is stronger.
case("universe unlock wins over a grant", policy(), AT, G, "REMOTE_UNLOCK", "remoteUnlock", unlocks=[ul("UNIVERSE")], grants=GR)
case("player unlock wins over a grant", policy("LOCKED"), AT, G, "REMOTE_UNLOCK", "remoteUnlock", unlocks=[ul("PLAYER", platformUserId="42")], grants=GR)
case("locked wins over a grant", policy("LOCKED"), AT, D, "ACCESS_POINT_DISABLED", "mode", grants=GR)
case("a deny rule wins over a grant", policy(deny=[{"platformUserId": "42"}]), AT, D, "BLOCKED", "deny[0]", grants=GR)
case("an expired deny rule lets the grant pass", policy(deny=[{"platformUserId": "42", "until": "2026-11-25T09:00:00Z"}], allow=[{"platformUserId": "7"}]),
     AT, G, "GRANT", "grant", grants=GR)
# A grant over what is weaker.
case("a grant wins over open", policy("OPEN"), AT, G, "GRANT", "grant", grants=GR)
case("a grant wins outside the schedule", in_sched, wed20, G, "GRANT", "grant", grants=[gr("2026-11-25T00:00:00+01:00", "2026-11-26T00:00:00+01:00")])
case("a grant wins outside every window of a schedule with none", policy(schedule=sched(B, [])), wed10, G, "GRANT", "grant",
     grants=[gr("2026-11-25T00:00:00+01:00", "2026-11-26T00:00:00+01:00")])
case("a grant wins on a closed exception day", policy(schedule=sched(B, [win(WORKDAYS, "09:00", "17:30")], [{"date": "2026-11-25", "closed": True}])),
     wed10, G, "GRANT", "grant", grants=[gr("2026-11-25T00:00:00+01:00", "2026-11-26T00:00:00+01:00")])
case("a grant wins over a matching allow rule", in_sched, wed10, G, "GRANT", "grant", grants=[gr("2026-11-25T00:00:00+01:00", "2026-11-26T00:00:00+01:00")])
case("a grant wins over an empty allow list", policy(), AT, G, "GRANT", "grant", grants=GR)
case("a grant lets in a player not on the allow list", policy(allow=[{"platformUserId": "7"}]), AT, G, "GRANT", "grant", grants=GR)
# Only the player's grants count.
case("another player's grant does not apply", policy(allow=[{"platformUserId": "7"}]), AT, D, "NOT_ON_ALLOWLIST", "allow", grants=[gr(user="43")])
case("one of several grants is the player's", policy(allow=[{"platformUserId": "7"}]), AT, G, "GRANT", "grant",
     grants=[gr(user="43"), gr("2026-11-20T00:00:00Z", "2026-11-21T00:00:00Z"), gr()])
case("the player's grants all ended", policy(allow=[{"platformUserId": "7"}]), AT, D, "NOT_ON_ALLOWLIST", "allow",
     grants=[gr("2026-11-20T00:00:00Z", "2026-11-21T00:00:00Z"), gr("2026-11-24T00:00:00Z", AT)])
case("no grants at all", policy(allow=[{"platformUserId": "7"}]), AT, D, "NOT_ON_ALLOWLIST", "allow", grants=[])
# Window edges of a grant: from inclusive, until exclusive.
NOPE = policy(allow=[{"platformUserId": "7"}])
case("grant starting exactly at the instant", NOPE, AT, G, "GRANT", "grant", grants=[gr(AT, "2026-11-25T11:00:00Z")])
case("grant starting a millisecond after the instant", NOPE, AT, D, "NOT_ON_ALLOWLIST", "allow", grants=[gr("2026-11-25T10:00:00.001Z", "2026-11-25T11:00:00Z")])
case("grant ending exactly at the instant has ended", NOPE, AT, D, "NOT_ON_ALLOWLIST", "allow", grants=[gr("2026-11-25T09:00:00Z", AT)])
case("grant ending a millisecond after the instant", NOPE, AT, G, "GRANT", "grant", grants=[gr("2026-11-25T09:00:00Z", "2026-11-25T10:00:00.001Z")])
case("grant given with offsets, running", NOPE, AT, G, "GRANT", "grant", grants=[gr("2026-11-25T10:59:59+01:00", "2026-11-25T06:00:01-04:00")])
case("grant given with offsets, ended at the instant", NOPE, AT, D, "NOT_ON_ALLOWLIST", "allow", grants=[gr("2026-11-25T09:00:00+01:00", "2026-11-25T11:00:00+01:00")])
case("a grant of 366 days, on its last second", NOPE, "2027-11-25T23:59:59Z", G, "GRANT", "grant", grants=[gr("2026-11-25T00:00:00Z", "2027-11-26T00:00:00Z")])
# Window edges of a lockdown.
case("lockdown starting exactly at the instant", policy("OPEN"), AT, D, "LOCKDOWN", "lockdown", lockdowns=[{"from": AT}])
case("lockdown starting a millisecond after the instant", policy("OPEN"), AT, G, "OPEN", "mode", lockdowns=[{"from": "2026-11-25T10:00:00.001Z"}])
case("lockdown ending exactly at the instant has ended", policy("OPEN"), AT, G, "OPEN", "mode", lockdowns=[{"from": "2026-11-25T09:00:00Z", "until": AT}])
case("lockdown ending a millisecond after the instant", policy("OPEN"), AT, D, "LOCKDOWN", "lockdown",
     lockdowns=[{"from": "2026-11-25T09:00:00Z", "until": "2026-11-25T10:00:00.001Z"}])
case("lockdown without a start", policy("OPEN"), AT, D, "LOCKDOWN", "lockdown", lockdowns=[{}])
case("lockdown without an end runs years later", policy("OPEN"), "2030-06-01T00:00:00Z", D, "LOCKDOWN", "lockdown", lockdowns=LD)
case("lockdown released: the decision before its release", policy("OPEN"), AT, D, "LOCKDOWN", "lockdown",
     lockdowns=[{"from": "2026-11-25T09:00:00Z", "until": "2026-11-25T10:30:00Z"}])
case("lockdown released: the decision after its release", policy("OPEN"), "2026-11-25T10:30:00Z", G, "OPEN", "mode",
     lockdowns=[{"from": "2026-11-25T09:00:00Z", "until": "2026-11-25T10:30:00Z"}])
case("one running lockdown among ended ones", policy("OPEN"), AT, D, "LOCKDOWN", "lockdown",
     lockdowns=[{"from": "2026-11-24T09:00:00Z", "until": "2026-11-24T10:00:00Z"}, {"from": "2026-11-25T09:59:00Z"}])
case("every lockdown ended, then the grant", NOPE, AT, G, "GRANT", "grant",
     lockdowns=[{"from": "2026-11-24T09:00:00Z", "until": "2026-11-24T10:00:00Z"}, {"until": AT}], grants=GR)
case("lockdown ended, the unlock issued as it ended runs", policy("LOCKED"), AT, G, "REMOTE_UNLOCK", "remoteUnlock",
     lockdowns=[{"from": "2026-11-25T09:00:00Z", "until": "2026-11-25T09:59:59Z"}], unlocks=[ul("UNIVERSE", **{"from": "2026-11-25T09:59:59Z"})])


if __name__ == "__main__":
    assert len(CASES) >= 250, len(CASES)
    # One case a line: a diff shows which cases changed.
    sys.stdout.write('{"version": 1, "cases": [\n')
    sys.stdout.write(",\n".join(json.dumps(c, separators=(",", ":")) for c in CASES))
    sys.stdout.write("\n]}\n")
    print(f"{len(CASES)} cases", file=sys.stderr)
