// The console's only script: poll fragments and confirm destructive forms. No build step.
"use strict";
function poll(el) {
  const url = el.dataset.poll;
  if (!url) return;
  setTimeout(async () => {
    try {
      const resp = await fetch(url, {headers: {"X-Console-Fragment": "1"}, credentials: "same-origin"});
      const html = await resp.text();
      const box = document.createElement("div");
      box.innerHTML = html.trim();
      const next = box.firstElementChild;
      if (next) { el.replaceWith(next); poll(next); return; }
    } catch (e) { /* a passing network error: try again */ }
    poll(el);
  }, 1000);
}
document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll("[data-poll]").forEach(poll);
  document.querySelectorAll("form[data-confirm]").forEach((form) => {
    form.addEventListener("submit", (ev) => { if (!confirm(form.dataset.confirm)) ev.preventDefault(); });
  });
});
