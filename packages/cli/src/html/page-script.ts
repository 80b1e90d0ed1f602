/**
 * The run page's script: draws the timeline from the embedded JSON. A run of up to 1,000 steps
 * is drawn whole at once; a longer one draws its first 200 steps and the rest as the reader
 * scrolls near the end or jumps to a step (`body[data-ready]` once the first are drawn,
 * `body[data-drawn]` counts the steps drawn). Log text
 * only ever enters the page as text nodes (`textContent`), never as markup. Folds fill their
 * contents when first opened. Keys: j / k next / previous step with incidents.
 */
export const PAGE_SCRIPT = String.raw`
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("run-data").textContent);
  var steps = data.steps, timeline = document.getElementById("timeline");
  var byStep = {}, inSpan = {}, repeatedSig = {};
  // An incident filed after the last recorded step (a check at the end) is shown on the last one.
  function stepOfIncident(inc) { return Math.max(0, Math.min(inc.step, steps.length - 1)); }
  data.incidents.forEach(function (inc, i) { (byStep[stepOfIncident(inc)] = byStep[stepOfIncident(inc)] || []).push(i); });
  function sig(c) { return c.name + "\u0000" + c.input; }
  data.spans.forEach(function (s) {
    for (var k = s.from; k <= s.to; k++) inSpan[k] = true;
    var last = steps[s.to];
    if (!last) return;
    last.calls.forEach(function (c) { for (var k = s.from; k <= s.to; k++) (repeatedSig[k] = repeatedSig[k] || {})[sig(c)] = true; });
  });
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function pre(label, text, cls) {
    var wrap = el("div");
    wrap.appendChild(el("div", "muted", label));
    var p = el("pre", cls);
    if (cls === "diff") text.split("\n").forEach(function (line) {
      var c = line.charAt(0) === "+" && line.slice(0, 3) !== "+++" ? "add" : line.charAt(0) === "-" && line.slice(0, 3) !== "---" ? "del" : "";
      p.appendChild(el("span", c, line + "\n"));
    });
    else p.textContent = text;
    wrap.appendChild(p);
    return wrap;
  }
  function lazyFold(cls, title, fill) {
    var d = el("details", cls), s = el("summary", null, title), filled = false;
    d.appendChild(s);
    // Filled when first opened; \`fillNow\` lets a jump fill it at once, so the step has its height before it is scrolled to.
    d.fillNow = function () { if (!filled) { filled = true; fill(d); } };
    d.addEventListener("toggle", function () { if (d.open) d.fillNow(); });
    return d;
  }
  function shortInput(c) { var t = c.input.replace(/\s+/g, " "); return t.length > 90 ? t.slice(0, 89) + "\u2026" : t; }
  function callFold(c, repeated) {
    var title = c.name + "  " + shortInput(c) + (c.exit !== undefined ? "  \u2192 exit " + c.exit : "") + (c.state === "error" && c.exit === undefined ? "  \u2192 error" : "") + (c.diff ? "  (edit " + (c.path || "") + ")" : "");
    return lazyFold("call" + (repeated ? " repeated" : ""), title, function (d) {
      d.appendChild(pre("input", c.input));
      if (c.output) d.appendChild(pre("output", c.output));
      if (c.error) d.appendChild(pre("error", c.error));
      if (c.diff) d.appendChild(pre("diff of " + (c.path || ""), c.diff, "diff"));
      if (!c.output && !c.error && !c.diff) d.appendChild(el("div", "muted", c.state === "pending" ? "no result recorded" : "no output"));
    });
  }
  function describe(inc) {
    var d = inc.detail || {};
    if (typeof d.detail === "string") return d.detail;
    return Object.keys(d).map(function (k) { var v = JSON.stringify(d[k]); return k + "=" + (v && v.length > 60 ? v.slice(0, 59) + "\u2026" : v); }).join(" ");
  }
  function header(s, incs) {
    var h = el("header"), a = el("a", "n", "#" + s.n);
    a.href = "#step-" + s.n;
    h.appendChild(a);
    if (s.line) h.appendChild(el("span", "muted", "line " + s.line));
    if (s.tokens) h.appendChild(el("span", "muted", s.tokens + " tokens"));
    s.calls.forEach(function (c) {
      var bad = c.state === "error" || (c.exit !== undefined && c.exit !== 0);
      h.appendChild(el("span", "chip" + (bad ? " bad" : c.exit === 0 ? " ok" : ""), c.name + (c.exit !== undefined ? " exit " + c.exit : bad ? " error" : "") + (c.diff ? " edit" : "")));
    });
    if (s.error) h.appendChild(el("span", "chip bad", "model error"));
    if (data.firstLoop === s.n) h.appendChild(el("span", "chip mark", "first loop began here"));
    if (data.stop && Math.min(data.stop.step, steps.length - 1) === s.n) h.appendChild(el("span", "chip mark", "loopguard would stop here: " + data.stop.reason));
    incs.forEach(function (i) { var inc = data.incidents[i]; h.appendChild(el("span", "kind kind-" + inc.kind, inc.detector + " \u00b7 " + inc.action)); });
    return h;
  }
  function stepNode(s) {
    var incs = byStep[s.n] || [], reps = repeatedSig[s.n] || {};
    var a = el("article", "step" + (inSpan[s.n] ? " in-span" : "") + (incs.length ? " has-incident" : ""));
    a.id = "step-" + s.n;
    a.tabIndex = -1;
    a.appendChild(header(s, incs));
    s.users.forEach(function (u) { a.appendChild(el("div", "user", u)); });
    if (s.reasoning) a.appendChild(lazyFold("reasoning", "reasoning (" + s.reasoning.length + " characters)", function (d) { d.appendChild(el("pre", null, s.reasoning)); }));
    if (s.text) a.appendChild(el("div", "text", s.text));
    s.calls.forEach(function (c) { a.appendChild(callFold(c, !!reps[sig(c)])); });
    if (s.error) a.appendChild(pre("model error", s.error));
    if (incs.length) {
      var ul = el("ul", "step-incidents");
      incs.forEach(function (i) {
        var inc = data.incidents[i], li = el("li");
        li.id = "incident-" + i;
        li.appendChild(el("span", "kind kind-" + inc.kind, inc.kind));
        li.appendChild(document.createTextNode(" " + inc.detector + " \u2192 " + inc.action + ": "));
        li.appendChild(el("span", "muted", describe(inc)));
        ul.appendChild(li);
      });
      a.appendChild(ul);
    }
    return a;
  }
  // A long run draws its first steps at once and the rest as the reader scrolls or jumps:
  // a page of 10,000 steps opens as fast as one of 200.
  var drawn = 0, SLICE = 200, FIRST = steps.length <= 1000 ? steps.length : SLICE;
  function drawUpTo(n) {
    var frag = document.createDocumentFragment();
    for (; drawn < steps.length && drawn <= n; drawn++) frag.appendChild(stepNode(steps[drawn]));
    timeline.appendChild(frag);
    document.body.setAttribute("data-drawn", String(drawn));
    more.hidden = drawn >= steps.length;
  }
  var more = el("p", "muted", "");
  more.id = "more";
  timeline.parentNode.insertBefore(more, timeline.nextSibling);
  function drawFirst() {
    drawUpTo(FIRST - 1);
    more.textContent = "Later steps are drawn as you scroll; go to any step with the box above.";
    if ("IntersectionObserver" in window) new IntersectionObserver(function (es) { if (es[0].isIntersecting) drawUpTo(drawn + SLICE - 1); }, { rootMargin: "1500px" }).observe(more);
    document.body.setAttribute("data-ready", "1");
    if (location.hash) reveal(location.hash.slice(1));
  }
  var go = document.getElementById("goto");
  if (go) go.addEventListener("submit", function (e) {
    e.preventDefault();
    var n = parseInt(go.elements.namedItem("step").value, 10);
    if (n >= 0 && n < steps.length) { history.replaceState(null, "", "#step-" + n); reveal("step-" + n); }
  });
  function reveal(id) {
    var m = /^step-(\d+)$/.exec(id) || /^incident-(\d+)$/.exec(id);
    if (!m) return;
    var inc = data.incidents[+m[1]];
    var n = id.indexOf("step-") === 0 ? +m[1] : inc ? stepOfIncident(inc) : undefined;
    if (n === undefined) return;
    drawUpTo(n);
    var a = document.getElementById("step-" + n);
    if (!a) return;
    Array.prototype.forEach.call(a.querySelectorAll("details"), function (d) { d.open = true; if (d.fillNow) d.fillNow(); });
    var prev = document.querySelector(".step.focused");
    if (prev) prev.classList.remove("focused");
    a.classList.add("focused");
    a.scrollIntoView({ block: "start" });
    a.focus({ preventScroll: true });
  }
  document.addEventListener("click", function (e) {
    var t = e.target.closest ? e.target.closest("a[href^='#step-'],a[href^='#incident-']") : null;
    if (!t) return;
    e.preventDefault();
    var id = t.getAttribute("href").slice(1);
    history.replaceState(null, "", "#" + id);
    reveal(id);
  });
  var incidentSteps = Object.keys(byStep).map(Number).sort(function (x, y) { return x - y; });
  document.addEventListener("keydown", function (e) {
    if (e.target.closest && e.target.closest("input,textarea")) return;
    if (e.key !== "j" && e.key !== "k") return;
    var cur = document.querySelector(".step.focused"), at = cur ? +cur.id.slice(5) : -1;
    var next = e.key === "j" ? incidentSteps.find(function (s) { return s > at; }) : incidentSteps.filter(function (s) { return s < at; }).pop();
    if (next !== undefined) reveal("step-" + next);
  });
  drawFirst();
})();
`
