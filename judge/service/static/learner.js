// The learner page's script: editor (Python highlighting, Tab indentation, draft kept), submit, live
// state, verdict, earlier submissions.  Plain DOM, no library; talks to /lti/api/submissions with the
// session cookie and the CSRF token from <meta name="csrf-token">.  Every word it writes comes from the page's
// <script type="application/json" id="judge-words"> block, in the page's language (the script has no English of
// its own); its API calls ask for that language too (?lang=).
"use strict";
(function () {
  var wordsData = JSON.parse(document.getElementById("judge-words").textContent);
  var LANG = wordsData.lang, WORDS = wordsData.words;
  var pluralRules = window.Intl && Intl.PluralRules ? new Intl.PluralRules(LANG) : null;
  function t(key, params) {  // a text in the page's language, its {name} placeholders filled from params
    var text = WORDS[key];
    if (text === undefined) return key;
    if (typeof text === "object") {  // a counted text: its form for params.count
      var category = pluralRules ? pluralRules.select(params.count) : (params.count === 1 ? "one" : "other");
      text = text[category] || text.other;
    }
    return text.replace(/\{(\w+)\}/g, function (all, name) {
      return params && params[name] !== undefined && params[name] !== null ? String(params[name]) : all;
    });
  }
  var csrf = document.querySelector('meta[name="csrf-token"]').getAttribute("content");
  var app = document.getElementById("app");
  var editor = document.getElementById("editor");
  var highlight = document.getElementById("highlight");
  var submitButton = document.getElementById("submit");
  var stateLine = document.getElementById("state");
  var banner = document.getElementById("problem-banner");
  var draftKey = app.getAttribute("data-draft-key");
  var INDENT = "    ";

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === "text") node.textContent = attrs[k]; else node.setAttribute(k, attrs[k]);
    });
    (children || []).forEach(function (c) { if (c) node.appendChild(typeof c === "string" ? document.createTextNode(c) : c); });
    return node;
  }

  // -- highlighting --------------------------------------------------------------------------
  var KEYWORDS = "False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield match case".split(" ");
  var BUILTINS = "abs all any bool dict enumerate float int len list max min print range reversed round set sorted str sum tuple type zip isinstance super".split(" ");
  var TOKEN = /(#[^\n]*)|((?:[rRbBuUfF]{0,2})(?:"""[\s\S]*?(?:"""|$)|'''[\s\S]*?(?:'''|$)|"(?:\\.|[^"\\\n])*"?|'(?:\\.|[^'\\\n])*'?))|(\b(?:0[xXoObB][0-9a-fA-F_]+|\d[\d_]*\.?\d*(?:[eE][+-]?\d+)?j?|\.\d+(?:[eE][+-]?\d+)?)\b)|([A-Za-z_][A-Za-z0-9_]*)/g;
  function escapeHtml(s) { return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;"); }
  function render(source) {
    var out = "", last = 0, m, previous = "";
    TOKEN.lastIndex = 0;
    while ((m = TOKEN.exec(source)) !== null) {
      out += escapeHtml(source.slice(last, m.index));
      var text = escapeHtml(m[0]), cls = null;
      if (m[1]) cls = "com"; else if (m[2]) cls = "str"; else if (m[3]) cls = "num";
      else if (KEYWORDS.indexOf(m[0]) >= 0) cls = "kw";
      else if (previous === "def" || previous === "class") cls = "fn";
      else if (BUILTINS.indexOf(m[0]) >= 0) cls = "bi";
      if (m[4]) previous = m[0];
      out += cls ? '<span class="tok-' + cls + '">' + text + "</span>" : text;
      last = TOKEN.lastIndex;
      if (m[0].length === 0) TOKEN.lastIndex++;
    }
    return out + escapeHtml(source.slice(last)) + "\n";
  }
  function refresh() {
    highlight.innerHTML = render(editor.value);
    highlight.parentNode.scrollTop = editor.scrollTop;
    highlight.parentNode.scrollLeft = editor.scrollLeft;
  }

  // -- the draft, kept in this browser (storage may be refused inside a frame: then not kept) -----
  function saveDraft() { try { window.localStorage.setItem(draftKey, editor.value); } catch (e) { /* not kept */ } }
  try { var kept = window.localStorage.getItem(draftKey); if (kept) editor.value = kept; } catch (e) { /* none */ }

  // -- editing keys: Tab indents (Esc first to leave with Tab), Enter keeps the indentation ------
  var escaped = false;
  function replaceSelection(start, end, text, selStart, selEnd) {
    editor.setRangeText(text, start, end, "end");
    if (selStart !== undefined) editor.setSelectionRange(selStart, selEnd);
    refresh(); saveDraft();
  }
  editor.addEventListener("keydown", function (ev) {
    if (ev.key === "Escape") { escaped = true; return; }
    if (ev.key === "Enter" && (ev.ctrlKey || ev.metaKey)) { ev.preventDefault(); submit(); return; }
    var value = editor.value, start = editor.selectionStart, end = editor.selectionEnd;
    if (ev.key === "Tab" && !escaped && !ev.altKey && !ev.ctrlKey && !ev.metaKey) {
      ev.preventDefault();
      var lineStart = value.lastIndexOf("\n", start - 1) + 1;
      if (start === end && !ev.shiftKey) {
        var col = start - lineStart;
        replaceSelection(start, end, INDENT.slice(col % 4));
        return;
      }
      var block = value.slice(lineStart, end);
      var lines = block.split("\n");
      var changed = lines.map(function (line) {
        if (!ev.shiftKey) return INDENT + line;
        var n = 0; while (n < 4 && line.charAt(n) === " ") n++;
        return line.slice(n);
      }).join("\n");
      replaceSelection(lineStart, end, changed, lineStart, lineStart + changed.length);
      return;
    }
    escaped = false;
    if (ev.key === "Enter" && !ev.shiftKey && start === end) {
      ev.preventDefault();
      var ls = value.lastIndexOf("\n", start - 1) + 1;
      var indent = /^[ \t]*/.exec(value.slice(ls, start))[0];
      if (/:\s*$/.test(value.slice(ls, start))) indent += INDENT;
      replaceSelection(start, end, "\n" + indent);
    }
  });
  editor.addEventListener("input", function () { refresh(); saveDraft(); });
  editor.addEventListener("scroll", refresh);
  refresh();

  // -- the page's API ----------------------------------------------------------------------------
  function api(method, path, body) {
    var init = { method: method, credentials: "same-origin", headers: { "X-CSRF-Token": csrf, "Accept": "application/json" } };
    if (body !== undefined) { init.headers["Content-Type"] = "application/json"; init.body = JSON.stringify(body); }
    return fetch(path + (path.indexOf("?") < 0 ? "?" : "&") + "lang=" + encodeURIComponent(LANG), init).catch(function () {
      throw new Error(t("unreachable"));  // the browser's own words for a network failure are English
    }).then(function (r) {
      return r.json().catch(function () { return {}; }).then(function (data) {
        if (!r.ok) { var err = new Error(refusal(data, r.status)); err.status = r.status; err.code = data.code; throw err; }
        return data;
      });
    });
  }
  // the page API's refusal in the page's language: by its code when the page knows it, else the HTTP status (the
  // JSON's message is English, for programs)
  function refusal(data, status) {
    return WORDS["code." + data.code] !== undefined ? t("code." + data.code) : t("failed", { status: status });
  }
  function showProblem(err) {
    banner.textContent = err.message;
    banner.hidden = false;
  }

  // -- verdicts ------------------------------------------------------------------------------------
  function percent(score) { return (Math.round(score * 1000) / 10).toLocaleString(LANG); }  // 87,5 in French
  function oneDecimal(x) { return x.toLocaleString(LANG, { minimumFractionDigits: 1, maximumFractionDigits: 1 }); }
  function words(status) { return WORDS["status." + status] !== undefined ? t("status." + status) : status; }
  function fmt(x) { return x === null || x === undefined ? "NaN/inf" : (Math.abs(x) >= 1e4 || (Math.abs(x) < 1e-3 && x !== 0) ? x.toExponential(4) : x.toFixed(6)); }

  function windowTable(win) {
    var head = el("tr", {}, [el("th", { scope: "col", text: (win.row_label || t("row")) + " \\ " + (win.col_label || t("column")) })]);
    win.cols.forEach(function (c) { head.appendChild(el("th", { scope: "col", text: String(c) })); });
    var rows = [head];
    win.rows.forEach(function (r, i) {
      var tr = el("tr", {}, [el("th", { scope: "row", text: String(r) })]);
      win.cols.forEach(function (c, j) {
        var worst = win.worst && win.worst[0] === r && win.worst[1] === c;
        var td = el("td", worst ? { "class": "worst" } : {}, [el("div", { text: t("cell_expected", { value: fmt(win.expected[i][j]) }) }),
          el("div", { text: t("cell_got", { value: fmt(win.got[i][j]) }) })]);
        tr.appendChild(td);
      });
      rows.push(tr);
    });
    return el("div", { "class": "table-wrap" }, [el("table", { "class": "window" }, [el("caption", { text: t("window") + (win.where ? " (" + win.where + ")" : "") })].concat(rows))]);
  }

  function differs(what) { return WORDS["differs." + what] !== undefined ? t("differs." + what) : what; }
  function nested(values) {  // a small array as rows of numbers; a tuple output's items by name
    if (values !== null && typeof values === "object" && !Array.isArray(values))
      return Object.keys(values).map(function (k) { return k + " = " + nested(values[k]); }).join("\n");
    if (!Array.isArray(values)) return fmt(values);
    if (!values.length || !Array.isArray(values[0])) return "[" + values.map(fmt).join(", ") + "]";
    return "[" + values.map(nested).join(",\n ") + "]";
  }
  function counterexample(c) {  // made up by the judge from the domain and public cases: shown in full, it tells nothing of a hidden case
    var parts = [el("h3", { text: t("counterexample") }),
      el("p", { "class": "hint", text: t("counterexample_hint") }),
      el("pre", { "class": "counterexample-call", text: c.call }),
      el("p", { text: differs(c.differs) })];
    var rows = [];
    if (c.expected_raises) rows.push([t("expected"), t("raises", { exception: c.expected_raises })]);
    else rows.push([t("expected"), c.expected === null || c.expected === undefined ? t("too_large") : nested(c.expected)]);
    if (c.got !== null && c.got !== undefined) rows.push([t("got"), nested(c.got)]);
    else if (c.got_text) rows.push([/^raises/.test(c.differs) ? t("your_code_raised") : t("your_function_returned"), c.got_text]);  // the learner's own words
    parts.push(el("div", { "class": "table-wrap" }, [el("table", { "class": "counterexample" }, rows.map(function (r) {
      return el("tr", {}, [el("th", { scope: "row", text: r[0] }), el("td", {}, [el("pre", { text: r[1] })])]);
    }))]));
    if (c.message) parts.push(el("p", { "class": "message", text: c.message }));
    return el("section", { "class": "counterexample", "aria-label": t("counterexample_label") }, parts);
  }

  function showPictures(pictures) {
    var box = document.getElementById("pictures");
    if (!box) return;
    box.textContent = "";
    if (pictures.length) box.appendChild(el("h3", { text: t("pictures") }));
    pictures.filter(function (p) { return p.url; }).forEach(function (p) {
      box.appendChild(el("figure", { "class": "pictures" }, [el("img", { src: p.url, alt: p.title || p.kind }), el("figcaption", { text: p.title || "" })]));
    });
  }

  function renderVerdict(sub) {
    var v = sub.verdict, box = document.getElementById("verdict");
    var early = v.phase === "public";  // the public cases' verdict, shown while the hidden cases still run
    box.textContent = "";
    var status = el("p", {}, [el("span", { "class": "status " + v.status, text: early ? t("public_status", { status: words(v.status) }) : words(v.status) }),
      el("span", { "class": "score", text: t(early ? "score_public" : "score", { score: percent(v.score) }) })]);
    box.appendChild(status);
    if (early) box.appendChild(el("p", { "class": "hint phase", text: t("hidden_running") }));
    if (v.notebook) box.appendChild(el("p", { "class": "hint notebook", text: t("notebook",
      { count: v.notebook.cells_used.length, cells: v.notebook.cells_used.join(", ") }) }));
    if (v.message) box.appendChild(el("p", { "class": "message", text: v.message }));
    if (v.diagnoses && v.diagnoses.length) {
      box.appendChild(el("h3", { text: t("what_went_wrong") }));
      box.appendChild(el("ul", { "class": "diagnoses" }, v.diagnoses.map(function (d) {
        return el("li", {}, [el("span", { text: d.message }), d.evidence ? el("div", { "class": "hint", text: d.evidence }) : null]);
      })));
    }
    if (v.counterexample) box.appendChild(counterexample(v.counterexample));
    var failing = (v.cases || []).filter(function (c) { return c.status !== "accepted" && c.visibility === "public"; })[0];
    if (failing && failing.facts && failing.facts.window && failing.facts.window.rows.length) {
      box.appendChild(el("h3", { text: t("first_failing", { "case": failing.id }) }));
      box.appendChild(windowTable(failing.facts.window));
    }
    box.appendChild(el("div", { id: "pictures" }));
    if (v.pictures) showPictures(v.pictures);
    if (v.cases && v.cases.length) {
      var rows = v.cases.map(function (c) {
        var ok = c.status === "accepted";
        return el("tr", {}, [el("td", { text: c.id }), el("td", { text: c.function }), el("td", { text: WORDS["visibility." + c.visibility] !== undefined ? t("visibility." + c.visibility) : c.visibility }),
          el("td", { "class": ok ? "accepted" : "failed", text: words(c.status) }),
          el("td", { text: c.time_ms !== null && c.time_ms !== undefined ? t("ms", { ms: oneDecimal(c.time_ms) }) : "" }),
          el("td", { text: ok ? "" : (c.message || "") })]);
      });
      var shown = v.shown;
      if (shown && shown.withheld_cases) {  // the feedback policy shows hidden cases' score only: one row for them
        rows.push(el("tr", {}, [el("td", { text: t("withheld", { count: shown.withheld_cases }) }), el("td", { text: "" }),
          el("td", { text: t("visibility.hidden") }), el("td", { "class": shown.withheld_passed === shown.withheld_cases ? "accepted" : "failed",
            text: t("passed_of", { passed: shown.withheld_passed, count: shown.withheld_cases }) }), el("td", { text: "" }),
          el("td", { text: (shown.probes_exceeded ? t("probes_exceeded") +
            (shown.probes_back_at ? t("probes_back_at", { time: shown.probes_back_at }) : "")
            : t("score_only")) + (shown.more_after ? t("more_after", { time: shown.more_after }) : "") })]));
      }
      var head = el("tr", {}, ["case", "function", "visibility", "status", "time", "details"].map(function (h) { return el("th", { scope: "col", text: t("head." + h) }); }));
      box.appendChild(el("h3", { text: t("cases") }));
      box.appendChild(el("div", { "class": "table-wrap" }, [el("table", { "class": "cases" }, [head].concat(rows))]));
    }
    ["stdout", "stderr"].forEach(function (name) {
      var out = v[name];
      if (out && out.text) {
        box.appendChild(el("details", {}, [el("summary", { text: t("printed", { stream: name }) }),
          el("pre", { text: out.text + (out.truncated ? "\n" + t("cut") : "") })]));
      }
    });
    var section = document.getElementById("verdict-section");
    section.hidden = false;
    section.setAttribute("data-submission", sub.id);
    section.setAttribute("data-phase", early ? "public" : "final");
    if (early) section.removeAttribute("data-status");  // data-status is the verdict of record's alone
    else section.setAttribute("data-status", v.status);
  }

  // -- a notebook instead of the editor: sent as it is (the judge extracts the functions, names cells) --------
  var notebookInput = document.getElementById("notebook-file");
  if (notebookInput) notebookInput.addEventListener("change", function () {
    var file = notebookInput.files && notebookInput.files[0];
    if (!file) return;
    file.text().then(function (text) { notebookInput.value = ""; submit(text); })
      .catch(function (err) { showProblem(new Error(t("notebook_unreadable", { error: err.message }))); });
  });

  // -- submit and follow ------------------------------------------------------------------------------
  var busy = false;
  function follow(id, started) {
    return api("GET", "/lti/api/submissions/" + encodeURIComponent(id)).then(function (sub) {
      if (sub.state !== "done") {
        var early = sub.verdict && sub.verdict.phase === "public";
        stateLine.textContent = t(early ? "state.public_judged" : sub.state === "running" ? "state.running" : "state.queued");
        var section = document.getElementById("verdict-section");
        if (early && !(section.getAttribute("data-submission") === id && section.getAttribute("data-phase") === "public")) renderVerdict(sub);
        return new Promise(function (ok) { setTimeout(ok, 300); }).then(function () { return follow(id, started); });
      }
      var seconds = (performance.now() - started) / 1000;
      stateLine.textContent = t("state.judged_in", { seconds: oneDecimal(seconds) });
      renderVerdict(sub);
      document.getElementById("verdict-h").focus();
      loadHistory();
      if (sub.verdict && sub.verdict.pictures === null && sub.verdict.status === "wrong_answer") waitForPictures(id, 40);
      return sub;
    });
  }
  function waitForPictures(id, triesLeft) {  // drawn after the verdict is stored
    if (triesLeft <= 0) return;
    setTimeout(function () {
      var section = document.getElementById("verdict-section");
      if (section.getAttribute("data-submission") !== id) return;  // another verdict is shown now
      api("GET", "/lti/api/submissions/" + encodeURIComponent(id)).then(function (sub) {
        if (sub.verdict.pictures === null) return waitForPictures(id, triesLeft - 1);
        if (sub.verdict.pictures.length) showPictures(sub.verdict.pictures);
      }).catch(function () { /* pictures are a bonus */ });
    }, 1000);
  }

  function submit(source) {  // the editor's text, or a notebook file's (the judge grades what its cells define)
    if (busy) return;
    busy = true; submitButton.disabled = true; banner.hidden = true;
    stateLine.textContent = t("state.sending");
    var started = performance.now();
    api("POST", "/lti/api/submissions", { source: typeof source === "string" ? source : editor.value })
      .then(function (sub) { stateLine.textContent = t("state.queued"); return follow(sub.id, started); })
      .catch(function (err) { stateLine.textContent = ""; showProblem(err); })
      .then(function () { busy = false; submitButton.disabled = false; });
  }
  submitButton.addEventListener("click", submit);

  // -- earlier submissions -------------------------------------------------------------------------------
  function loadHistory() {
    return api("GET", "/lti/api/submissions").then(function (data) {
      var list = document.getElementById("history");
      list.textContent = "";
      document.getElementById("history-empty").hidden = data.submissions.length > 0;
      data.submissions.forEach(function (sub) {
        var when = sub.created_at ? new Date(sub.created_at).toLocaleString(LANG) : "";
        var label = sub.verdict && sub.state === "done" ? t("history_item", { status: words(sub.verdict.status), score: percent(sub.verdict.score) })
          : t(sub.state === "running" ? "state.running" : "state.queued");
        var button = el("button", { type: "button", "class": "link", text: when + ": " + label });
        button.addEventListener("click", function () {
          api("GET", "/lti/api/submissions/" + encodeURIComponent(sub.id)).then(function (full) {
            if (full.verdict) { renderVerdict(full); document.getElementById("verdict-h").focus(); }
          }).catch(showProblem);
        });
        list.appendChild(el("li", {}, [button]));
      });
    }).catch(showProblem);
  }
  loadHistory();
})();
