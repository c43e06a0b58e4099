// The copy button next to a new API key or secret (data-copy names the
// field), or next to an id (data-copy-text holds it); without script,
// select and copy.
document.querySelectorAll("button[data-copy], button[data-copy-text]").forEach((button) => {
  button.addEventListener("click", async () => {
    const field = button.dataset.copy ? document.getElementById(button.dataset.copy) : null;
    const text = field ? field.value : button.dataset.copyText;
    field?.select();
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      if (field) document.execCommand("copy");
    }
    button.textContent = "Copied";
  });
});
