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
    .charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 28rem), 1fr)); gap: 1rem; }
    figure.chart { margin: 0; }
    figure.chart svg { width: 100%; height: auto; }
    .chart .grid { stroke: rgba(128, 128, 128, 0.35); stroke-width: 1; }
    .chart .axis { fill: currentColor; font-size: 11px; }
    .chart .line { fill: none; stroke: #2563eb; stroke-width: 2; }
    .chart .dot { fill: #2563eb; }
    .chart .band { fill: rgba(37, 99, 235, 0.2); stroke: none; }
    .chart line.band { stroke: rgba(37, 99, 235, 0.35); stroke-width: 3; }
    .chart .outage { fill: rgba(185, 28, 28, 0.13); }
    .chart .tick { stroke: rgba(128, 128, 128, 0.6); stroke-width: 1; }
    .chart .event { stroke-width: 1.5; }
    .chart .event-bad { stroke: var(--bad); }
    .chart .event-ok { stroke: var(--ok); }
    .chart .event-info { stroke: var(--muted); stroke-dasharray: 3 3; }
    nav.ranges, nav.kinds { margin: 0.5rem 0; }
    nav.ranges a, nav.kinds a { display: inline-block; margin: 0.1rem 0.15rem; padding: 0.1rem 0.55rem; white-space: nowrap;
        border: 1px solid rgba(128, 128, 128, 0.45); border-radius: 0.3rem; text-decoration: none; }
    nav.ranges a[aria-current="page"], nav.kinds a[aria-current="page"] { background: #2563eb; border-color: #2563eb; color: #fff; }
    .problem { color: var(--bad); font-weight: bold; }
    section.reasons { border-left: 4px solid var(--bad); padding: 0 0.75rem; margin: 0.5rem 0; }
    section.reasons h2 { margin-top: 0.5rem; }
    #event-list td:last-child { white-space: normal; overflow-wrap: anywhere; max-width: 40rem; }
    tr.event-bad td:nth-child(2) { color: var(--bad); font-weight: bold; }
    tr.event-ok td:nth-child(2) { color: var(--ok); }
    details.exposition { margin-top: 1.5rem; }
    details.exposition summary { cursor: pointer; font-weight: bold; }
    pre.exposition { font-size: 0.75rem; overflow-x: auto; white-space: pre; }
    @media (max-width: 40rem) {
        body { padding: 0.25rem 0.5rem 1rem; }
        th, td { padding: 0.25rem; font-size: 0.8rem; max-width: 10rem; }
        #ups-table td:first-child, #ups-table th:first-child { position: sticky; left: 0; background: Canvas; }
    }

    """.utf8)

    /// Updates `/status` in place from its JSON (the body's `data-json`, every `data-refresh`
    /// seconds), writing text only (`textContent`): nothing from the JSON becomes markup. On a
    /// UPS page (no `data-json`): a link marked `data-inplace="ID"` (the range switch, the event
    /// filter) replaces the element `ID` with the one of the page it links to, fetched from the
    /// exporter (the address follows, so reload and back work), and the page reloads itself
    /// every `data-refresh` seconds.
    static let script = Array("""
    (function () {
      "use strict";
      var body = document.body;
      var source = body.getAttribute("data-json");
      var every = parseInt(body.getAttribute("data-refresh"), 10);
      if (!window.fetch) { return; }
      if (!source) {
        if (every > 0) { window.setTimeout(function () { window.location.reload(); }, every * 1000); }
        inPlace();
        return;
      }
      if (!(every > 0)) { return; }
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

      function inPlace() {
        if (!window.DOMParser || !window.history || !window.history.pushState) { return; }
        function load(href, id, push) {
          fetch(href, { credentials: "same-origin", cache: "no-store" }).then(function (response) {
            if (!response.ok && response.status !== 400) { throw new Error(String(response.status)); }
            return response.text();
          }).then(function (text) {
            var page = new DOMParser().parseFromString(text, "text/html");
            var fresh = page.getElementById(id);
            var old = document.getElementById(id);
            if (!fresh || !old) { throw new Error("no " + id); }
            old.parentNode.replaceChild(document.importNode(fresh, true), old);
            var lang = page.querySelector("nav.lang");
            var oldLang = document.querySelector("nav.lang");
            if (lang && oldLang) { oldLang.parentNode.replaceChild(document.importNode(lang, true), oldLang); }
            if (push) { window.history.pushState({ inplace: id }, "", href); }
          }).catch(function () { window.location.href = href; });
        }
        document.addEventListener("click", function (event) {
          var link = event.target && event.target.closest ? event.target.closest("a[data-inplace]") : null;
          if (!link || event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey || event.altKey) { return; }
          event.preventDefault();
          load(link.href, link.getAttribute("data-inplace"), true);
        });
        window.addEventListener("popstate", function () { window.location.reload(); });
      }
    })();

    """.utf8)
}
