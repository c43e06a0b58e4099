// Shows every <time datetime> in the browser's own zone; without script
// the page shows UTC, which is also correct.
document.querySelectorAll("time[datetime]").forEach((el) => {
  const t = new Date(el.getAttribute("datetime"));
  if (!isNaN(t)) {
    el.title = el.getAttribute("datetime");
    el.textContent = t.toLocaleString(undefined, {
      year: "numeric", month: "short", day: "2-digit",
      hour: "2-digit", minute: "2-digit", second: "2-digit",
    });
  }
});
