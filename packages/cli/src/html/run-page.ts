/**
 * A run as one self-contained HTML page: the summary and the incidents (grouped by the step,
 * i.e. the event, that filed them) are written out; the timeline is drawn by the page's script
 * from the embedded data. Nothing is loaded from anywhere (docs/audit.md).
 */
import { callInputKey } from "@loopguard/core/model"
import type { AuditIncident } from "@loopguard/effect/audit"
import { contentSecurityPolicy, escapeHtml as h, jsonForScript } from "./escape.js"
import type { RunPage } from "./page-model.js"
import { PAGE_SCRIPT } from "./page-script.js"
import { PAGE_STYLE } from "./page-style.js"
import { summarize, type RunSummary } from "./summary.js"

/** The head of every page: no network, no script but the page's own `scripts`, the shared stylesheet. */
export const pageHead = (title: string, scripts: ReadonlyArray<string>): string =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
  `<meta http-equiv="Content-Security-Policy" content="${h(contentSecurityPolicy(scripts))}"><meta name="referrer" content="no-referrer">` +
  `<title>${h(title)}</title><style>${PAGE_STYLE}</style></head>`

const card = (label: string, value: string, sub = ""): string => `<div class="card"><span class="muted">${h(label)}</span><b>${h(value)}</b>${sub === "" ? "" : `<span class="muted">${h(sub)}</span>`}</div>`

const kindBadge = (kind: string): string => `<span class="kind kind-${h(kind)}">${h(kind)}</span>`

/** What loopguard would have done: the first exit, else the first incident that acts. */
const wouldHave = (page: RunPage, s: RunSummary): { value: string; sub: string } => {
  if (page.exit !== null && page.exit.reason !== "final") return { value: `stop: ${page.exit.reason}`, sub: `at step ${page.exit.step}` }
  if (s.firstAction !== null) return { value: `${s.firstAction.action} (${s.firstAction.detector})`, sub: `at step ${s.firstAction.step}` }
  return { value: "let it run", sub: page.exit === null ? "no exit" : `ended at step ${page.exit.step}` }
}

const summaryCards = (page: RunPage, s: RunSummary): string => {
  const would = wouldHave(page, s)
  const kinds = s.byKind.map((k) => `${k.count} ${k.kind}`).join(", ")
  return `<div class="cards">${[
    card("steps", String(page.steps.length)),
    card("incidents", String(page.incidents.length), kinds),
    card("first loop began", s.firstLoop === null ? "none" : `step ${s.firstLoop.step}`, s.firstLoop === null ? "" : `${s.firstLoop.detector}, seen at step ${s.firstLoop.firedAt}`),
    card("loopguard would have", would.value, would.sub)
  ].join("")}</div>`
}

const detectorTable = (s: RunSummary): string =>
  s.byDetector.length === 0
    ? `<p class="muted">No incident: no detector fired on this run.</p>`
    : `<div class="table-wrap"><table><thead><tr><th>detector</th><th>kind</th><th>incidents</th></tr></thead><tbody>${s.byDetector
        .map((d) => `<tr><td>${h(d.detector)}</td><td>${kindBadge(d.kind)}</td><td>${d.count}</td></tr>`)
        .join("")}</tbody></table></div>`

/** One line per event: the step, then each incident it filed as a link to that step. */
const eventList = (incidents: ReadonlyArray<AuditIncident>): string => {
  const groups = new Map<number, Array<number>>()
  incidents.forEach((inc, i) => groups.set(inc.step, [...(groups.get(inc.step) ?? []), i]))
  const items = [...groups].map(
    ([step, ids]) =>
      `<li><a href="#step-${step}">step ${step}</a> <span class="muted">${ids.length} incident${ids.length === 1 ? "" : "s"}</span><br>${ids
        .map((i) => `<a class="inc-link" href="#incident-${i}" data-step="${step}">${kindBadge(incidents[i]!.kind)} ${h(incidents[i]!.detector)} → ${h(incidents[i]!.action)}</a>`)
        .join("")}</li>`
  )
  return items.length === 0 ? "" : `<h2>Incidents by event</h2><ul class="events">${items.join("")}</ul>`
}

const noteList = (notes: ReadonlyArray<string>): string =>
  notes.length === 0 ? "" : `<details><summary>${notes.length} reader note${notes.length === 1 ? "" : "s"}</summary><ul class="notes">${notes.map((n) => `<li>${h(n)}</li>`).join("")}</ul></details>`

/** A call as the detectors tell calls apart (`callInputKey`: a shell call's description left out), from its input as the page holds it. */
const callIdentity = (name: string, input: string): string => {
  try {
    return `${name}\u0000${callInputKey(JSON.parse(input))}`
  } catch {
    return `${name}\u0000${input}`
  }
}

/** The page of one run. */
export const renderRunPage = (page: RunPage): string => {
  const signatures = page.steps.map((st) => new Set(st.calls.map((c) => callIdentity(c.name, c.input))))
  const none: ReadonlySet<string> = new Set()
  const s = summarize(page.incidents, (n) => signatures[n] ?? none)
  const stop = page.exit !== null && page.exit.reason !== "final" ? page.exit : null
  const data = { steps: page.steps, incidents: page.incidents, spans: s.spans, stop, firstLoop: s.firstLoop?.step ?? null }
  return (
    pageHead(`${page.title} · loopguard audit`, [PAGE_SCRIPT]) +
    `<body><main><h1>${h(page.title)}</h1><div class="muted">${h(page.file)} · ${h(page.format)} · ${page.steps.length} steps</div>` +
    summaryCards(page, s) +
    `<h2>Incidents by detector</h2>${detectorTable(s)}${eventList(page.incidents)}${noteList(page.notes)}` +
    `<h2>Timeline</h2><p class="muted keys">Steps in a repeated span are shaded; repeated calls are highlighted. Keys: j / k next / previous step with incidents; Enter or Space opens a fold.</p>` +
    `<form id="goto" class="keys"><label>Go to step <input name="step" type="number" min="0" max="${Math.max(0, page.steps.length - 1)}" inputmode="numeric"></label> <button type="submit">Go</button></form>` +
    `<div id="timeline"></div></main>` +
    `<script type="application/json" id="run-data">${jsonForScript(data)}</script><script>${PAGE_SCRIPT}</script></body></html>`
  )
}
