/* global document, window, sessionStorage, fetch, setTimeout, clearTimeout */
// The CWS dashboard: read-only views of an org, refreshed by polling /dashboard/api once a second.
"use strict";

const POLL_MS = 1000;
const TOKEN_KEY = "cws.dashboard.token";
const ORG_KEY = "cws.dashboard.org";

const state = { token: sessionStorage.getItem(TOKEN_KEY), session: null, org: null, selected: null };
let timer = null;
let lastOverview = "";
let lastDetail = "";

const $ = (id) => document.getElementById(id);

/** h("td", { class: "x" }, "text", child) → element; strings become text nodes (never HTML). */
function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof window.Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

/** A call to the admin API (snapshot controls): its JSON, or an Error with the server's message. */
async function adminSend(method, path) {
  const res = await fetch(`/admin${path}`, { method, headers: { authorization: `Bearer ${state.token}` } });
  const text = await res.text();
  if (!res.ok) {
    let message = text;
    try {
      message = JSON.parse(text).error || text;
    } catch {
      // not JSON: the text
    }
    throw new Error(message);
  }
  return text ? JSON.parse(text) : undefined;
}

async function get(path, as = "json") {
  const res = await fetch(path, { headers: { authorization: `Bearer ${state.token}` }, cache: "no-store" });
  if (res.status === 401) {
    signOut("The token was refused.");
    throw new Error("unauthorized");
  }
  if (!res.ok) throw new Error(`${res.status} ${await res.text()}`);
  return as === "json" ? res.json() : res.text();
}

// ---- formatting ------------------------------------------------------------------------------

const usd = (n) => (n > 0 && n < 0.001 ? `$${n.toPrecision(2)}` : `$${n < 1 ? n.toFixed(3) : n.toFixed(2)}`);
const badge = (s) => h("span", { class: `badge ${s}`, "data-status": s }, s);
function ago(iso) {
  const s = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.floor(s / 60)}m ago`;
  if (s < 86400) return `${Math.floor(s / 3600)}h ago`;
  return `${Math.floor(s / 86400)}d ago`;
}
const time = (iso) => h("span", { title: iso, class: "nowrap" }, ago(iso));
const mib = (n) => (n >= 1024 ? `${(n / 1024).toFixed(n % 1024 ? 1 : 0)} GiB` : `${n} MiB`);

function table(columns, rows, opts = {}) {
  if (rows.length === 0) return h("div", { class: "empty" }, opts.empty || "None.");
  return h(
    "table",
    {},
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        columns.map((c) => h("th", { class: c.num ? "num" : null }, c.title)),
      ),
    ),
    h(
      "tbody",
      {},
      rows.map((r) =>
        h(
          "tr",
          {
            "data-uid": r.uid,
            "data-name": r.name,
            class: [opts.onClick ? "clickable" : "", state.selected === r.uid ? "selected" : ""]
              .join(" ")
              .trim(),
            onclick: opts.onClick ? () => opts.onClick(r) : null,
          },
          columns.map((c) => h("td", { class: c.num ? "num" : c.cls }, c.cell(r))),
        ),
      ),
    ),
  );
}

function access(w) {
  const s = w.state;
  const links = s.urls.map((u) => h("a", { href: u.url, target: "_blank", rel: "noreferrer" }, u.url));
  if (s.public_ip)
    links.push(h("span", { class: "mono" }, `${s.public_ip}${s.ssh_port ? `:${s.ssh_port}` : ""}`));
  return links.length ? h("div", { class: "links" }, links) : h("span", { class: "muted" }, "—");
}

// ---- views -----------------------------------------------------------------------------------

function renderSummary(o) {
  const all = [...o.workloads, ...o.sandboxes];
  const running = all.filter((w) => w.state.status === "running").length;
  const burning = all
    .filter((w) => ["running", "provisioning", "frozen"].includes(w.state.status))
    .reduce((n, w) => n + w.cost_per_hour, 0);
  const stat = (label, value, sub) =>
    h(
      "div",
      { class: "stat" },
      h("div", { class: "label" }, label),
      h("div", { class: "value" }, value),
      h("div", { class: "sub" }, sub),
    );
  $("summary").replaceChildren(
    stat("Workloads", String(o.workloads.length), `${running} running of ${all.length} incl. sandboxes`),
    stat("Cost per hour", usd(burning), "of what is deployed now"),
    stat(
      "Sandboxes",
      String(o.sandboxes.length),
      `${o.sandboxes.filter((w) => w.state.status === "frozen").length} frozen`,
    ),
    stat("Volumes", String(o.volumes.length), `${mib(o.volumes.reduce((n, v) => n + v.size, 0))} in total`),
    stat("Credits", usd(o.credits), `org ${o.org}`),
    rateLimitStat(o.rate_limit, stat),
  );
}

/** The org's request rate limit and how many requests it refused (429). */
function rateLimitStat(r, stat) {
  const refused = `${r.rate_limited} refused (429)`;
  if (!r.limit) return stat("Rate limit", "off", refused);
  return stat("Rate limit", `${r.limit.rps}/s`, `burst ${r.limit.burst} · ${refused}`);
}

function renderOverview(o) {
  renderSummary(o);
  const count = (id, n) => ($(id).textContent = String(n));
  count("count-workloads", o.workloads.length);
  count("count-sandboxes", o.sandboxes.length);
  count("count-volumes", o.volumes.length);
  count("count-keys", o.ssh_keys.length);
  count("count-templates", o.templates.length);
  count("count-sandbox-templates", o.sandbox_templates.length);
  count("count-inventory", o.inventory.length);
  const select = (w) => {
    state.selected = state.selected === w.uid ? null : w.uid;
    lastOverview = "";
    lastDetail = "";
    refresh();
  };
  // The columns the workload and sandbox tables share.
  const nameColumn = {
    title: "Name",
    cell: (w) => [h("div", {}, h("strong", {}, w.name)), h("div", { class: "mono muted nowrap" }, w.uid)],
  };
  const costAndAccess = [
    { title: "Cost/h", num: true, cell: (w) => usd(w.cost_per_hour) },
    { title: "Access", cell: access },
  ];
  $("workloads").replaceChildren(
    table(
      [
        nameColumn,
        { title: "Type", cell: (w) => h("span", { class: "type" }, w.type) },
        {
          title: "Status",
          cell: (w) => [
            badge(w.state.status),
            w.state.message ? h("div", { class: "muted small" }, w.state.message) : null,
          ],
        },
        { title: "Image", cls: "mono nowrap", cell: (w) => w.image },
        { title: "Resource", cls: "nowrap", cell: (w) => w.resource.name },
        ...costAndAccess,
        { title: "Revision", cls: "mono", cell: (w) => w.revision || "—" },
        { title: "Created", cell: (w) => time(w.created_at) },
      ],
      o.workloads,
      { onClick: select, empty: "No workloads. Run pulumi up and they show up here." },
    ),
  );
  const templateName = new Map(o.sandbox_templates.map((t) => [t.uid, t.name]));
  $("sandboxes").replaceChildren(
    table(
      [
        nameColumn,
        { title: "Status", cell: (w) => badge(w.state.status) },
        { title: "Template", cell: (w) => templateName.get(w.image) || w.image },
        ...costAndAccess,
        { title: "Created", cell: (w) => time(w.created_at) },
      ],
      o.sandboxes,
      { onClick: select },
    ),
  );
  $("volumes").replaceChildren(
    table(
      [
        { title: "Name", cell: (v) => h("strong", {}, v.name) },
        { title: "Size", num: true, cell: (v) => mib(v.size) },
        { title: "Status", cell: (v) => badge(v.state.status) },
        {
          title: "Mounted",
          cell: (v) =>
            v.workload_uid ? h("span", { class: "mono" }, `${v.workload_uid}:${v.mount_path}`) : "—",
        },
        { title: "Cost/h", num: true, cell: (v) => usd(v.cost_per_hour) },
      ],
      o.volumes,
    ),
  );
  $("keys").replaceChildren(
    table(
      [
        { title: "Name", cell: (k) => h("strong", {}, k.name) },
        { title: "Key", cls: "mono", cell: (k) => `${k.public_key_raw.slice(0, 28)}…` },
        { title: "Added", cell: (k) => time(k.created_at) },
      ],
      o.ssh_keys,
    ),
  );
  $("templates").replaceChildren(
    table(
      [
        { title: "Name", cell: (t) => h("strong", {}, t.name) },
        { title: "Type", cell: (t) => h("span", { class: "type" }, t.type) },
        { title: "Visibility", cell: (t) => badge(t.visibility) },
        { title: "Image", cls: "mono", cell: (t) => String(t.manifest.image ?? "—") },
      ],
      o.templates,
    ),
  );
  $("inventory").replaceChildren(
    table(
      [
        {
          title: "Resource",
          cell: (i) => [h("strong", {}, i.name), h("div", { class: "muted small" }, i.display_name)],
        },
        { title: "Type", cell: (i) => h("span", { class: "type" }, i.type) },
        { title: "Region", cell: (i) => i.region || "any" },
        { title: "In use", num: true, cell: (i) => String(i.in_use) },
        {
          title: "Capacity",
          num: true,
          cell: (i) => [
            i.capacity === null ? "unlimited" : String(i.capacity),
            i.source === "admin" ? h("div", { class: "muted small" }, "set by admin") : null,
          ],
        },
        {
          title: "Free",
          num: true,
          cell: (i) => (i.free === null ? "—" : i.free === 0 ? badge("sold-out") : String(i.free)),
        },
      ],
      o.inventory,
    ),
  );
  $("sandbox-templates").replaceChildren(
    table(
      [
        {
          title: "Name",
          cell: (t) => [h("strong", {}, t.display_name || t.name), h("div", { class: "mono muted" }, t.name)],
        },
        { title: "Kind", cell: (t) => badge(t.kind) },
        { title: "Status", cell: (t) => badge(t.status) },
        { title: "Cost/h", num: true, cell: (t) => usd(t.cost_per_hour) },
      ],
      o.sandbox_templates,
    ),
  );
}

async function renderDetail(o) {
  const w = [...o.workloads, ...o.sandboxes].find((x) => x.uid === state.selected);
  $("detail").hidden = !w;
  if (!w) return;
  const base = `/dashboard/api/orgs/${encodeURIComponent(o.org)}/workloads/${encodeURIComponent(w.uid)}`;
  const [events, logs] = await Promise.all([get(`${base}/events`), get(`${base}/logs`, "text")]);
  const key = JSON.stringify([w.uid, events.items.length, logs]);
  if (key === lastDetail) return;
  lastDetail = key;
  $("detail-title").replaceChildren(`${w.name} `, h("span", { class: "mono muted" }, w.uid));
  $("events").replaceChildren(
    table(
      [
        { title: "When", cell: (e) => time(e.created_at) },
        { title: "Event", cls: "mono", cell: (e) => e.event_type },
        { title: "Status", cell: (e) => (e.new_status ? badge(e.new_status) : "—") },
        { title: "Message", cell: (e) => e.message || e.reason || "" },
      ],
      [...events.items].reverse(),
    ),
  );
  $("logs").textContent = logs || "(no output yet)";
}

function renderOrgs() {
  $("orgs").replaceChildren(
    ...state.session.orgs.map((org) =>
      h(
        "button",
        {
          type: "button",
          "aria-current": org === state.org ? "true" : "false",
          onclick: () => {
            state.org = org;
            state.selected = null;
            sessionStorage.setItem(ORG_KEY, org);
            lastOverview = "";
            renderOrgs();
            refresh();
          },
        },
        org,
      ),
    ),
  );
}

// ---- polling ---------------------------------------------------------------------------------

// ---- snapshots (admin only) -------------------------------------------------------------------

let lastSnapshots = "";

function snapshotStatus(text, error = false) {
  $("snapshot-status").textContent = text;
  $("snapshot-status").classList.toggle("error", error);
}

/** Runs a snapshot action, says how it went, and shows the list again at once. */
async function snapshotAction(run, done) {
  try {
    snapshotStatus(done(await run()));
  } catch (e) {
    snapshotStatus(e.message, true);
  }
  lastSnapshots = "";
  lastOverview = "";
  await renderSnapshots();
}

async function renderSnapshots() {
  if (state.session?.role !== "admin") return;
  const { items } = await adminSend("GET", "/snapshots");
  const text = JSON.stringify(items);
  if (text === lastSnapshots) return;
  lastSnapshots = text;
  $("count-snapshots").textContent = String(items.length);
  const path = (name) => `/snapshots/${encodeURIComponent(name)}`;
  $("snapshots").replaceChildren(
    table(
      [
        { title: "Name", cell: (s) => s.name },
        { title: "Saved", cell: (s) => time(s.saved_at) },
        { title: "Objects", num: true, cell: (s) => s.objects ?? "-" },
        { title: "Size", num: true, cell: (s) => `${(s.bytes / 1024).toFixed(1)} KiB` },
        {
          title: "",
          cell: (s) =>
            h(
              "span",
              { class: "actions" },
              h(
                "button",
                {
                  type: "button",
                  class: "ghost",
                  "data-action": "restore",
                  onclick: () =>
                    window.confirm(`Replace the state of every org with snapshot ${s.name}?`) &&
                    snapshotAction(
                      () => adminSend("POST", `${path(s.name)}/restore`),
                      (r) => `Restored ${r.snapshot.name} in ${r.restore_ms.toFixed(1)} ms.`,
                    ),
                },
                "Restore",
              ),
              h(
                "button",
                {
                  type: "button",
                  class: "ghost",
                  "data-action": "delete",
                  onclick: () =>
                    window.confirm(`Delete snapshot ${s.name}?`) &&
                    snapshotAction(
                      () => adminSend("DELETE", path(s.name)),
                      () => `Deleted ${s.name}.`,
                    ),
                },
                "Delete",
              ),
            ),
        },
      ],
      items,
      { empty: "No snapshot saved yet." },
    ),
  );
}

async function refresh() {
  clearTimeout(timer);
  if (!state.token || !state.org) return;
  try {
    const o = await get(`/dashboard/api/orgs/${encodeURIComponent(state.org)}`);
    const text = JSON.stringify(o);
    if (text !== lastOverview) {
      lastOverview = text;
      renderOverview(o);
    }
    await renderDetail(o);
    await renderSnapshots();
    $("live").classList.remove("stale");
    $("live-text").textContent = `live · ${new Date().toLocaleTimeString()}`;
  } catch (e) {
    if (!state.token) return;
    $("live").classList.add("stale");
    $("live-text").textContent = `offline (${e.message.slice(0, 60)})`;
  }
  timer = setTimeout(refresh, document.hidden ? POLL_MS * 5 : POLL_MS);
}

function signOut(message = "") {
  clearTimeout(timer);
  sessionStorage.removeItem(TOKEN_KEY);
  Object.assign(state, { token: null, session: null, org: null, selected: null });
  lastOverview = "";
  $("app").hidden = true;
  $("live").hidden = true;
  $("signout").hidden = true;
  $("orgs").replaceChildren();
  $("login").hidden = false;
  $("login-error").textContent = message;
}

async function start() {
  try {
    state.session = await get("/dashboard/api/session");
  } catch (e) {
    if (state.token) signOut(`Sign-in failed: ${e.message}`);
    return;
  }
  const saved = sessionStorage.getItem(ORG_KEY);
  state.org = state.session.orgs.includes(saved) ? saved : state.session.orgs[0];
  $("login").hidden = true;
  $("snapshots-card").hidden = state.session.role !== "admin";
  lastSnapshots = "";
  $("app").hidden = false;
  $("live").hidden = false;
  $("signout").hidden = false;
  renderOrgs();
  refresh();
}

$("login-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const token = $("token").value.trim();
  if (!token) return;
  state.token = token;
  sessionStorage.setItem(TOKEN_KEY, token);
  $("token").value = "";
  start();
});
$("signout").addEventListener("click", () => signOut());
$("snapshot-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const name = $("snapshot-name").value.trim();
  snapshotAction(
    () => adminSend("PUT", `/snapshots/${encodeURIComponent(name)}`),
    (s) => `Saved ${s.name} (${s.objects} objects).`,
  ).then(() => {
    if (!$("snapshot-status").classList.contains("error")) $("snapshot-name").value = "";
  });
});
$("detail-close").addEventListener("click", () => {
  state.selected = null;
  lastOverview = "";
  refresh();
});
document.addEventListener("visibilitychange", () => !document.hidden && refresh());

if (state.token) start();
else signOut();
