// dashboard.js - satind's dashboard: the grid as this node sees it, its jobs,
// and profiles drawn as lifestories, from the JSON under /api/ (refreshed
// every second; daemon/control_dashboard.c publishes it).
"use strict";

const token = new URLSearchParams(location.search).get("token");
const HISTORY = 120;                  // samples kept for the live lifestory
const history = [];                   // [{t, nodes: {id: {busy, workers, state}}}]
let last = null;                      // the previous status, for rates
let profiles = [];

const $ = (id) => document.getElementById(id);
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v;
    else if (k.startsWith("data-")) e.setAttribute(k, v);
    else e[k] = v;
  }
  for (const c of children) e.append(c instanceof Node ? c : document.createTextNode(c));
  return e;
}
function badge(state) { return el("span", {class: "badge s-" + state}, state); }
function fmtNum(v) { return v === undefined || v === null ? "\u2013" : Number(v).toLocaleString("en-US"); }
function fmtRate(v) { return v === null ? "\u2013" : v < 10 ? v.toFixed(1) : Math.round(v).toLocaleString("en-US"); }
function fmtBytes(v) {
  if (v === null) return "\u2013";
  const u = ["B", "kB", "MB", "GB"]; let i = 0;
  while (v >= 1000 && i < u.length - 1) { v /= 1000; i++; }
  return (v < 10 && i ? v.toFixed(1) : Math.round(v)) + " " + u[i];
}
function fmtSecs(s) {
  if (s === undefined) return "\u2013";
  if (s < 60) return s.toFixed(1) + " s";
  if (s < 3600) return Math.floor(s / 60) + " min " + Math.round(s % 60) + " s";
  return (s / 3600).toFixed(1) + " h";
}

async function getJSON(path) {
  const r = await fetch(path, {cache: "no-store", headers: token ? {Authorization: "Bearer " + token} : {}});
  if (r.status === 503) return null;  // not gathered yet
  if (!r.ok) throw new Error(path + ": " + r.status + " " + (await r.text()).trim());
  return r.json();
}

// ---- nodes ------------------------------------------------------------------------------

function rate(node, key, now) {
  if (!last || !last.nodes[node.node] || node[key] === undefined) return null;
  const before = last.nodes[node.node][key];
  const dt = (now - last.t) / 1000;
  return before === undefined || dt <= 0 ? null : Math.max(0, (node[key] - before) / dt);
}

function renderNodes(status, now) {
  const nodes = Object.values(status);
  const byCluster = new Map();
  for (const n of nodes) {
    const c = n.cluster || "(no cluster)";
    if (!byCluster.has(c)) byCluster.set(c, []);
    byCluster.get(c).push(n);
  }
  const box = $("clusters");
  box.replaceChildren();
  let alive = 0, busy = 0, workers = 0, running = 0, pending = 0, steals = 0, wan = 0, rated = false;
  for (const [cluster, list] of byCluster) {
    const body = el("tbody");
    for (const n of list) {
      const sr = rate(n, "steal_attempts", now), wr = rate(n, "wan_bytes", now);
      if (sr !== null) { steals += sr; wan += wr || 0; rated = true; }
      if (n.state === "alive") alive++;
      busy += n.workers_busy || 0; workers += n.workers || 0;
      running += n.jobs_running || 0; pending += n.jobs_pending || 0;
      const frac = n.workers ? (n.workers_busy || 0) / n.workers : 0;
      const bar = el("span", {class: "bar"}, el("span"));
      bar.firstChild.style.width = Math.round(frac * 100) + "%";
      const silent = n.silent_s === undefined ? (n.asked ? "\u2013" : "never heard") : fmtSecs(n.silent_s);
      body.append(el("tr", {class: "node-row" + (n.asked ? " asked" : ""), "data-node": n.node, "data-state": n.state},
        el("td", {}, n.node), el("td", {}, badge(n.state)),
        el("td", {}, n.answered ? bar : "", n.answered ? (n.workers_busy || 0) + " / " + n.workers : "no answer"),
        el("td", {class: "num"}, fmtNum(n.jobs_running)), el("td", {class: "num"}, fmtNum(n.jobs_pending)),
        el("td", {class: "num"}, fmtNum(n.queue_length)), el("td", {class: "num"}, fmtNum(n.records_held)),
        el("td", {class: "num"}, fmtRate(sr)), el("td", {class: "num"}, fmtBytes(wr)),
        el("td", {class: "num"}, silent)));
    }
    const head = el("thead", {}, el("tr", {},
      ...["Node", "State", "Workers busy"].map((h) => el("th", {}, h)),
      ...["Running", "Waiting", "Queued", "Held", "Steals/s", "WAN/s", "Silent"].map((h) => el("th", {class: "num"}, h))));
    box.append(el("div", {class: "cluster panel"}, el("h3", {}, "Cluster " + cluster),
      el("table", {class: "nodes"}, head, body)));
  }
  $("t-nodes").textContent = alive + " / " + nodes.length;
  $("t-busy").textContent = busy + " / " + workers;
  $("t-running").textContent = running;
  $("t-pending").textContent = pending;
  $("t-steals").textContent = rated ? fmtRate(steals) : "\u2013";
  $("t-wan").textContent = rated ? fmtBytes(wan) : "\u2013";
  const asked = nodes.find((n) => n.asked);
  if (asked) $("asked").textContent = "as node " + asked.node + " sees it";
}

// ---- the live lifestory ------------------------------------------------------------------

function sizeCanvas(c, rows, rowH, pad) {
  const w = c.clientWidth || 900, h = Math.max(60, rows * rowH + pad);
  const dpr = window.devicePixelRatio || 1;
  c.width = w * dpr; c.height = h * dpr; c.style.height = h + "px";
  const g = c.getContext("2d");
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  g.clearRect(0, 0, w, h);
  g.font = "12px system-ui, sans-serif";
  return {g, w, h};
}
const css = (name) => getComputedStyle(document.documentElement).getPropertyValue(name).trim();

function drawLive(status) {
  const ids = Object.keys(status);
  const c = $("live-story"), rowH = 20, left = 110, top = 6;
  const {g, w} = sizeCanvas(c, ids.length, rowH, 30);
  const cols = HISTORY, cw = (w - left - 10) / cols;
  let prevCluster = null;
  ids.forEach((id, r) => {
    const y = top + r * rowH, cl = status[id].cluster;
    if (prevCluster !== null && cl !== prevCluster) {
      g.strokeStyle = css("--ink"); g.beginPath(); g.moveTo(left, y - 1); g.lineTo(w - 10, y - 1); g.stroke();
    }
    prevCluster = cl;
    g.fillStyle = css("--ink"); g.fillText(id + (cl ? "  " + cl : ""), 6, y + 14);
    history.forEach((s, k) => {
      const n = s.nodes[id]; if (!n) return;
      const x = left + (cols - history.length + k) * cw;
      if (n.state === "dead" || n.state === "left") g.fillStyle = css("--bad");
      else if (n.state === "suspected" || n.state === "leaving") g.fillStyle = css("--warn");
      else if (!n.workers) g.fillStyle = css("--idle");
      else {
        const f = Math.min(1, n.busy / n.workers);
        g.fillStyle = f > 0 ? css("--busy") : css("--idle");
        g.globalAlpha = f > 0 ? 0.25 + 0.75 * f : 1;
      }
      g.fillRect(x, y + 2, Math.ceil(cw), rowH - 4);
      g.globalAlpha = 1;
    });
  });
  g.fillStyle = css("--muted");
  const y = top + ids.length * rowH + 14;
  g.fillText("\u2212" + HISTORY + " s", left, y);
  g.fillText("now", w - 36, y);
}

// ---- jobs -------------------------------------------------------------------------------

function renderJobs(jobs) {
  const body = $("jobs");
  body.replaceChildren();
  const shown = jobs.slice(-60).reverse();   // unfinished first in the list; newest on top here
  shown.sort((a, b) => (["running", "pending"].includes(b.state) - ["running", "pending"].includes(a.state)) || b.job - a.job);
  for (const j of shown) {
    const params = j.params === null ? el("td", {class: "params hidden"}, "another's")
      : el("td", {class: "params"}, Object.entries(j.params).map(([k, v]) => k + "=" + v).join(" "));
    body.append(el("tr", {class: "job-row", "data-job": String(j.job), "data-node": j.node || "", "data-state": j.state},
      el("td", {class: "num"}, String(j.job)), el("td", {}, j.name || ""), el("td", {}, j.kind),
      el("td", {}, j.node || "\u2013"), el("td", {}, j.owner || ""), el("td", {}, badge(j.state)), params,
      el("td", {class: "num"}, fmtSecs(j.age_s)), el("td", {class: "num"}, fmtSecs(j.run_s)),
      el("td", {class: "num"}, fmtNum(j.invocations))));
  }
  if (!shown.length) body.append(el("tr", {class: "empty"}, el("td", {colSpan: 10}, "no jobs yet")));
}

// ---- profiles: one row per worker of each node --------------------------------------------

// "node=ID cluster=C w=W s=S e=E[ t=T] DELTA LETTER N ..." (PROTOCOL.md 14.12)
function parseProfile(text) {
  const m = /^(?:node=(\S+) cluster=(\d+) )?w=(\d+) s=(-?\d+) e=(-?\d+)(?: t=(-?\d+))?/.exec(text);
  if (!m) return null;
  const p = {node: m[1] || "?", cluster: m[2], workers: +m[3], start: +m[4], end: +m[5],
             trunc: m[6] === undefined ? null : +m[6], busy: [], steals: []};
  const open = {}, asked = {};
  let t = p.start;
  for (const word of text.slice(m[0].length).trim().split(" ").filter(Boolean)) {
    const ev = /^(\d+)([bilwa])(\d+)$/.exec(word);
    if (!ev) return null;
    t += +ev[1];
    const n = +ev[3];
    if (ev[2] === "b") open[n] = t;
    else if (ev[2] === "i" && n in open) { p.busy.push([n, open[n], t]); delete open[n]; }
    else if (ev[2] === "l" || ev[2] === "w") asked[n] = [t, ev[2]];
    else if (ev[2] === "a" && n in asked) { p.steals.push([asked[n][1], asked[n][0], t]); delete asked[n]; }
  }
  const end = p.trunc === null ? p.end : p.trunc;
  for (const [n, s] of Object.entries(open)) p.busy.push([+n, s, end]);
  return p;
}

function drawProfile() {
  const pick = $("profile-pick"), prof = profiles.find((p) => String(p.job) === pick.value);
  const c = $("profile");
  if (!prof) {
    const {g} = sizeCanvas(c, 1, 20, 20);
    g.fillStyle = css("--muted");
    g.fillText("No profiled job has finished on this node yet: submit one with satin-submit --profile FILE.png (or profile=True from Python).", 8, 24);
    $("profile-note").textContent = "";
    return;
  }
  const nodes = prof.nodes.map(parseProfile).filter(Boolean);
  nodes.sort((a, b) => (a.cluster - b.cluster) || a.node.localeCompare(b.node));
  const rowH = 16, left = 110, top = 4;
  const rows = nodes.reduce((s, n) => s + n.workers + 1, 0);
  const {g, w} = sizeCanvas(c, rows, rowH, 34);
  const wall = prof.wall_ns || 1, scale = (w - left - 10) / wall;
  let y = top, prevCluster = null;
  for (const n of nodes) {
    if (prevCluster !== null && n.cluster !== prevCluster) {
      g.strokeStyle = css("--ink"); g.beginPath(); g.moveTo(left, y - 1); g.lineTo(w - 10, y - 1); g.stroke();
    }
    prevCluster = n.cluster;
    g.fillStyle = css("--ink"); g.fillText(n.node, 6, y + rowH * (n.workers + 1) / 2 + 4);
    for (let k = 0; k < n.workers; k++) {
      g.fillStyle = css("--idle"); g.fillRect(left, y + k * rowH + 1, w - left - 10, rowH - 2);
    }
    g.fillStyle = css("--busy");
    for (const [k, s, e] of n.busy) g.fillRect(left + s * scale, y + k * rowH + 1, Math.max(1, (e - s) * scale), rowH - 2);
    const sy = y + n.workers * rowH;
    for (const [kind, s, e] of n.steals) {
      g.fillStyle = kind === "w" ? css("--wan") : css("--lan");
      g.fillRect(left + s * scale, sy + 3, Math.max(1, (e - s) * scale), rowH - 6);
    }
    g.fillStyle = css("--muted"); g.fillText("steals", left - 44, sy + 12);
    y += (n.workers + 1) * rowH;
  }
  g.fillStyle = css("--muted");
  g.fillText("0 s", left, y + 16);
  const secs = (wall / 1e9).toFixed(3) + " s";
  g.fillText(secs, w - 10 - g.measureText(secs).width, y + 16);
  $("profile-note").textContent = prof.kind + " job " + prof.job + ", " + prof.state + ", " + nodes.length +
    " node(s)" + (prof.missing ? "; no profile from " + prof.missing : "");
}

function renderProfiles(list) {
  const pick = $("profile-pick"), was = pick.value;
  const key = list.map((p) => p.job).join(",");
  if (pick.dataset.key !== key) {
    pick.replaceChildren(...list.map((p) => el("option", {value: String(p.job)}, p.kind + " job " + p.job)));
    pick.dataset.key = key;
    if (list.some((p) => String(p.job) === was)) pick.value = was;
  }
  profiles = list;
  drawProfile();
}

// ---- the loop ---------------------------------------------------------------------------

async function refresh() {
  try {
    const [status, jobs, node, prof] = await Promise.all(
      ["api/status", "api/jobs", "api/node", "api/profiles"].map(getJSON));
    $("error").hidden = true;
    $("live").classList.remove("stale");
    if (node) {
      $("grid-name").textContent = node.grid ? "\u00b7 " + node.grid : "\u00b7 " + (node.node || "standalone");
      document.title = "Satin grid" + (node.grid ? " \u00b7 " + node.grid : "");
      $("live").title = "refreshed every second; satind " + node.version + (node.policy ? ", policy " + node.policy : "");
    }
    if (jobs) {
      renderJobs(jobs.jobs);
      $("jobs-hint").textContent = "every live node's" +
        (jobs.unanswered && jobs.unanswered.length ? "; no list from " + jobs.unanswered.join(", ") : "");
    }
    if (prof) renderProfiles(prof.profiles);
    if (status) {
      const now = Date.now();
      renderNodes(status, now);
      const sample = {t: now, nodes: {}};
      for (const n of Object.values(status))
        sample.nodes[n.node] = {busy: n.workers_busy || 0, workers: n.workers || 0, state: n.state,
                                steal_attempts: n.steal_attempts, wan_bytes: n.wan_bytes};
      history.push(sample);
      if (history.length > HISTORY) history.shift();
      last = sample;
      drawLive(status);
      document.body.dataset.ready = "1";
    }
  } catch (e) {
    $("error").textContent = "Cannot read satind's data: " + e.message;
    $("error").hidden = false;
    $("live").classList.add("stale");
  }
}

$("profile-pick").addEventListener("change", drawProfile);
window.addEventListener("resize", () => { drawProfile(); if (last) refresh(); });
refresh();
setInterval(refresh, 1000);
