// The server writes every time in the zone the viewer chose. When the
// choice is "this browser's zone", the server learns that zone from a
// cookie this script sets; when it differs from the zone the page was
// written in, the page is loaded once more, so the table, the date
// filters and the chart all use it. Without script the page stays in UTC
// and says so.
const root = document.documentElement;
if (root.dataset.zoneChoice === "browser") {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (zone && zone !== root.dataset.zone) {
    document.cookie = `gatehouse_browser_zone=${zone}; path=/dashboard; max-age=34560000; samesite=lax`;
    // Once per zone: a zone the server does not know must not reload forever.
    if (sessionStorage.getItem("gatehouse-zone-reload") !== zone) {
      sessionStorage.setItem("gatehouse-zone-reload", zone);
      location.reload();
    }
  }
}
// The zone selector applies at once; without script its button does.
document.querySelectorAll("select[data-autosubmit]").forEach((el) => {
  el.addEventListener("change", () => el.form.submit());
  el.form.querySelector("button")?.classList.add("sr-only");
});
