// A studio's integration, written against the client that openapi-typescript
// and openapi-fetch generate from Gatehouse's OpenAPI document. The Go test
// clients/typescript_test.go compiles it and runs it against a live server:
//
//   GATEHOUSE_URL, GATEHOUSE_KEY    the server and a key with events:read,
//                                   locations:read, locations:write,
//                                   commands:write, server and webhooks:write
//   GATEHOUSE_DENIED                how many denied events the server holds
//   GATEHOUSE_ACCESS_POINT          a door whose location names a universe (42)
//
// It prints one JSON line of what it saw and exits 1 on any surprise.
import createClient from "openapi-fetch";
import type { paths } from "./schema.js";

declare const process: { env: Record<string, string | undefined>; exitCode: number };

const failures: string[] = [];
const expect = (ok: boolean, what: string) => {
  if (!ok) failures.push(what);
};

const client = createClient<paths>({
  baseUrl: process.env.GATEHOUSE_URL,
  headers: { Authorization: `Bearer ${process.env.GATEHOUSE_KEY}` },
});
const denied = Number(process.env.GATEHOUSE_DENIED);

// Authenticate and list with filters.
const first = await client.GET("/api/consumer/v1/events", {
  params: { query: { allowed: "denied", type: ["ACCESS_DENIED"], limit: 7 } },
});
expect(first.response.status === 200, `first page: status ${first.response.status}`);
expect(first.data?.data.length === 7, "first page: 7 events");
expect(first.data?.data.every((e) => e.allowed === "denied" && e.type === "ACCESS_DENIED") ?? false, "first page: only denied attempts");
expect(first.data?.meta.limit === 7, "first page: meta.limit");

// Walk every page with nextCursor.
const seen = new Set<string>();
let cursor: string | undefined;
let pages = 0;
do {
  const page = await client.GET("/api/consumer/v1/events", {
    params: { query: { allowed: "denied", limit: 100, cursor } },
  });
  if (!page.data) {
    failures.push(`page ${pages + 1}: ${page.response.status} ${JSON.stringify(page.error)}`);
    break;
  }
  for (const ev of page.data.data) {
    expect(!seen.has(ev.id), `event ${ev.id} seen twice`);
    seen.add(ev.id);
  }
  pages++;
  cursor = page.data.nextCursor ?? undefined;
} while (cursor);
expect(seen.size === denied, `walked ${seen.size} denied events, want ${denied}`);

// A 400 lists every problem in issues.
const bad = await client.GET("/api/consumer/v1/events", {
  params: { query: { limit: 501, dateFrom: "last tuesday" } },
});
expect(bad.response.status === 400, `bad query: status ${bad.response.status}`);
const issues = bad.error && "issues" in bad.error ? bad.error.issues : {};
expect("limit" in issues && "dateFrom" in issues, `bad query: issues ${JSON.stringify(issues)}`);

// A game server syncs; a SERVER unlock reaches it, and it acknowledges.
const job = "smoke-job-1";
const live = await client.POST("/api/consumer/v1/servers/{serverJobId}/sync", {
  params: { path: { serverJobId: job } },
  body: { universeId: "42", players: ["156"], waitSeconds: 0 },
});
expect(live.response.status === 200 && live.data?.commands.length === 0, `first sync: status ${live.response.status}`);
const issued = await client.POST("/api/consumer/v1/commands", {
  params: { header: { "Idempotency-Key": "smoke-1" } },
  body: { accessPointId: process.env.GATEHOUSE_ACCESS_POINT ?? "", scope: "SERVER", serverJobId: job, durationSeconds: 5 },
});
expect(issued.response.status === 201 && issued.data?.status === "PENDING", `issue: status ${issued.response.status}`);
const commandId = issued.data?.id ?? "";
const replay = await client.POST("/api/consumer/v1/commands", {
  params: { header: { "Idempotency-Key": "smoke-1" } },
  body: { accessPointId: process.env.GATEHOUSE_ACCESS_POINT ?? "", scope: "SERVER", serverJobId: job, durationSeconds: 5 },
});
expect(replay.response.headers.get("Idempotent-Replayed") === "true" && replay.data?.id === commandId, "issue: no replay");
const received = await client.POST("/api/consumer/v1/servers/{serverJobId}/sync", {
  params: { path: { serverJobId: job } },
  body: { universeId: "42", players: ["156"], cursor: live.data?.cursor ?? null, waitSeconds: 5 },
});
expect(received.data?.commands[0]?.id === commandId, "sync: the unlock did not arrive");
await client.POST("/api/consumer/v1/servers/{serverJobId}/sync", {
  params: { path: { serverJobId: job } },
  body: { universeId: "42", cursor: received.data?.cursor ?? null, waitSeconds: 0, acks: [{ commandId, result: "EXECUTED" }] },
});
const shown = await client.GET("/api/consumer/v1/commands/{id}", { params: { path: { id: commandId } } });
expect(shown.data?.status === "EXECUTED" && shown.data?.targets.executed === 1, `command: ${shown.data?.status}`);
const settled = await client.POST("/api/consumer/v1/commands/{id}/cancel", { params: { path: { id: commandId } } });
expect(settled.response.status === 409, `cancel of an executed command: status ${settled.response.status}`);
const listed = await client.GET("/api/consumer/v1/commands", { params: { query: { status: "EXECUTED", limit: 10 } } });
expect(listed.data?.data.length === 1 && listed.data?.nextCursor === null, "list: one EXECUTED command");

// The server asks whether a player passes: the door has no policy, but the
// SERVER unlock it executed is still running (the test's clock stands still).
const decision = await client.POST("/api/consumer/v1/decisions", {
  body: { accessPointId: process.env.GATEHOUSE_ACCESS_POINT ?? "", platformUserId: "156", serverJobId: job, record: true },
});
expect(
  decision.data?.allowed === "granted" && decision.data?.reason === "REMOTE_UNLOCK" && decision.data?.policyVersion === null &&
    typeof decision.data?.eventId === "string",
  `decision: ${decision.response.status} ${JSON.stringify(decision.data ?? decision.error)}`,
);
// It caches its universe's policy set and revalidates it with the ETag.
const set = await client.GET("/api/consumer/v1/policies", { params: { query: { universeId: "42" } } });
const etag = set.response.headers.get("ETag") ?? "";
expect(set.response.status === 200 && etag === `"${set.data?.version}"` && set.data?.accessPoints.length === 1, `policy set: ${set.response.status} ${etag}`);
const unchanged = await client.GET("/api/consumer/v1/policies", {
  params: { query: { universeId: "42" }, header: { "If-None-Match": etag } },
});
expect(unchanged.response.status === 304 && unchanged.response.headers.get("ETag") === etag, `policy set again: ${unchanged.response.status}`);

// Which door denies most: counts from the rollups, with the door's name.
const byDoor = await client.GET("/api/consumer/v1/insights", {
  params: { query: { groupBy: "accessPointId", allowed: "denied", limit: 5 } },
});
const top = byDoor.data?.data[0];
expect(byDoor.response.status === 200, `insights: status ${byDoor.response.status}`);
expect(top?.key === process.env.GATEHOUSE_ACCESS_POINT && top?.denied === denied && top?.granted === 0 && typeof top?.label === "string",
  `insights by door: ${JSON.stringify(byDoor.data?.data)}`);
expect(byDoor.data?.meta.groupBy === "accessPointId" && byDoor.data?.meta.truncated === false, "insights: meta");

// A webhook endpoint replays only from a starting point said out loud, and
// the answer counts what the replay sends.
const hook = await client.POST("/api/consumer/v1/webhooks", {
  body: { url: "https://hooks.example.com/smoke", filters: { type: "ACCESS_DENIED" } },
});
const hookId = hook.data?.id ?? "";
expect(hook.response.status === 201, `webhook: status ${hook.response.status}`);
const unsaid = await client.POST("/api/consumer/v1/webhooks/{id}/replay", { params: { path: { id: hookId } }, body: {} });
const unsaidIssues = unsaid.error && "issues" in unsaid.error ? unsaid.error.issues : {};
expect(unsaid.response.status === 400 && "after" in unsaidIssues, `replay without a starting point: status ${unsaid.response.status}`);
const replayed = await client.POST("/api/consumer/v1/webhooks/{id}/replay", {
  params: { path: { id: hookId } },
  body: { from: "start" },
});
expect(replayed.response.status === 200 && replayed.data?.replayEvents === denied, `replay from the start: ${replayed.data?.replayEvents} events, want ${denied}`);

// An operator archives the door: lists leave it out but with
// archived=true, where it shows with archivedAt; restoring brings it back.
const door = process.env.GATEHOUSE_ACCESS_POINT ?? "";
const archived = await client.POST("/api/consumer/v1/access-points/{id}/archive", { params: { path: { id: door } } });
expect(archived.response.status === 200 && typeof archived.data?.archivedAt === "string", `archive: status ${archived.response.status}`);
const inUse = await client.GET("/api/consumer/v1/locations", {});
expect(inUse.data?.data.every((l) => l.accessPoints.every((ap) => ap.id !== door)) ?? false, "locations: the archived door listed");
const withArchived = await client.GET("/api/consumer/v1/locations", { params: { query: { archived: "true" } } });
expect(withArchived.data?.data.some((l) => l.accessPoints.some((ap) => ap.id === door && ap.archivedAt !== null)) ?? false,
  "locations?archived=true: the archived door missing");
const restored = await client.POST("/api/consumer/v1/access-points/{id}/restore", { params: { path: { id: door } } });
expect(restored.response.status === 200 && restored.data?.archivedAt === null, `restore: ${JSON.stringify(restored.data ?? restored.error)}`);

// Spend the key's burst: the 429 says when to come back.
let limited: { status: number; retryAfter: string | null; code?: string } | undefined;
for (let i = 0; i < 300 && !limited; i++) {
  const r = await client.GET("/api/consumer/v1/locations", { params: { query: { limit: 1 } } });
  if (r.response.status === 429) {
    limited = { status: 429, retryAfter: r.response.headers.get("Retry-After"), code: r.error?.code };
  }
}
expect(limited !== undefined, "no 429 within 300 requests");
expect(Number(limited?.retryAfter) >= 1, `429: Retry-After ${limited?.retryAfter}`);
expect(limited?.code === "rate_limited", `429: code ${limited?.code}`);

console.log(
  JSON.stringify({
    pages,
    events: seen.size,
    badQueryIssues: Object.keys(issues),
    command: shown.data?.status,
    decision: decision.data?.reason,
    policySet: unchanged.response.status,
    replayEvents: replayed.data?.replayEvents,
    archived: archived.data?.archivedAt,
    rateLimited: limited,
    failures,
  }),
);
process.exitCode = failures.length === 0 ? 0 : 1;
