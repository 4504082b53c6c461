// cardgames web app: talks to the JSON API of cardgames_env/web/app.py.
"use strict";

const cg = {
  meta: null, id: null, token: null, view: null, selection: [], playing: false, timer: null, viewer: "all",
  pending: 0,  // requests in flight
  game: 0,     // which game is on screen: answers that left for an earlier one are dropped
  dropped: 0,  // answers dropped because another game was opened meanwhile
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
// The game's secret stays in this tab (sessionStorage): it is never in the URL, so a copied
// link or the history does not carry it; the id is in the URL fragment, so a reload keeps the game.
const TOKEN_KEY = (id) => `cardgames-token-${id}`;

async function api(method, path, body) {
  const init = { method, headers: {} };
  if (method !== "GET") {
    init.body = JSON.stringify(body === undefined ? {} : body);
    init.headers["Content-Type"] = "application/json";
  }
  if (cg.token && cg.id && path.startsWith(`/api/games/${cg.id}`)) init.headers["X-Game-Token"] = cg.token;
  cg.pending += 1;
  try {
    const response = await fetch(path, init);
    let data = null;
    try { data = await response.json(); } catch (e) { data = { error: `HTTP ${response.status}` }; }
    if (!response.ok) {
      const error = new Error(data.error || `HTTP ${response.status}`);
      error.status = response.status;
      throw error;
    }
    return data;
  } finally {
    // callers render the answer in the same task, before anything reads pending === 0
    setTimeout(() => { cg.pending -= 1; }, 0);
  }
}

// A request made for the game now on screen; its answer (or error) is dropped when another
// game has been opened since.
async function gameRequest(method, path, body) {
  const game = cg.game;
  try {
    const data = await api(method, path, body);
    return game === cg.game ? data : dropped();
  } catch (error) {
    if (game !== cg.game) return dropped();
    throw error;
  }
}
function dropped() { cg.dropped += 1; return null; }

function showError(message) { $("error").textContent = message || ""; }
function gameError(message) { $("game-error").textContent = message || ""; }

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

function agentChoices() {
  // the operator's models are offered for the env they were trained for
  const env = envMeta().env;
  const foreign = new Set(cg.meta.models.filter((m) => m.env !== env).map((m) => m.name));
  return cg.meta.agents.filter((name) => !foreign.has(name));
}

function buildSeats() {
  const seats = $("seats");
  const count = seatCount();
  if (seats.dataset.env === envMeta().env && seats.children.length === count) return;  // keep the choices
  seats.dataset.env = envMeta().env;
  seats.replaceChildren();
  const choices = agentChoices();
  for (let seat = 0; seat < count; seat++) {
    const select = el("select", { id: `agent-${seat}` });
    for (const kind of choices) select.append(el("option", { value: kind }, kind));
    select.append(el("option", { value: "other" }, "search with options…"));
    select.value = seat === 0 ? "human" : (choices.includes("heuristic") ? "heuristic" : "random");
    const other = el("input", { id: `agent-other-${seat}`, class: "hidden",
      placeholder: `search:iterations=200 (at most ${cg.meta.search.max_time} s a move)` });
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

function leaveGame() {
  // whatever was asked for the game on screen is answered into the void from now on
  cg.game += 1;
  stopPlaying();
}

async function startGame() {
  showError("");
  leaveGame();
  const game = cg.game;
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
    if (game === cg.game) openGame(data); else dropped();
  } catch (error) { if (game === cg.game) failedToOpen(error); }
}

function failedToOpen(error) {
  // the game on screen (if any) goes on: fetch it again, since its pending answer was dropped
  showError(error.message);
  if (cg.view) refresh();
}

async function openReplay() {
  showError("");
  const file = $("record-file").files[0];
  if (!file) { showError("choose a record file first"); return; }
  leaveGame();
  const game = cg.game;
  const text = await file.text();
  try {
    const data = await api("POST", "/api/replays", { record: text, game: Number($("record-game").value || 1) });
    if (game === cg.game) openGame(data); else dropped();
  } catch (error) { if (game === cg.game) failedToOpen(error); }
}

function openGame(data) {
  leaveGame();
  cg.id = data.id;
  if (data.token) {
    cg.token = data.token;
    sessionStorage.setItem(TOKEN_KEY(data.id), data.token);
  }
  history.replaceState(null, "", `#game=${encodeURIComponent(data.id)}`);
  cg.viewer = "all";
  $("game").classList.remove("hidden");
  $("log-panel").classList.remove("hidden");
  const viewer = $("viewer");
  viewer.replaceChildren(el("option", { value: "all" }, "all cards (spectator)"));
  for (let seat = 0; seat < data.view.players; seat++) viewer.append(el("option", { value: String(seat) }, `as P${seat}`));
  viewer.value = "all";
  gameError("");
  show(data.view);
}

async function resumeGame(id) {
  // a reload: the id from the URL fragment, the secret from this tab's storage
  cg.id = id;
  cg.token = sessionStorage.getItem(TOKEN_KEY(id));
  try {
    const data = await api("GET", `/api/games/${encodeURIComponent(id)}`);
    openGame(data);
    if (!cg.token && data.view.human === null) {
      gameError("this tab does not hold the game's token: you can watch it but not step it");
    }
  } catch (error) {
    cg.id = null;
    cg.token = null;
    history.replaceState(null, "", location.pathname);
    showError(error.status === 403 ? "this game belongs to the tab that started it (its token is kept there)"
      : `the game in the link is gone: ${error.message}`);
  }
}

// -- the game ------------------------------------------------------------------------------
function viewerQuery() { return cg.view && cg.view.human === null && cg.viewer !== "all" ? `?viewer=${cg.viewer}` : ""; }

function gameLength(view) { return view.log_start + view.log.length; }

function show(view) {
  cg.view = view;
  cg.selection = [];
  const game = view.title || view.game;
  let status;
  if (view.over) status = `${game} — game over: ${view.result}`;
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
  if (view.seed_text !== null) mode.textContent += `  Seed ${view.seed_text}.`;
  $("watch").classList.toggle("hidden", view.human !== null);
  const finished = view.over || (view.replay !== null && view.replay.index >= view.replay.total);
  $("step").disabled = finished;
  $("play").disabled = finished;
  renderNotice(view);
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

function renderNotice(view) {
  // the end of a round or hand stays up for a round of turns after it
  const notice = $("notice");
  const recent = view.notice && gameLength(view) - view.notice.at <= view.players;
  notice.textContent = recent ? view.notice.text : "";
  notice.classList.toggle("hidden", !recent);
}

// The colours of a card's face: its game's view names them by the card's kind.
function cardColours(kind) {
  const env = cg.meta && cg.view ? cg.meta.envs.find((e) => e.env === cg.view.env) : null;
  return (env && env.card_colours[kind]) || {};
}

function cardNode(card, zoneId, index) {
  const wide = card.label.length > 3;
  const node = el("div", { class: `card k-${card.kind}${wide ? " wide" : ""}${card.top ? " top" : ""}`,
    title: card.top ? `${card.code}: sets the rule` : card.code,
    "data-zone": zoneId, "data-code": card.code, "data-index": String(index) }, card.label);
  for (const [property, value] of Object.entries(cardColours(card.kind))) node.style.setProperty(property, value);
  return node;
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
    if (zone.done) row.classList.add("done");
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
  // one numbered item per move; what a move brought about (a trick taken, a round over) inside it
  const log = $("log");
  log.replaceChildren();
  log.start = view.log_start + 1;
  for (const entry of view.log) {
    const item = el("li", { title: entry.move }, `P${entry.seat}: ${entry.label}`);
    if (entry.event) item.append(el("div", { class: "event" }, entry.event.trim()));
    log.append(item);
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
  box.append(el("h3", { id: "result" }, `Final scores — ${view.result}`), table);
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
    const button = el("button", { class: "move", "data-move": move.text, title: move.text }, move.label);
    button.addEventListener("click", () => sendMove(move.text));
    moves.append(button);
  }
}

async function sendMove(text) {
  try {
    const data = await gameRequest("POST", `/api/games/${cg.id}/move`, { move: text });
    if (!data) return;
    $("typed-move").value = "";
    gameError("");
    show(data.view);
  } catch (error) { gameError(error.message); }
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
    const data = await gameRequest("POST", `/api/games/${cg.id}/step${viewerQuery()}`);
    if (!data) return;
    gameError("");
    show(data.view);
  } catch (error) { stopPlaying(); gameError(error.message); }
}

function stopPlaying() {
  cg.playing = false;
  clearTimeout(cg.timer);
  $("play").textContent = "Play";
}

async function refresh() {
  try {
    const data = await gameRequest("GET", `/api/games/${cg.id}${viewerQuery()}`);
    if (data) show(data.view);
  } catch (error) { gameError(error.message); }
}

// -- start ---------------------------------------------------------------------------------
async function init() {
  cg.meta = await api("GET", "/api/meta");
  for (const env of cg.meta.envs) $("env").append(el("option", { value: env.env }, env.title || env.env));
  $("tagline").textContent = `${cg.meta.envs.map((env) => env.title).join(" · ")} — play, watch, replay`;
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
  const linked = /^#game=([A-Za-z0-9]+)$/.exec(location.hash);
  if (linked) await resumeGame(linked[1]);
  document.body.dataset.ready = "1";
}

init().catch((error) => showError(`could not load the app: ${error.message}`));
