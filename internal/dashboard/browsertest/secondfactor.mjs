// Drives the dashboard's two-factor sign-in in headless chromium, as a
// user with an authenticator app would: sign in with a password alone,
// open the Account page from the header, set up two-factor
// authentication (the QR code shown, the secret read from its field and
// its codes computed here, RFC 6238), save the recovery codes, and see
// that another browser signed in before is signed out; sign out, sign in
// again: the password now asks for a code, a wrong one is refused and
// signs nobody in, the code of the next step signs in, the same code
// again is refused; a recovery code signs in once, and is refused the
// second time. A screenshot of each page goes to $SHOTS. The Go test
// TestBrowserSecondFactor starts the server and runs this.
//
//   BASE, EMAIL, PASSWORD   the server and a dashboard user without a second factor
//   CHROMIUM                the browser binary
//   SHOTS                   where screenshots go
import { chromium } from "playwright-core";
import { createHmac } from "node:crypto";

const { BASE, EMAIL, PASSWORD, CHROMIUM, SHOTS } = process.env;
const steps = [];
const check = (ok, what) => {
  if (!ok) throw new Error(what);
};

// totp is the 6-digit code of the base32 secret (RFC 4648, no padding)
// at time step step: HOTP (RFC 4226) with HMAC-SHA1 of the step as 8
// bytes big-endian, dynamically truncated.
const totp = (secret, step) => {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  const key = [];
  let bits = 0, value = 0;
  for (const c of secret.toUpperCase().replace(/=+$/, "")) {
    const i = alphabet.indexOf(c);
    check(i >= 0, `not base32: ${secret}`);
    value = ((value << 5) | i) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      key.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(step));
  const mac = createHmac("sha1", Buffer.from(key)).update(counter).digest();
  const n = (mac.readUInt32BE(mac[mac.length - 1] & 0xf) & 0x7fffffff) % 1000000;
  return String(n).padStart(6, "0");
};
// RFC 6238's SHA-1 vector at T = 59 s, to six digits.
check(totp("GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ", 1) === "287082", "totp() does not compute RFC 6238's vector");
const stepNow = () => Math.floor(Date.now() / 30000);

const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--no-first-run"],
});
try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const shot = async (name) => {
    await page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });
    steps.push(name);
  };
  // signIn gives the email and password on p's sign-in form; with a second
  // factor the code step follows.
  const signIn = async (p, second) => {
    await p.goto(`${BASE}/dashboard/login`);
    await p.locator("#email").fill(EMAIL);
    await p.locator("#password").fill(PASSWORD);
    await p.getByRole("button", { name: "Sign in" }).click();
    if (second) await p.getByRole("heading", { name: "Two-factor code" }).waitFor();
    else await p.waitForURL(/\/dashboard\/events$/);
  };
  // submit clicks the button and returns the status of the POST to path.
  const submit = async (button, path) => {
    const [res] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === "POST" && new URL(r.url()).pathname === path),
      page.getByRole("button", { name: button }).click(),
    ]);
    await page.waitForLoadState();
    return res.status();
  };
  const giveCode = (code) => page.locator("#code").fill(code).then(() => submit("Sign in", "/dashboard/login/code"));
  const signOut = async () => {
    await page.getByRole("button", { name: "Sign out", exact: true }).click();
    await page.waitForURL(/\/dashboard\/login$/);
  };
  const signedOut = async () => {
    await page.goto(`${BASE}/dashboard/events`);
    return page.url().includes("/dashboard/login");
  };
  const refused = async (status, what) => {
    check(status === 401, `${what}: status ${status}`);
    const alert = await page.getByRole("alert").innerText();
    check(/^That code does not match, or was used already/.test(alert), `${what}: ${alert}`);
  };

  // Another browser, signed in before the enrolment, which ends it.
  const other = await (await browser.newContext()).newPage();
  await signIn(other, false);

  // Signed in with the password alone; the header leads to the account.
  await signIn(page, false);
  await page.locator("a.who").click();
  await page.waitForURL(/\/dashboard\/account$/);
  const factor = page.locator("section", { has: page.getByRole("heading", { name: "Two-factor authentication" }) });
  check(/Off\./.test(await factor.innerText()), "the account does not say the second factor is off");
  await page.getByRole("link", { name: "Set up two-factor authentication" }).click();
  await page.waitForURL(/\/dashboard\/account\/second-factor$/);

  // The QR code, and the secret as text: its code now turns it on.
  const qr = page.locator("img[src^='data:image/png;base64,']");
  check(await qr.evaluate((img) => img.complete && img.naturalWidth > 0), "the QR code is not an image");
  const secret = await page.locator("#totp-secret").getAttribute("data-secret");
  check(/^[A-Z2-7]{16,}$/.test(secret), `the secret: ${secret}`);
  await shot("01-enrol");
  const enrolStep = stepNow();
  await page.locator("#code").fill(totp(secret, enrolStep));
  check((await submit("Turn on", "/dashboard/account/second-factor")) === 201, "the enrolment was not created");
  await page.getByRole("heading", { name: "Two-factor authentication is on" }).waitFor();
  const recovery = (await page.locator("#recovery-codes").inputValue()).split("\n").filter((c) => c !== "");
  check(recovery.length === 10 && recovery.every((c) => /^[0-9a-z]{5}-[0-9a-z]{5}$/.test(c)), `the recovery codes: ${recovery}`);
  await shot("02-recovery-codes");
  await page.getByRole("link", { name: "I saved them: continue" }).click();
  await page.waitForURL(/\/dashboard\/events$/); // this browser's new session
  await other.goto(`${BASE}/dashboard/events`);
  check(other.url().includes("/dashboard/login"), `the other browser is still signed in: ${other.url()}`);
  await page.goto(`${BASE}/dashboard/account`);
  const on = await factor.innerText();
  check(/\bOn\b since/.test(on) && /10 of your recovery codes are left/.test(on), `the account: ${on}`);
  check(await page.getByRole("button", { name: "Remove the second factor" }).isVisible(), "no removal offered");
  await shot("03-account-on");

  // The password alone now asks for a code; a wrong one signs nobody in.
  await signOut();
  await signIn(page, true);
  await shot("04-code-step");
  const wrong = ["000000", "111111", "222222"].find((c) => ![-1, 0, 1].some((d) => totp(secret, stepNow() + d) === c));
  await refused(await giveCode(wrong), "a wrong code");
  await shot("05-code-refused");
  check(await signedOut(), "a wrong code signed in");

  // A code is good once per step, and the enrolment used its step: the
  // code of a later one signs in.
  await signIn(page, true);
  const waited = Math.max(0, (enrolStep + 1) * 30000 - Date.now() + 100);
  await new Promise((r) => setTimeout(r, waited));
  const code = totp(secret, stepNow());
  check((await giveCode(code)) === 303, "the right code is not accepted");
  await page.waitForURL(/\/dashboard\/events$/);
  check(await page.getByRole("button", { name: "Sign out", exact: true }).isVisible(), "not signed in with the right code");

  // The same code again, in a fresh sign-in, is refused.
  await signOut();
  await signIn(page, true);
  await refused(await giveCode(code), "the code used already");
  await shot("06-code-reused");
  check(await signedOut(), "a used code signed in");

  // A recovery code signs in once.
  await signIn(page, true);
  check((await giveCode(recovery[3])) === 303, "the recovery code is not accepted");
  await page.waitForURL(/\/dashboard\/events$/);
  await page.goto(`${BASE}/dashboard/account`);
  check(/9 of your recovery codes are left/.test(await factor.innerText()), "the recovery code is not counted as used");
  await signOut();
  await signIn(page, true);
  await refused(await giveCode(recovery[3]), "the recovery code used already");
  await shot("07-recovery-reused");
  check(await signedOut(), "a used recovery code signed in");
  console.log(JSON.stringify({ ok: true, steps, waitedForTheNextStep: `${(waited / 1000).toFixed(1)} s` }));
} catch (err) {
  // The page as it was when the round failed, to see why.
  await browser.contexts()[0]?.pages()[0]?.screenshot({ path: `${SHOTS}/failed.png`, fullPage: true }).catch(() => {});
  console.log(JSON.stringify({ ok: false, steps, error: String(err) }));
  process.exitCode = 1;
} finally {
  await browser.close();
}
