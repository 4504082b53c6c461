// cardgames web app: talks to the JSON API of cardgames_env/web/app.py.
"use strict";

const cg = {
  meta: null, id: null, view: null, selection: [], playing: false, timer: null, viewer: "all",
  pending: 0,  // requests in flight
};
window.cardgames = cg;  // for tests and the curious

const $ = (id) => document.getElementById(id);
const el = (tag, attrs = {}, ...children) => {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else if (key.startsWith("data-")) node.setAttribute(key, value);
    else node[key] = value;
  }
  for (const child of children) node.append(child);
  return node;
};
const GAME_NAMES = { jaipur: "Jaipur", red7: "Red7", haggis: "Haggis", gongzhu: "Gong Zhu", haggle: "Haggle" };

async function api(method, path, body) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers["Content-Type"] = "application/json";
  }
  cg.pending += 1;
  try {
    const response = await fetch(path, init);
    let data = null;
    try { data = await response.json(); } catch (e) { data = { error: `HTTP ${response.status}` }; }
    if (!response.ok) throw new Error(data.error || `HTTP ${response.status}`);
    return data;
  } finally {
    // callers render the answer in the same task, before anything reads pending === 0
    setTimeout(() => { cg.pending -= 1; }, 0);
  }
}

function showError(message) { $("error").textContent = message || ""; if (message) $("game-error")?.remove(); }

// -- setup ---------------------------------------------------------------------------------
function envMeta() { return cg.meta.envs.find((e) => e.env === $("env").value); }

function buildSetup() {
  const env = envMeta();
  $("env-doc").textContent = env.doc;
  const variants = $("variants");
  variants.replaceChildren();
  for (const option of env.options) {
    let input;
    if (typeof option.default === "boolean") {
      input = el("input", { type: "checkbox", checked: option.default });
    } else {
      input = el("input", { type: typeof option.default === "number" ? "number" : "text",
        value: option.default === null ? "" : String(option.default),
        placeholder: option.default === null ? "none" : "" });
    }
    input.dataset.option = option.name;
    if (option.name === "num_players") input.addEventListener("change", buildSeats);
    variants.append(el("label", {}, `${option.name} `, input));
  }
  buildSeats();
}

function seatCount() {
  const players = $("variants").querySelector("input[data-option='num_players']");
  const n = players ? Number(players.value) : NaN;
  return Number.isInteger(n) && n >= 2 && n <= 8 ? n : envMeta().players;
}

function buildSeats() {
  const seats = $("seats");
  const count = seatCount();
  if (seats.dataset.env === envMeta().env && seats.children.length === count) return;  // keep the choices
  seats.dataset.env = envMeta().env;
  seats.replaceChildren();
  for (let seat = 0; seat < count; seat++) {
    const select = el("select", { id: `agent-${seat}` });
    for (const kind of cg.meta.agents) select.append(el("option", { value: kind }, kind));
    select.append(el("option", { value: "other" }, "other (model path, agent name…)"));
    select.value = seat === 0 ? "human" : (cg.meta.agents.includes("heuristic") ? "heuristic" : "random");
    const other = el("input", { id: `agent-other-${seat}`, class: "hidden", placeholder: "runs/jaipur or search:…" });
    select.addEventListener("change", () => other.classList.toggle("hidden", select.value !== "other"));
    seats.append(el("label", {}, `Seat P${seat} `, select, " ", other));
  }
}

function readOptions() {
  const env = envMeta();
  const options = {};
  for (const input of $("variants").querySelectorAll("input")) {
    const spec = env.options.find((o) => o.name === input.dataset.option);
    let value;
    if (input.type === "checkbox") value = input.checked;
    else if (input.value.trim() === "" || input.value.trim().toLowerCase() === "none") value = null;
    else if (input.type === "number" || /^-?\d+(\.\d+)?$/.test(input.value.trim())) value = Number(input.value);
    else value = input.value.trim();
    if (JSON.stringify(value) !== JSON.stringify(spec.default)) options[spec.name] = value;
  }
  return options;
}

async function startGame() {
  showError("");
  const env = envMeta();
  const agents = [];
  for (let seat = 0; seat < seatCount(); seat++) {
    const kind = $(`agent-${seat}`).value;
    agents.push(kind === "other" ? $(`agent-other-${seat}`).value.trim() : kind);
  }
  const body = { env: env.env, options: readOptions(), agents };
  const seed = $("seed").value.trim();
  if (seed !== "") body.seed = Number(seed);
  try {
    const data = await api("POST", "/api/games", body);
    openGame(data);
  } catch (error) { showError(error.message); }
}

async function openReplay() {
  showError("");
  const file = $("record-file").files[0];
  if (!file) { showError("choose a record file first"); return; }
  const text = await file.text();
  try {
    const data = await api("POST", "/api/replays", { record: text, game: Number($("record-game").value || 1) });
    openGame(data);
  } catch (error) { showError(error.message); }
}

function openGame(data) {
  stopPlaying();
  cg.id = data.id;
  cg.viewer = "all";
  $("game").classList.remove("hidden");
  $("log-panel").classList.remove("hidden");
  const viewer = $("viewer");
  viewer.replaceChildren(el("option", { value: "all" }, "all cards (spectator)"));
  for (let seat = 0; seat < data.view.players; seat++) viewer.append(el("option", { value: String(seat) }, `as P${seat}`));
  viewer.value = "all";
  show(data.view);
}

// -- the game ------------------------------------------------------------------------------
function viewerQuery() { return cg.view && cg.view.human === null && cg.viewer !== "all" ? `?viewer=${cg.viewer}` : ""; }

function show(view) {
  cg.view = view;
  cg.selection = [];
  const game = GAME_NAMES[view.game] || view.game;
  let status;
  if (view.over) status = `${game} — game over${view.truncated ? " (turn limit)" : ""}`;
  else if (view.human !== null && view.to_move === view.human) status = `${game} — your turn (P${view.human})`;
  else status = `${game} — P${view.to_move} (${view.agents[view.to_move]}) to move`;
  $("status").textContent = status;
  const mode = $("mode");
  mode.className = "mode";
  if (view.spectator) {
    mode.textContent = "Spectator view: every card is shown (only for games without a human seat).";
    mode.classList.add("spectator");
  } else {
    mode.textContent = view.human !== null ? `You are P${view.human}: you see your cards and what the rules show you.`
      : `Seen as P${view.viewer}.`;
  }
  if (view.replay) mode.textContent += `  Replay: move ${view.replay.index} of ${view.replay.total}.`;
  if (view.seed !== null) mode.textContent += `  Seed ${view.seed}.`;
  $("watch").classList.toggle("hidden", view.human !== null);
  renderTable(view);
  renderInfo(view);
  renderLog(view);
  renderScores(view);
  $("text").textContent = view.text;
  renderTurn();
  const link = $("record-link");
  const recordOk = view.human === null || view.over;
  link.classList.toggle("hidden", !recordOk);
  link.href = recordOk ? `/api/games/${cg.id}/record` : "#";
  link.dataset.ready = recordOk ? "1" : "0";
  scheduleAgents();
}

function cardNode(card, zoneId, index) {
  const wide = card.label.length > 3;
  return el("div", { class: `card k-${card.kind}${wide ? " wide" : ""}`, title: card.code,
    "data-zone": zoneId, "data-code": card.code, "data-index": String(index) }, card.label);
}

function renderTable(view) {
  const table = $("table");
  table.replaceChildren();
  for (const zone of view.zones) {
    const cards = el("div", { class: "cards" });
    zone.cards.forEach((card, i) => {
      const node = cardNode(card, zone.id, i);
      if (i > 0 && card.group !== undefined && card.group !== zone.cards[i - 1].group) node.classList.add("gap");
      cards.append(node);
    });
    for (let i = 0; i < zone.hidden; i++) cards.append(el("div", { class: "card back", title: "hidden card" }));
    if (!zone.cards.length && !zone.hidden) cards.append(el("span", { class: "zone-note" }, "—"));
    const row = el("div", { class: "zone", "data-zone": zone.id },
      el("div", { class: "zone-label" }, zone.label), cards);
    if (zone.owner !== null && zone.owner === view.viewer) row.classList.add("mine");
    if (zone.owner !== null && zone.owner === view.to_move) row.classList.add("to-move");
    if (zone.note) row.append(el("div", { class: "zone-note" }, zone.note));
    table.append(row);
  }
  table.querySelectorAll(".card[data-code]").forEach((node) => node.addEventListener("click", () => clickCard(node)));
}

function renderInfo(view) {
  const info = $("info");
  info.replaceChildren();
  for (const [label, value] of view.info) info.append(el("tr", {}, el("td", {}, label), el("td", {}, value)));
}

function renderLog(view) {
  const log = $("log");
  log.replaceChildren();
  for (const entry of view.log) {
    log.append(el("li", {}, `P${entry.seat}: ${entry.move}`));
    if (entry.event) log.append(el("li", { class: "event" }, entry.event.trim()));
  }
  log.scrollTop = log.scrollHeight;
}

function renderScores(view) {
  const box = $("scores");
  box.replaceChildren();
  if (!view.scores) return;
  const head = el("tr", {}, el("th", {}, ""));
  for (let seat = 0; seat < view.players; seat++) head.append(el("th", {}, `P${seat}${seat === view.human ? " (you)" : ""}`));
  const table = el("table", { id: "score-table" }, head);
  for (const [label, ...values] of view.scores.rows) {
    const row = el("tr", {}, el("td", {}, label));
    for (const value of values) row.append(el("td", {}, value === null ? "—" : String(value)));
    table.append(row);
  }
  box.append(el("h3", {}, "Final scores"), table);
}

// -- building a move by clicking -----------------------------------------------------------
function multiset(entries) {
  const counts = new Map();
  for (const [zone, code] of entries) counts.set(`${zone}|${code}`, (counts.get(`${zone}|${code}`) || 0) + 1);
  return counts;
}
function moveEntries(move) {
  const out = [];
  for (const [zone, codes] of Object.entries(move.sel)) for (const code of codes) out.push([zone, code]);
  return out;
}
function contains(big, small) {
  for (const [key, n] of small) if ((big.get(key) || 0) < n) return false;
  return true;
}
function selectionEntries(extra) {
  const entries = cg.selection.map((node) => [node.dataset.zone, node.dataset.code]);
  if (extra) entries.push([extra.dataset.zone, extra.dataset.code]);
  return entries;
}
function candidates(extra) {
  const chosen = multiset(selectionEntries(extra));
  return cg.view.moves.filter((m) => contains(multiset(moveEntries(m)), chosen));
}
function exact(list) {
  const size = cg.selection.length;
  return list.filter((m) => moveEntries(m).length === size);
}

function myTurn() { return cg.view && !cg.view.over && cg.view.human !== null && cg.view.to_move === cg.view.human; }

function clickCard(node) {
  if (!myTurn()) return;
  const at = cg.selection.indexOf(node);
  if (at >= 0) {
    cg.selection.splice(at, 1);
  } else {
    if (!candidates(node).length) return;
    cg.selection.push(node);
  }
  renderTurn();
  const left = candidates();
  if ($("autoplay").checked && cg.selection.length && left.length === 1 && exact(left).length === 1) {
    sendMove(left[0].text);
  }
}

function renderTurn() {
  const turn = myTurn();
  $("turn").classList.toggle("hidden", !turn);
  document.querySelectorAll("#table .card[data-code]").forEach((node) => {
    node.classList.remove("selectable", "selected", "dim");
    if (!turn) return;
    if (cg.selection.includes(node)) node.classList.add("selected");
    else if (candidates(node).length) node.classList.add("selectable");
    else if (cg.view.moves.some((m) => m.sel[node.dataset.zone])) node.classList.add("dim");
  });
  if (!turn) return;
  const moves = $("moves");
  moves.replaceChildren();
  const left = candidates();
  let shown;
  if (cg.selection.length) {
    shown = exact(left);
    $("selection").textContent = `Selected: ${selectionEntries().map(([, c]) => c).join(" ")} — ` +
      `${left.length} move${left.length === 1 ? "" : "s"} use these cards. `;
    const clear = el("button", { id: "clear" }, "clear selection");
    clear.addEventListener("click", () => { cg.selection = []; renderTurn(); });
    $("selection").append(clear);
  } else {
    const cardless = left.filter((m) => !moveEntries(m).length);
    shown = left.length <= 40 ? left : cardless;
    $("selection").textContent = left.length > shown.length
      ? `${left.length} legal moves: click cards to build one (${shown.length} need no card).`
      : `${left.length} legal move${left.length === 1 ? "" : "s"}.`;
  }
  for (const move of shown) {
    const button = el("button", { class: "move", "data-move": move.text }, move.text);
    button.addEventListener("click", () => sendMove(move.text));
    moves.append(button);
  }
}

async function sendMove(text) {
  try {
    const data = await api("POST", `/api/games/${cg.id}/move`, { move: text });
    $("typed-move").value = "";
    show(data.view);
  } catch (error) { showError(error.message); alertInGame(error.message); }
}

function alertInGame(message) {
  $("game-error")?.remove();
  $("turn").prepend(el("p", { id: "game-error", class: "error" }, message));
}

// -- agents' moves: automatic in a human game, step / play in a watched one ----------------
function delay() { return Number($("speed").value); }

function scheduleAgents() {
  clearTimeout(cg.timer);
  const view = cg.view;
  if (!view || view.over) { stopPlaying(); return; }
  if (view.replay && view.replay.index >= view.replay.total) { stopPlaying(); return; }
  const agentToMove = view.to_move !== view.human;
  if ((view.human !== null && agentToMove) || (view.human === null && cg.playing)) {
    cg.timer = setTimeout(stepOnce, delay());
  }
}

async function stepOnce() {
  try {
    const data = await api("POST", `/api/games/${cg.id}/step${viewerQuery()}`);
    show(data.view);
  } catch (error) { stopPlaying(); showError(error.message); }
}

function stopPlaying() {
  cg.playing = false;
  clearTimeout(cg.timer);
  $("play").textContent = "Play";
}

async function refresh() {
  const data = await api("GET", `/api/games/${cg.id}${viewerQuery()}`);
  show(data.view);
}

// -- start ---------------------------------------------------------------------------------
async function init() {
  cg.meta = await api("GET", "/api/meta");
  for (const env of cg.meta.envs) $("env").append(el("option", { value: env.env }, GAME_NAMES[env.game] || env.env));
  $("env").addEventListener("change", buildSetup);
  buildSetup();
  $("start").addEventListener("click", startGame);
  $("replay").addEventListener("click", openReplay);
  $("step").addEventListener("click", () => { stopPlaying(); stepOnce(); });
  $("play").addEventListener("click", () => {
    if (cg.playing) { stopPlaying(); return; }
    cg.playing = true;
    $("play").textContent = "Pause";
    scheduleAgents();
  });
  const speedText = () => { $("speed-text").textContent = `${delay()} ms/move`; };
  $("speed").addEventListener("input", speedText);
  speedText();
  $("viewer").addEventListener("change", () => { cg.viewer = $("viewer").value; refresh(); });
  $("typed").addEventListener("submit", (event) => {
    event.preventDefault();
    const text = $("typed-move").value.trim();
    if (text) sendMove(text);
  });
  document.body.dataset.ready = "1";
}

init().catch((error) => showError(`could not load the app: ${error.message}`));
