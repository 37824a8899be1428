/// The status pages' stylesheet and script, served from the exporter itself (the
/// Content-Security-Policy allows nothing else): no framework, no external resource.
enum StatusAssets {
    static let style = Array("""
    :root { color-scheme: light dark; --ok: #15803d; --warn: #b45309; --bad: #b91c1c; --muted: #6b7280; }
    body { font-family: system-ui, -apple-system, "Segoe UI", "Noto Sans", "PingFang SC", "Microsoft YaHei", sans-serif;
           margin: 0 auto; padding: 0.5rem 1rem 2rem; max-width: 80rem; line-height: 1.4; }
    header { display: flex; flex-wrap: wrap; align-items: baseline; justify-content: space-between; gap: 0.5rem; }
    h1 { font-size: 1.4rem; margin: 0.5rem 0; overflow-wrap: anywhere; }
    h2 { font-size: 1.1rem; margin-top: 1.5rem; }
    nav.lang a { margin-left: 0.5rem; }
    .scroll { overflow-x: auto; }
    table { border-collapse: collapse; width: 100%; font-size: 0.9rem; }
    th, td { text-align: left; padding: 0.3rem 0.5rem; border-bottom: 1px solid rgba(128, 128, 128, 0.3);
             vertical-align: top; white-space: nowrap; max-width: 18rem; overflow: hidden; text-overflow: ellipsis; }
    table.readings td, #server-table td { white-space: normal; overflow-wrap: anywhere; max-width: none; }
    thead th { position: sticky; top: 0; background: Canvas; }
    .badge { display: inline-block; padding: 0 0.4rem; border-radius: 0.3rem; white-space: nowrap; }
    .state-mains .badge { background: rgba(21, 128, 61, 0.15); color: var(--ok); }
    .state-battery .badge, .state-fault .badge { background: var(--bad); color: #fff; font-weight: bold; }
    .state-disconnected .badge, .state-stale .badge, .state-bypass .badge, .state-alarm .badge {
        background: var(--warn); color: #fff; }
    .state-test .badge, .state-unknown .badge { background: rgba(128, 128, 128, 0.2); }
    tr.attention td:first-child { border-left: 4px solid var(--bad); }
    tr.unhealthy td:nth-child(2) { color: var(--bad); font-weight: bold; }
    tr.healthy td:nth-child(2) { color: var(--ok); }
    .summary { font-weight: bold; }
    .updated, .note { color: var(--muted); font-size: 0.85rem; }
    .charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(18rem, 1fr)); gap: 1rem; }
    figure.chart { margin: 0; }
    figure.chart svg { width: 100%; height: auto; }
    .chart .grid { stroke: rgba(128, 128, 128, 0.35); stroke-width: 1; }
    .chart .axis { fill: currentColor; font-size: 11px; }
    .chart .line { fill: none; stroke: #2563eb; stroke-width: 2; }
    .chart .dot { fill: #2563eb; }
    pre.exposition { font-size: 0.75rem; overflow-x: auto; white-space: pre; }
    @media (max-width: 40rem) {
        body { padding: 0.25rem 0.5rem 1rem; }
        th, td { padding: 0.25rem; font-size: 0.8rem; max-width: 10rem; }
        #ups-table td:first-child, #ups-table th:first-child { position: sticky; left: 0; background: Canvas; }
    }

    """.utf8)

    /// Updates `/status` in place from its JSON (the body's `data-json`, every `data-refresh`
    /// seconds), writing text only (`textContent`): nothing from the JSON becomes markup.
    static let script = Array("""
    (function () {
      "use strict";
      var body = document.body;
      var source = body.getAttribute("data-json");
      var every = parseInt(body.getAttribute("data-refresh"), 10);
      if (!source || !(every > 0) || !window.fetch) { return; }
      function row(cells, className, link) {
        var tr = document.createElement("tr");
        tr.className = className;
        if (link) {
          var first = document.createElement("td");
          var a = document.createElement("a");
          a.href = link.href;
          a.textContent = link.name;
          first.appendChild(a);
          tr.appendChild(first);
        }
        cells.forEach(function (cell, index) {
          var td = document.createElement("td");
          if (link && index === 0) {
            var badge = document.createElement("span");
            badge.className = "badge";
            badge.textContent = cell;
            td.className = "state";
            td.appendChild(badge);
          } else {
            td.textContent = cell;
          }
          tr.appendChild(td);
        });
        return tr;
      }
      function replace(table, rows) {
        if (!table || !table.tBodies[0]) { return; }
        var tbody = document.createElement("tbody");
        rows.forEach(function (tr) { tbody.appendChild(tr); });
        table.replaceChild(tbody, table.tBodies[0]);
      }
      function update() {
        fetch(source, { credentials: "same-origin", cache: "no-store" }).then(function (response) {
          if (!response.ok) { throw new Error(String(response.status)); }
          return response.json();
        }).then(function (data) {
          replace(document.getElementById("ups-table"), data.ups.map(function (ups) {
            return row(ups.cells, "state-" + ups.state + (ups.attention ? " attention" : ""), ups);
          }));
          replace(document.getElementById("server-table"), data.servers.map(function (server) {
            return row(server.cells, server.healthy ? "healthy" : "unhealthy", null);
          }));
          document.getElementById("summary").textContent = data.summary;
          document.getElementById("updated").textContent = data.updated;
        }).catch(function () { /* the next refresh tries again */ });
      }
      window.setInterval(update, every * 1000);
    })();

    """.utf8)
}
