// The copy button next to a new API key or secret; without script, select and copy.
document.querySelectorAll("button[data-copy]").forEach((button) => {
  button.addEventListener("click", async () => {
    const field = document.getElementById(button.dataset.copy);
    field.select();
    try {
      await navigator.clipboard.writeText(field.value);
      button.textContent = "Copied";
    } catch {
      document.execCommand("copy");
      button.textContent = "Copied";
    }
  });
});
