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
    table.readings td { white-space: normal; overflow-wrap: anywhere; max-width: none; text-align: right; }
    /* A UPS's readings in columns of name–value pairs: the charts stay near the top. */
    table.readings tbody { display: grid; grid-template-columns: repeat(auto-fill, minmax(17rem, 1fr)); column-gap: 1.5rem; }
    table.readings tr { display: flex; justify-content: space-between; gap: 0.75rem;
                        border-bottom: 1px solid rgba(128, 128, 128, 0.3); }
    table.readings th, table.readings td { border: none; }
    table.readings th { flex: none; max-width: none; overflow: visible; }
    table.readings td { flex: 1 1 auto; min-width: 0; }
    #server-table tr { display: flex; flex-wrap: wrap; column-gap: 1rem; padding: 0.3rem 0;
                       border-bottom: 1px solid rgba(128, 128, 128, 0.3); }
    #server-table td { border: none; padding: 0 0.25rem; max-width: none; overflow: visible; }
    #server-table td:last-child { white-space: normal; overflow-wrap: break-word; flex: 1 1 20rem; min-width: 0; }
    #ups-table td.name { max-width: 14rem; }
    tr.site th { background: rgba(128, 128, 128, 0.12); font-weight: bold; position: static; }
    svg.spark { width: 6rem; height: 1.5rem; display: block; }
    .spark-load { fill: none; stroke: #2563eb; stroke-width: 1.5; }
    circle.spark-load { fill: #2563eb; stroke: none; }
    .spark-battery { fill: none; stroke: var(--ok); stroke-width: 1.5; }
    circle.spark-battery { fill: var(--ok); stroke: none; }
    #latest-events td:last-child { white-space: normal; overflow-wrap: break-word; max-width: 32rem; }
    thead th { position: sticky; top: 0; background: Canvas; white-space: normal; word-break: keep-all; vertical-align: bottom; }
    .badge { display: inline-block; padding: 0 0.4rem; border-radius: 0.3rem; white-space: nowrap; }
    .state-mains .badge { background: rgba(21, 128, 61, 0.15); color: var(--ok); }
    .state-battery .badge, .state-fault .badge { background: var(--bad); color: #fff; font-weight: bold; }
    .state-disconnected .badge, .state-stale .badge, .state-bypass .badge, .state-alarm .badge {
        background: var(--warn); color: #fff; }
    .state-test .badge, .state-unknown .badge { background: rgba(128, 128, 128, 0.2); }
    tr.attention td:first-child { border-left: 4px solid var(--bad); }
    td.due { color: var(--bad); font-weight: 600; }
    #site-table tr.attention td:first-child { border-left: 4px solid var(--bad); }
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
    #event-list tr.event-bad td:nth-child(2), #latest-events tr.event-bad td:nth-child(3) { color: var(--bad); font-weight: bold; }
    #event-list tr.event-ok td:nth-child(2), #latest-events tr.event-ok td:nth-child(3) { color: var(--ok); }
    details.exposition { margin-top: 1.5rem; }
    details.exposition summary { cursor: pointer; font-weight: bold; }
    pre.exposition { font-size: 0.75rem; overflow-x: auto; white-space: pre; }
    @media (max-width: 40rem) {
        body { padding: 0.25rem 0.5rem 1rem; }
        th, td { padding: 0.25rem; font-size: 0.8rem; max-width: 10rem; }
        /* The fleet's tables as cards: a row a card, each cell named by its column. */
        table.cards thead { display: none; }
        table.cards, table.cards tbody { display: block; }
        table.cards tr { display: grid; grid-template-columns: 1fr 1fr; column-gap: 0.5rem; padding: 0.35rem 0;
                         border-bottom: 1px solid rgba(128, 128, 128, 0.3); }
        table.cards td, table.cards th { display: block; border: none; max-width: none; white-space: normal;
                                         overflow-wrap: break-word; padding: 0.1rem 0.25rem; }
        table.cards td:first-child, table.cards tr.site th { grid-column: 1 / -1; font-weight: bold; }
        table.cards td[data-label]::before { content: attr(data-label) ": "; color: var(--muted); }
        table.cards tr.attention td:first-child, #site-table tr.attention td:first-child { border-left: none; }
        table.cards tr.attention { border-left: 4px solid var(--bad); padding-left: 0.25rem; }
        #ups-table td.name { max-width: none; }
        #ups-table td.spark svg.spark { display: inline-block; vertical-align: middle; }
    }

    """.utf8)

    /// Updates `/status` in place from its JSON (the body's `data-json`, every `data-refresh`
    /// seconds): its tables (the sites, the UPSs with their sparklines, the latest events, the
    /// servers), summary and time, writing text only (`textContent`) and numbers into SVG
    /// attributes: nothing from the JSON becomes markup. On a UPS page (no `data-json`): a link
    /// marked `data-inplace="ID"` (the range switch, the event filter) replaces the element `ID`
    /// with the one of the page it links to, fetched from the exporter (the address follows, so
    /// reload and back work), and the page reloads itself every `data-refresh` seconds.
    static let script = Array("""
    (function () {
      "use strict";
      var body = document.body;
      var source = body.getAttribute("data-json");
      var every = parseInt(body.getAttribute("data-refresh"), 10);
      var svgNS = "http://www.w3.org/2000/svg";
      var reloading = null;
      // A UPS page reloads itself every `seconds` (its meta refresh is for a browser without the
      // script); a range switched in place sets it again from the page it fetched.
      function reloadIn(seconds) {
        if (reloading !== null) { window.clearTimeout(reloading); }
        reloading = seconds > 0 ? window.setTimeout(function () { window.location.reload(); }, seconds * 1000) : null;
      }
      if (!source) {
        reloadIn(every);
        if (window.fetch) { inPlace(); }
        return;
      }
      if (!(every > 0)) { return; }
      if (!window.fetch) { reloadIn(every); return; }

      function labels(table) {
        var head = table && table.tHead && table.tHead.rows[0];
        return head ? Array.prototype.map.call(head.cells, function (th) { return th.textContent; }) : [];
      }
      function cell(tr, text, label, className) {
        var td = document.createElement("td");
        if (label) { td.setAttribute("data-label", label); }
        if (className) { td.className = className; }
        if (text !== null) { td.textContent = text; }
        tr.appendChild(td);
        return td;
      }
      function link(td, href, text) {
        var a = document.createElement("a");
        a.href = href;
        a.textContent = text;
        td.appendChild(a);
      }
      // The sparkline as the server draws it: x 2 units a half hour, y 23 (0 %) to 1 (100 %).
      function spark(data, label) {
        var svg = document.createElementNS(svgNS, "svg");
        svg.setAttribute("class", "spark");
        svg.setAttribute("viewBox", "0 0 96 24");
        svg.setAttribute("role", "img");
        svg.setAttribute("aria-label", label);
        [["load", "spark-load"], ["battery", "spark-battery"]].forEach(function (line) {
          var run = [];
          function flush() {
            if (run.length === 1) {
              var dot = document.createElementNS(svgNS, "circle");
              dot.setAttribute("class", line[1]);
              dot.setAttribute("cx", run[0][0]);
              dot.setAttribute("cy", run[0][1]);
              dot.setAttribute("r", "1");
              svg.appendChild(dot);
            } else if (run.length > 1) {
              var polyline = document.createElementNS(svgNS, "polyline");
              polyline.setAttribute("class", line[1]);
              polyline.setAttribute("points", run.map(function (p) { return p[0] + "," + p[1]; }).join(" "));
              svg.appendChild(polyline);
            }
            run = [];
          }
          ((data && data[line[0]]) || []).forEach(function (value, index) {
            if (typeof value !== "number" || !isFinite(value)) { flush(); return; }
            run.push([String(index * 2 + 1), (23 - Math.min(Math.max(value, 0), 100) * 0.22).toFixed(1)]);
          });
          flush();
        });
        return svg;
      }
      function replace(table, rows) {
        if (!table || !table.tBodies[0]) { return; }
        var tbody = document.createElement("tbody");
        rows.forEach(function (tr) { tbody.appendChild(tr); });
        table.replaceChild(tbody, table.tBodies[0]);
      }
      function plain(cells, className, names) {
        var tr = document.createElement("tr");
        tr.className = className;
        cells.forEach(function (text, index) { cell(tr, text, names ? names[index] : null); });
        return tr;
      }
      function update() {
        fetch(source, { credentials: "same-origin", cache: "no-store" }).then(function (response) {
          if (!response.ok) { throw new Error(String(response.status)); }
          return response.json();
        }).then(function (data) {
          var upsTable = document.getElementById("ups-table");
          var names = labels(upsTable);
          var rows = [];
          var site = null;
          var headings = {};
          (data.sites || []).forEach(function (entry) { headings[entry.name] = entry.heading; });
          data.ups.forEach(function (ups) {
            if (data.sites && data.sites.length > 1 && ups.site !== site) {
              var group = document.createElement("tr");
              group.className = "site";
              var th = document.createElement("th");
              th.colSpan = names.length;
              th.scope = "colgroup";
              th.textContent = headings[ups.site] || ups.site;
              group.appendChild(th);
              rows.push(group);
              site = ups.site;
            }
            var tr = document.createElement("tr");
            tr.className = "state-" + ups.state + (ups.attention ? " attention" : "");
            link(cell(tr, null, null, "name"), ups.href, ups.name);
            var badge = document.createElement("span");
            badge.className = "badge";
            badge.textContent = ups.cells[0];
            cell(tr, null, names[1], "state").appendChild(badge);
            cell(tr, null, names[2], "spark").appendChild(spark(ups.spark, names[2]));
            ups.cells.slice(1).forEach(function (text, index) { cell(tr, text, names[index + 3]); });
            rows.push(tr);
          });
          replace(upsTable, rows);
          var siteTable = document.getElementById("site-table");
          var siteNames = labels(siteTable);
          replace(siteTable, (data.sites || []).map(function (entry) {
            return plain(entry.cells, entry.attention > 0 ? "attention" : "normal", siteNames);
          }));
          var eventTable = document.getElementById("latest-events");
          var eventNames = labels(eventTable);
          if (data.events) {
            replace(eventTable, data.events.map(function (event) {
              var tr = document.createElement("tr");
              tr.className = "event-" + event.severity;
              cell(tr, event.cells[0], eventNames[0]);
              var who = cell(tr, event.href ? null : event.cells[1], eventNames[1]);
              if (event.href) { link(who, event.href, event.cells[1]); }
              cell(tr, event.cells[2], eventNames[2]);
              cell(tr, event.cells[3], eventNames[3]);
              return tr;
            }));
          }
          replace(document.getElementById("server-table"), data.servers.map(function (server) {
            return plain(server.cells, server.healthy ? "healthy" : "unhealthy", null);
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
            reloadIn(parseInt(page.body.getAttribute("data-refresh"), 10));
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
