/**
 * The viewer's one script (served as /assets/viewer.js; a report never carries it). It sorts a `table.sortable` by
 * the clicked column, filters a `table.filterable` by words typed above it (a row's text and its `data-filter`
 * words), and on a page whose body has
 * `data-live` fetches the page again every few seconds and swaps the body in place, restoring which <details> are
 * open, the scroll position, sort and filter, so reading is not interrupted. Plain DOM, no dependency.
 */
export function viewerScript(intervalMs: number): string {
  return `"use strict";
(() => {
  const INTERVAL_MS = ${Math.max(250, Math.round(intervalMs))};
  const sortState = new Map();
  const filterState = new Map();

  const tableKey = (table, index) => table.id || "table-" + index;
  const cellValue = (row, column) => {
    const cell = row.cells[column];
    if (!cell) return "";
    const raw = cell.dataset.sort !== undefined ? cell.dataset.sort : cell.textContent.trim();
    const number = Number.parseFloat(raw.replace("\\u2212", "-").replace(/^\\+/, ""));
    return raw !== "" && Number.isFinite(number) && /^[-+\\u2212]?[\\d.]/.test(raw) ? number : raw.toLowerCase();
  };
  const compare = (a, b) =>
    typeof a === "number" && typeof b === "number" ? a - b : String(a).localeCompare(String(b), undefined, { numeric: true });

  function applySort(table, key) {
    const state = sortState.get(key);
    const body = table.tBodies[0];
    if (!state || !body) return;
    const rows = Array.from(body.rows);
    rows.sort((x, y) => compare(cellValue(x, state.column), cellValue(y, state.column)) * state.direction);
    for (const row of rows) body.appendChild(row);
    table.querySelectorAll("thead th").forEach((th, i) => {
      th.dataset.sorted = i === state.column ? (state.direction > 0 ? "asc" : "desc") : "";
    });
  }

  function applyFilter(table, key) {
    const words = (filterState.get(key) || "").toLowerCase().split(/\\s+/).filter(Boolean);
    const body = table.tBodies[0];
    if (!body) return;
    let shown = 0;
    for (const row of Array.from(body.rows)) {
      // A row's data-filter adds the words its cells only show by colour or synonym (an outcome: passed, failed).
      const text = (row.textContent + " " + (row.dataset.filter || "")).toLowerCase();
      const keep = words.every((word) => text.includes(word));
      row.hidden = !keep;
      if (keep) shown++;
    }
    const count = table.previousElementSibling && table.previousElementSibling.querySelector(".filter-count");
    if (count) count.textContent = words.length ? shown + " of " + body.rows.length + " rows" : "";
  }

  function enhance() {
    document.querySelectorAll("table.sortable, table.filterable").forEach((table, index) => {
      const key = tableKey(table, index);
      if (table.classList.contains("sortable")) {
        table.querySelectorAll("thead tr:last-child th").forEach((th, column) => {
          th.classList.add("sort-handle");
          th.title = "sort by this column";
          th.addEventListener("click", () => {
            const state = sortState.get(key);
            sortState.set(key, { column, direction: state && state.column === column ? -state.direction : 1 });
            applySort(table, key);
          });
        });
        applySort(table, key);
      }
      if (table.classList.contains("filterable")) {
        const bar = document.createElement("div");
        bar.className = "filter-bar";
        const input = document.createElement("input");
        input.type = "search";
        input.placeholder = "filter rows (e.g. terminal failed)";
        input.className = "table-filter";
        input.dataset.table = key;
        input.value = filterState.get(key) || "";
        const count = document.createElement("span");
        count.className = "filter-count muted small";
        input.addEventListener("input", () => {
          filterState.set(key, input.value);
          applyFilter(table, key);
        });
        bar.append(input, count);
        table.before(bar);
        applyFilter(table, key);
      }
    });
  }

  /** Where a <details> sits: its own id, else the nearest id above it and its index there. */
  function detailsKey(details) {
    if (details.id) return "#" + details.id;
    const owner = details.parentElement && details.parentElement.closest("[id]");
    const scope = owner || document.body;
    return (owner ? owner.id : "") + ":" + Array.from(scope.querySelectorAll("details")).indexOf(details);
  }

  async function update() {
    let response;
    try {
      response = await fetch(location.href, { cache: "no-store", credentials: "same-origin" });
    } catch {
      return true;
    }
    if (!response.ok) return true;
    const next = new DOMParser().parseFromString(await response.text(), "text/html");
    const open = new Map();
    document.querySelectorAll("details").forEach((d) => open.set(detailsKey(d), d.open));
    const active = document.activeElement && document.activeElement.classList.contains("table-filter")
      ? document.activeElement.dataset.table : null;
    const x = window.scrollX;
    const y = window.scrollY;
    document.body.replaceChildren(...Array.from(next.body.childNodes).map((n) => document.importNode(n, true)));
    document.querySelectorAll("details").forEach((d) => {
      const was = open.get(detailsKey(d));
      if (was !== undefined) d.open = was;
    });
    enhance();
    if (active) {
      const input = document.querySelector('input.table-filter[data-table="' + active + '"]');
      if (input) input.focus();
    }
    window.scrollTo(x, y);
    const live = next.body.hasAttribute("data-live");
    if (!live) document.body.removeAttribute("data-live");
    else document.body.setAttribute("data-live", "true");
    document.title = next.title;
    return live;
  }

  let updates = 0;
  async function loop() {
    const live = await update();
    updates++;
    document.documentElement.dataset.updates = String(updates);
    if (live) setTimeout(loop, INTERVAL_MS);
  }

  enhance();
  if (document.body.hasAttribute("data-live")) setTimeout(loop, INTERVAL_MS);
})();
`;
}
