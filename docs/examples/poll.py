#!/usr/bin/env python3
"""Poll Gatehouse for new events, without missing or repeating any.

Standard library only. Prints each new event as one JSON line on stdout.

    GATEHOUSE_KEY=gk_... python3 poll.py --url http://localhost:8080 \
        --state poll-state.json --filter allowed=denied

The key is read from the environment, never from the command line (which
other users of the machine can see). The loop is the one in
docs/guide/pagination.md: each poll re-reads the last --overlap seconds
before the newest event seen, and skips the ids it already handled.
"""

import argparse
import datetime as dt
import json
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request


def parse_time(s):
    return dt.datetime.fromisoformat(s.replace("Z", "+00:00"))


def format_time(t):
    return t.astimezone(dt.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class Gatehouse:
    def __init__(self, url, key, max_retries=5):
        # The server's address or the API's base ($API) alike, as the Go client takes.
        self.base = url.rstrip("/")
        if not self.base.endswith("/api/consumer/v1"):
            self.base += "/api/consumer/v1"
        self.key = key
        self.max_retries = max_retries

    def get(self, path, params):
        url = self.base + path + "?" + urllib.parse.urlencode(params)
        for attempt in range(self.max_retries + 1):
            req = urllib.request.Request(url, headers={
                "Authorization": "Bearer " + self.key,
                "Accept": "application/json",
                "User-Agent": "gatehouse-poll-example",
            })
            try:
                with urllib.request.urlopen(req, timeout=30) as res:
                    return json.load(res)
            except urllib.error.HTTPError as err:
                body = json.loads(err.read() or b"{}")
                retry_after = err.headers.get("Retry-After")
                if err.code in (429, 503) and retry_after and attempt < self.max_retries:
                    time.sleep(int(retry_after))  # the server says when: no guessing
                    continue
                raise ApiError(err.code, body) from None

    def events(self, params):
        """Yields every event of the query, walking all pages. params is a
        list of (name, value) pairs: a filter may repeat (type=…, type=…)."""
        params = list(params) + [("limit", 500)]
        cursor = None
        while True:
            page = self.get("/events", params + ([("cursor", cursor)] if cursor else []))
            yield from page["data"]
            cursor = page["nextCursor"]
            if cursor is None:
                return


class ApiError(Exception):
    def __init__(self, status, body):
        self.status, self.code = status, body.get("code")
        self.issues, self.request_id = body.get("issues", {}), body.get("requestId")
        super().__init__(f"{status} {self.code}: {body.get('error')} {self.issues} (request {self.request_id})")


def load_state(path):
    try:
        with open(path) as f:
            return json.load(f)
    except FileNotFoundError:
        return {"watermark": None, "seen": {}}


def save_state(path, state):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(state, f)
    os.replace(tmp, path)  # atomic: a crash leaves the old state or the new


def poll_once(api, filters, state, overlap):
    """Handles the events not seen yet; returns how many there were."""
    params = list(filters)
    if state["watermark"]:
        params.append(("dateFrom", format_time(parse_time(state["watermark"]) - overlap)))
    new = 0
    for event in api.events(params):
        if event["id"] in state["seen"]:
            continue
        print(json.dumps(event), flush=True)  # handle it: here, print it
        state["seen"][event["id"]] = event["occurredAt"]
        new += 1
        if state["watermark"] is None or parse_time(event["occurredAt"]) > parse_time(state["watermark"]):
            state["watermark"] = event["occurredAt"]
    if state["watermark"]:
        horizon = parse_time(state["watermark"]) - overlap
        state["seen"] = {i: at for i, at in state["seen"].items() if parse_time(at) >= horizon}
    return new


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--url", default=os.environ.get("GATEHOUSE_URL", "http://localhost:8080"),
                   help="the server (http://localhost:8080) or the API's base ($API, ending in /api/consumer/v1)")
    p.add_argument("--state", default="gatehouse-poll.json", help="where the watermark and recent ids are kept")
    p.add_argument("--overlap", type=float, default=300, help="seconds of late arrival to catch (default 300)")
    p.add_argument("--interval", type=float, default=5, help="seconds between polls (default 5)")
    p.add_argument("--filter", action="append", default=[], metavar="NAME=VALUE",
                   help="e.g. allowed=denied; repeat it to give several values (type=ACCESS_DENIED --filter type=REMOTE_UNLOCK)")
    p.add_argument("--once", action="store_true", help="poll once and exit")
    args = p.parse_args()
    key = os.environ.get("GATEHOUSE_KEY")
    if not key:
        sys.exit("set GATEHOUSE_KEY to an API key with the events:read scope")
    api = Gatehouse(args.url, key)
    if any("=" not in f for f in args.filter):
        p.error("--filter takes NAME=VALUE")
    filters = [tuple(f.split("=", 1)) for f in args.filter]  # pairs, not a dict: a name may repeat
    overlap = dt.timedelta(seconds=args.overlap)
    state = load_state(args.state)
    while True:
        try:
            n = poll_once(api, filters, state, overlap)
        except ApiError as err:
            sys.exit(f"gatehouse: {err}")
        save_state(args.state, state)
        print(f"{n} new events", file=sys.stderr)
        if args.once:
            return
        time.sleep(args.interval)


if __name__ == "__main__":
    main()
