/** The index of several runs' pages: one row per run, sortable by any column, each linking to its page. */
import { escapeHtml as h } from "./escape.js"
import { pageHead } from "./run-page.js"

export interface IndexRow {
  readonly file: string
  /** The run's page, relative to the index; absent for a file that failed. */
  readonly href?: string
  readonly format: string
  readonly steps: number
  readonly incidents: number
  /** "step N detector" of the first incident, or "". */
  readonly firstIncident: string
  readonly firstIncidentStep: number | null
  /** The first exit, "failed: …" for a file that could not be audited. */
  readonly outcome: string
}

const SORT_SCRIPT = String.raw`
(function () {
  "use strict";
  var table = document.getElementById("runs"), body = table.tBodies[0];
  Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, col) {
    var b = th.querySelector("button");
    b.addEventListener("click", function () {
      var asc = th.getAttribute("aria-sort") !== "ascending";
      Array.prototype.forEach.call(table.tHead.rows[0].cells, function (c) { c.removeAttribute("aria-sort"); });
      th.setAttribute("aria-sort", asc ? "ascending" : "descending");
      var rows = Array.prototype.slice.call(body.rows);
      rows.sort(function (x, y) {
        var a = x.cells[col].getAttribute("data-v"), b2 = y.cells[col].getAttribute("data-v");
        var na = parseFloat(a), nb = parseFloat(b2);
        var c = !isNaN(na) && !isNaN(nb) ? na - nb : a.localeCompare(b2);
        return asc ? c : -c;
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
  document.body.setAttribute("data-ready", "1");
})();
`

const cell = (sortValue: string | number, html: string): string => `<td data-v="${h(String(sortValue))}">${html}</td>`

const row = (r: IndexRow): string =>
  `<tr>${[
    cell(r.file, r.href === undefined ? h(r.file) : `<a href="${h(r.href)}">${h(r.file)}</a>`),
    cell(r.format, h(r.format)),
    cell(r.steps, String(r.steps)),
    cell(r.incidents, String(r.incidents)),
    cell(r.firstIncidentStep ?? Number.MAX_SAFE_INTEGER, h(r.firstIncident)),
    cell(r.outcome, h(r.outcome))
  ].join("")}</tr>`

const COLUMNS = ["run", "format", "steps", "incidents", "first incident", "outcome"]

export const renderIndexPage = (rows: ReadonlyArray<IndexRow>): string =>
  pageHead("loopguard audit: runs", [SORT_SCRIPT]) +
  `<body><main><h1>loopguard audit: ${rows.length} run${rows.length === 1 ? "" : "s"}</h1>` +
  `<p class="muted">Sort by a column with its header button; each run links to its page.</p>` +
  `<div class="table-wrap"><table id="runs"><thead><tr>${COLUMNS.map((c) => `<th><button type="button">${h(c)}</button></th>`).join("")}</tr></thead>` +
  `<tbody>${rows.map(row).join("")}</tbody></table></div></main><script>${SORT_SCRIPT}</script></body></html>`
