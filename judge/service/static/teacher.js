// The teacher's page: the class from GET /lti/api/class (session cookie + X-CSRF-Token), the CSV, and one
// learner's submissions with their full verdicts.  Text only (textContent), never HTML from the server.  Every
// word it writes comes from the page's <script type="application/json" id="judge-words"> block, in the page's
// language (the script has no English of its own); its API calls ask for that language too (?lang=).
"use strict";
(function () {
  const wordsData = JSON.parse(document.getElementById("judge-words").textContent);
  const LANG = wordsData.lang, WORDS = wordsData.words;
  const pluralRules = window.Intl && Intl.PluralRules ? new Intl.PluralRules(LANG) : null;
  function t(key, params) {  // a text in the page's language, its {name} placeholders filled from params
    let text = WORDS[key];
    if (text === undefined) return key;
    if (typeof text === "object") {  // a counted text: its form for params.count
      const category = pluralRules ? pluralRules.select(params.count) : (params.count === 1 ? "one" : "other");
      text = text[category] || text.other;
    }
    return text.replace(/\{(\w+)\}/g, (all, name) =>
      params && params[name] !== undefined && params[name] !== null ? String(params[name]) : all);
  }
  const statusName = (code) => (WORDS["status." + code] !== undefined ? t("status." + code) : code);
  // the page API's refusal in the page's language when the page knows its code, else the server's words
  const refusal = (body, status) => (body && WORDS["code." + body.code] !== undefined ? t("code." + body.code)
    : (body && body.message) || t("error", {status}));
  // a score the way the page's language writes a number (0,091 in French and Russian)
  const score = (value) => Number(value).toLocaleString(LANG, {minimumFractionDigits: 3, maximumFractionDigits: 3});
  const withLang = (url) => url + (url.includes("?") ? "&" : "?") + "lang=" + encodeURIComponent(LANG);
  const csrf = document.querySelector('meta[name="csrf-token"]').content;
  const get = (url) => fetch(withLang(url), {headers: {"X-CSRF-Token": csrf}, credentials: "same-origin"});
  const cell = (row, text) => { const td = row.insertCell(); td.textContent = text == null ? "" : String(text); return td; };
  const state = document.getElementById("class-state");

  async function showLearner(learner) {
    const section = document.getElementById("learner-section");
    const heading = document.getElementById("learner-h");
    const box = document.getElementById("learner-submissions");
    heading.textContent = t("learner_heading", {name: learner.name, count: learner.attempts});
    box.replaceChildren();
    section.hidden = false;
    const answer = await get(`/lti/api/class/learners/${encodeURIComponent(learner.user_id)}`);
    const body = await answer.json();
    for (const sub of body.submissions || []) {
      const item = document.createElement("details");
      const summary = document.createElement("summary");
      const v = sub.verdict || {};
      const when = sub.created_at || "", status = v.status ? statusName(v.status) : sub.state;
      summary.textContent = v.score != null ? t("submission_score", {when, status, score: score(v.score)})
        : t("submission", {when, status});
      item.append(summary);
      const cases = document.createElement("pre");
      cases.textContent = [v.message || ""].concat((v.diagnoses || []).filter((d) => d.explains)
        .map((d) => `${d.id}: ${d.message}`)).concat((v.cases || []).map((c) =>
        `${c.id}${c.visibility === "hidden" ? " " + t("hidden") : ""}  ${c.function}  ${statusName(c.status)}  ` +
        `${c.message || ""}`))
        .join("\n");
      item.append(cases);
      box.append(item);
    }
    heading.focus();
  }

  async function load() {
    const answer = await get("/lti/api/class");
    const body = await answer.json();
    if (!answer.ok) { state.textContent = refusal(body, answer.status); return; }
    state.textContent = t("submitted_of", {submitted: body.submitted, count: body.enrolled});
    const mistakes = document.querySelector("#mistakes tbody");
    for (const m of body.mistakes) {
      const row = mistakes.insertRow();
      // a pattern's id is its English description: the page shows the description said in its language
      const name = cell(row, m.kind === "mistake" ? m.id : t("pattern", {id: m.message || m.id}));
      if (m.kind === "mistake" && m.message) name.title = m.message;
      cell(row, m.learners); cell(row, m.submissions);
    }
    document.getElementById("mistakes-empty").hidden = body.mistakes.length > 0;
    const roster = document.querySelector("#roster tbody");
    for (const learner of body.learners) {
      const row = roster.insertRow();
      const who = row.insertCell();
      if (learner.attempts) {
        const button = document.createElement("button");
        button.type = "button"; button.className = "link"; button.textContent = learner.name;
        button.addEventListener("click", () => showLearner(learner));
        who.append(button);
      } else { who.textContent = learner.name; }
      cell(row, learner.attempts);
      cell(row, learner.best_score == null ? "" : score(learner.best_score));
      cell(row, learner.last_status ? statusName(learner.last_status) : t("not_submitted"));
      cell(row, learner.first_accepted_at || "");
      cell(row, (learner.mistakes || []).join(", "));
      // submissions the activity's probing limit showed without hidden feedback: who probes, not who fails
      cell(row, learner.probe_limited ? t("probe_limited", {count: learner.probe_limited}) : "");
    }
  }

  // rejudging this course's submissions: a dry run, its matrix (old status by new status), then apply
  const rejudgeState = document.getElementById("rejudge-state");
  const applyButton = document.getElementById("rejudge-apply");
  let rejudgeId = null;
  const post = (url) => fetch(withLang(url), {method: "POST", headers: {"X-CSRF-Token": csrf},
    credentials: "same-origin"});

  function showMatrix(view) {
    const table = document.getElementById("rejudge-matrix");
    const news = [...new Set(Object.values(view.matrix).flatMap((row) => Object.keys(row)))].sort();
    const head = table.tHead; head.replaceChildren();
    const top = head.insertRow(); cell(top, t("matrix_corner"));
    for (const n of news) cell(top, statusName(n));
    const body = table.tBodies[0]; body.replaceChildren();
    for (const [old, row] of Object.entries(view.matrix).sort()) {
      const line = body.insertRow(); cell(line, statusName(old));
      for (const n of news) cell(line, row[n] || "");
    }
    table.hidden = news.length === 0;
  }

  async function followRejudge() {
    const answer = await get(`/lti/api/class/rejudges/${rejudgeId}`);
    const view = await answer.json();
    const stateName = WORDS["rejudge." + view.state] !== undefined ? t("rejudge." + view.state) : view.state;
    rejudgeState.textContent = t("rejudge_progress", {state: stateName, graded: view.graded, total: view.total,
      count: view.changed.length});
    showMatrix(view);
    if (view.state === "queued" || view.state === "running") { setTimeout(followRejudge, 700); return; }
    applyButton.hidden = !(view.state === "done" && view.dry_run);
  }

  document.getElementById("rejudge").addEventListener("click", async () => {
    rejudgeState.textContent = t("starting");
    const answer = await post("/lti/api/class/rejudges");
    const view = await answer.json();
    if (!answer.ok) { rejudgeState.textContent = refusal(view, answer.status); return; }
    rejudgeId = view.id;
    followRejudge();
  });
  applyButton.addEventListener("click", async () => {
    const answer = await post(`/lti/api/class/rejudges/${rejudgeId}/apply`);
    const view = await answer.json();
    applyButton.hidden = true;
    rejudgeState.textContent = answer.ok ? t("applied", {count: view.changed.length}) : refusal(view, answer.status);
  });

  document.getElementById("download-csv").addEventListener("click", async () => {
    const answer = await get("/lti/api/class.csv");
    const blob = await answer.blob();
    const link = document.createElement("a");
    link.href = URL.createObjectURL(blob);
    link.download = `${document.getElementById("class").dataset.problem}-class.csv`;
    document.body.append(link); link.click(); link.remove();
  });
  load().catch((error) => { state.textContent = t("load_failed", {error}); });
})();
