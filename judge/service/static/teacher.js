// The teacher's page: the class from GET /lti/api/class (session cookie + X-CSRF-Token), the CSV, and one
// learner's submissions with their full verdicts.  Text only (textContent), never HTML from the server.
"use strict";
(function () {
  const csrf = document.querySelector('meta[name="csrf-token"]').content;
  const get = (url) => fetch(url, {headers: {"X-CSRF-Token": csrf}, credentials: "same-origin"});
  const cell = (row, text) => { const td = row.insertCell(); td.textContent = text == null ? "" : String(text); return td; };
  const state = document.getElementById("class-state");

  async function showLearner(learner) {
    const section = document.getElementById("learner-section");
    const heading = document.getElementById("learner-h");
    const box = document.getElementById("learner-submissions");
    heading.textContent = `${learner.name}: ${learner.attempts} submission${learner.attempts === 1 ? "" : "s"}`;
    box.replaceChildren();
    section.hidden = false;
    const answer = await get(`/lti/api/class/learners/${encodeURIComponent(learner.user_id)}`);
    const body = await answer.json();
    for (const sub of body.submissions || []) {
      const item = document.createElement("details");
      const summary = document.createElement("summary");
      const v = sub.verdict || {};
      summary.textContent = `${sub.created_at || ""}: ${v.status || sub.state}` +
        (v.score != null ? `, score ${Number(v.score).toFixed(3)}` : "");
      item.append(summary);
      const cases = document.createElement("pre");
      cases.textContent = [v.message || ""].concat((v.diagnoses || []).filter((d) => d.explains)
        .map((d) => `${d.id}: ${d.message}`)).concat((v.cases || []).map((c) =>
        `${c.id}${c.visibility === "hidden" ? " (hidden)" : ""}  ${c.function}  ${c.status}  ${c.message || ""}`))
        .join("\n");
      item.append(cases);
      box.append(item);
    }
    heading.focus();
  }

  async function load() {
    const answer = await get("/lti/api/class");
    const body = await answer.json();
    if (!answer.ok) { state.textContent = body.message || `error ${answer.status}`; return; }
    state.textContent = `${body.submitted} of ${body.enrolled} learners have submitted.`;
    const mistakes = document.querySelector("#mistakes tbody");
    for (const m of body.mistakes) {
      const row = mistakes.insertRow();
      const name = cell(row, m.kind === "mistake" ? m.id : `pattern: ${m.id}`);
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
      cell(row, learner.best_score == null ? "" : Number(learner.best_score).toFixed(3));
      cell(row, learner.last_status ? learner.last_status.replace(/_/g, " ") : "not submitted");
      cell(row, learner.first_accepted_at || "");
      cell(row, (learner.mistakes || []).join(", "));
      // submissions the activity's probing limit showed without hidden feedback: who probes, not who fails
      cell(row, learner.probe_limited ? learner.probe_limited + " submission" + (learner.probe_limited === 1 ? "" : "s") : "");
    }
  }

  // rejudging this course's submissions: a dry run, its matrix (old status by new status), then apply
  const rejudgeState = document.getElementById("rejudge-state");
  const applyButton = document.getElementById("rejudge-apply");
  let rejudgeId = null;
  const post = (url) => fetch(url, {method: "POST", headers: {"X-CSRF-Token": csrf}, credentials: "same-origin"});

  function showMatrix(view) {
    const table = document.getElementById("rejudge-matrix");
    const news = [...new Set(Object.values(view.matrix).flatMap((row) => Object.keys(row)))].sort();
    const head = table.tHead; head.replaceChildren();
    const top = head.insertRow(); cell(top, "old \\ new");
    for (const n of news) cell(top, n.replace(/_/g, " "));
    const body = table.tBodies[0]; body.replaceChildren();
    for (const [old, row] of Object.entries(view.matrix).sort()) {
      const line = body.insertRow(); cell(line, old.replace(/_/g, " "));
      for (const n of news) cell(line, row[n] || "");
    }
    table.hidden = news.length === 0;
  }

  async function followRejudge() {
    const answer = await get(`/lti/api/class/rejudges/${rejudgeId}`);
    const view = await answer.json();
    rejudgeState.textContent = `${view.state.replace(/_/g, " ")}: ${view.graded} of ${view.total} graded, ` +
      `${view.changed.length} change`;
    showMatrix(view);
    if (view.state === "queued" || view.state === "running") { setTimeout(followRejudge, 700); return; }
    applyButton.hidden = !(view.state === "done" && view.dry_run);
  }

  document.getElementById("rejudge").addEventListener("click", async () => {
    rejudgeState.textContent = "Starting...";
    const answer = await post("/lti/api/class/rejudges");
    const view = await answer.json();
    if (!answer.ok) { rejudgeState.textContent = view.message || `error ${answer.status}`; return; }
    rejudgeId = view.id;
    followRejudge();
  });
  applyButton.addEventListener("click", async () => {
    const answer = await post(`/lti/api/class/rejudges/${rejudgeId}/apply`);
    const view = await answer.json();
    applyButton.hidden = true;
    rejudgeState.textContent = answer.ok ? `applied: ${view.changed.length} verdicts changed` :
      (view.message || `error ${answer.status}`);
  });

  document.getElementById("download-csv").addEventListener("click", async () => {
    const answer = await get("/lti/api/class.csv");
    const blob = await answer.blob();
    const link = document.createElement("a");
    link.href = URL.createObjectURL(blob);
    link.download = `${document.getElementById("class").dataset.problem}-class.csv`;
    document.body.append(link); link.click(); link.remove();
  });
  load().catch((error) => { state.textContent = `The class could not be loaded: ${error}`; });
})();
