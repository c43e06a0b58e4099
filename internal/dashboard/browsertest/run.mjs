// Drives the dashboard as an operator would, in headless chromium:
// sign in, filter and search the Event Log, page older and newer, open an
// event, export CSV, create an API key and use it, revoke it and see the
// API refuse it, visit Locations, sign out. A screenshot of each page goes
// to $SHOTS. The Go test TestBrowser starts the server and runs this.
//
//   BASE, EMAIL, PASSWORD   the server and a dashboard user
//   CHROMIUM                the browser binary
//   SHOTS                   where screenshots go
import { chromium } from "playwright-core";
import { readFile } from "node:fs/promises";

const { BASE, EMAIL, PASSWORD, CHROMIUM, SHOTS } = process.env;
const steps = [];
const fail = (what) => {
  throw new Error(what);
};
const check = (ok, what) => {
  if (!ok) fail(what);
};

const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--no-first-run"],
});
try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  const page = await context.newPage();
  const shot = async (name) => {
    await page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });
    steps.push(name);
  };
  const api = async (key) =>
    (await fetch(`${BASE}/api/consumer/v1/events`, { headers: { Authorization: `Bearer ${key}` } })).status;

  // Signed out, the Event Log sends us to the sign-in form.
  await page.goto(`${BASE}/dashboard/events`);
  check(page.url().includes("/dashboard/login"), `not sent to sign in: ${page.url()}`);
  await shot("01-sign-in");
  await page.getByLabel("Email").fill(EMAIL);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(/\/dashboard\/events/);
  check((await page.locator("table.events tbody tr").count()) > 1, "the Event Log is empty");
  await shot("02-event-log");

  // Filter: denied only.
  await page.getByLabel("Outcome").selectOption("denied");
  await page.getByRole("button", { name: "Apply" }).click();
  await page.waitForURL(/allowed=denied/);
  const outcomes = await page.locator("table.events tbody td:nth-child(3)").allInnerTexts();
  check(outcomes.length > 0 && outcomes.every((o) => o.trim() === "denied"), `filter: ${outcomes}`);
  await shot("03-filtered");

  // Search.
  await page.getByLabel("Search").fill("vip");
  await page.getByRole("button", { name: "Apply" }).click();
  await page.waitForURL(/q=vip/);
  const places = await page.locator("table.events tbody td:nth-child(6)").allInnerTexts();
  check(places.length > 0 && places.every((p) => /vip/i.test(p)), `search: ${places}`);
  await shot("04-search");

  // Page older, then newer, back to the same first row.
  await page.goto(`${BASE}/dashboard/events?limit=25`);
  const firstRow = await page.locator("table.events tbody tr").first().innerText();
  await page.getByRole("link", { name: "Older ›" }).click();
  await page.waitForURL(/cursor=/);
  check((await page.locator("table.events tbody tr").first().innerText()) !== firstRow, "Older shows the same page");
  await shot("05-older");
  await page.getByRole("link", { name: "‹ Newer" }).click();
  await page.waitForLoadState();
  check((await page.locator("table.events tbody tr").first().innerText()) === firstRow, "Newer does not come back");

  // An event's detail.
  await page.locator("table.events tbody tr").first().locator("a").first().click();
  await page.waitForURL(/\/dashboard\/events\/[0-9a-f-]{36}$/);
  check(await page.getByText("Event id").isVisible(), "no detail");
  await shot("06-event-detail");

  // Export the filter as CSV.
  await page.goto(`${BASE}/dashboard/events?allowed=denied`);
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("link", { name: "CSV" }).click()]);
  const csv = await readFile(await download.path(), "utf8");
  const lines = csv.trim().split("\n");
  check(lines[0].startsWith("id,occurredAt,receivedAt,type,allowed"), `csv header: ${lines[0]}`);
  check(lines.slice(1).every((l) => l.split(",")[4] === "denied"), "the CSV is not the filter");

  // Create a key, use it, revoke it.
  await page.goto(`${BASE}/dashboard/keys`);
  await shot("07-keys");
  await page.getByLabel("Name").fill("browser-test");
  await page.getByRole("button", { name: "Create key" }).click();
  const key = await page.locator("#new-key").inputValue();
  check(/^gk_[0-9A-Za-z]{38}$/.test(key), `new key: ${key}`);
  await shot("08-key-created");
  check((await api(key)) === 200, "the new key does not work against the API");
  await page.goto(`${BASE}/dashboard/keys`);
  check(!(await page.content()).includes(key), "the raw key is shown again");
  await page.getByRole("row", { name: /browser-test/ }).getByRole("link", { name: "Revoke…" }).click();
  await shot("09-revoke-confirm");
  await page.getByRole("button", { name: "Revoke the key" }).click();
  await page.waitForURL(/\/dashboard\/keys$/);
  await new Promise((r) => setTimeout(r, 700)); // the API caches a key for 500 ms
  check((await api(key)) === 401, "the revoked key still works");

  // Locations.
  await page.goto(`${BASE}/dashboard/locations`);
  await shot("10-locations");

  // Sign out.
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.waitForURL(/\/dashboard\/login/);
  await page.goto(`${BASE}/dashboard/events`);
  check(page.url().includes("/dashboard/login"), "still signed in after signing out");
  console.log(JSON.stringify({ ok: true, steps }));
} catch (err) {
  console.log(JSON.stringify({ ok: false, steps, error: String(err) }));
  process.exitCode = 1;
} finally {
  await browser.close();
}
