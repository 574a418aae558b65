// The a2g console's script (first version): shows the snapshot numbers and
// the latest decisions from the server-sent events of /v1/console/events.
// SPDX-License-Identifier: LGPL-2.1-or-later
"use strict";

function text(id, value) {
  document.getElementById(id).textContent = value;
}

const events = new EventSource("/v1/console/events");
events.addEventListener("open", () => text("status", "live"));
events.addEventListener("error", () => text("status", "disconnected"));
events.addEventListener("snapshot", (event) => {
  const s = JSON.parse(event.data);
  const d = s.decisions;
  text("sessions", String(s.sessions));
  text("decisions", `${d.model} / ${d.cache} / ${d.memory} / ${d.forced}`);
  text("hit-rate", `${Math.round(s.cache.hit_rate * 100)} %`);
  text("fallbacks", Object.entries(s.fallbacks).map(([k, v]) => `${k} ${v}`).join(", "));
  text("tokens", `${s.tokens.input} / ${s.tokens.output}`);
});
events.addEventListener("decision", (event) => {
  const d = JSON.parse(event.data);
  const item = document.createElement("li");
  item.textContent = d.action === "FALLBACK"
    ? `${d.entity}: FALLBACK ${d.code}`
    : `${d.entity}: ${d.action} (${d.source}, ${d.confidence}) ${d.reason || ""}`;
  const list = document.getElementById("latest");
  list.prepend(item);
  while (list.children.length > 20) list.lastChild.remove();
});
