// A studio's integration, written against the client that openapi-typescript
// and openapi-fetch generate from Gatehouse's OpenAPI document. The Go test
// clients/typescript_test.go compiles it and runs it against a live server:
//
//   GATEHOUSE_URL, GATEHOUSE_KEY    the server and a key with events:read
//   GATEHOUSE_DENIED                how many denied events the server holds
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

console.log(JSON.stringify({ pages, events: seen.size, badQueryIssues: Object.keys(issues), rateLimited: limited, failures }));
process.exitCode = failures.length === 0 ? 0 : 1;
