/// The console's one script and one style sheet, served from `/static/` (docs/console.md): hand-written, no
/// framework. The script only adds: the live feed (Server-Sent Events), a confirmation before a remove, and the
/// "tap the tag now" note; every page works without it but for the live view. Tag text is put into the page with
/// `textContent`, never as markup.
enum Assets {
    static let script = #"""
        "use strict";
        (function () {
          document.addEventListener("submit", function (event) {
            var form = event.target;
            if (form.dataset.confirm && !window.confirm(form.dataset.confirm)) {
              event.preventDefault();
              return;
            }
            if (form.dataset.waiting) {
              var note = document.getElementById(form.dataset.waiting);
              if (note) note.hidden = false;
            }
          });

          var status = document.getElementById("live-status");
          if (!status || !window.EventSource) return;

          function cell(row, text, label, className) {
            var td = document.createElement("td");
            td.dataset.label = label;
            if (className) td.className = className;
            td.textContent = text;
            row.appendChild(td);
            return td;
          }

          function tapRow(tap) {
            var row = document.createElement("tr");
            row.className = "outcome-" + tap.outcome;
            cell(row, tap.time, "Time");
            cell(row, tap.reader, "Reader");
            cell(row, tap.tag, "Tag", "tag");
            var uri = cell(row, "", "URI", "uri");
            if (tap.uriLink) {
              var link = document.createElement("a");
              link.href = tap.uriLink;
              link.rel = "noopener noreferrer nofollow";
              link.textContent = tap.uri;
              uri.appendChild(link);
            } else {
              uri.textContent = tap.uri;
            }
            cell(row, tap.rule, "Rule");
            var outcome = cell(row, tap.outcome, "Outcome", "outcome");
            if (tap.reason) {
              var reason = document.createElement("span");
              reason.className = "reason";
              reason.textContent = tap.reason;
              outcome.appendChild(document.createTextNode(" "));
              outcome.appendChild(reason);
            }
            cell(row, tap.latency, "Latency");
            return row;
          }

          var body = document.querySelector("#taps tbody");
          var presence = document.getElementById("presence");
          var source = new EventSource(status.dataset.stream);
          source.addEventListener("open", function () { status.textContent = "Live: connected."; });
          source.addEventListener("error", function () { status.textContent = "Live: reconnecting…"; });
          source.addEventListener("tap", function (event) {
            body.insertBefore(tapRow(JSON.parse(event.data)), body.firstChild);
            while (body.rows.length > 200) body.deleteRow(body.rows.length - 1);
          });
          source.addEventListener("presence", function (event) {
            var readers = JSON.parse(event.data);
            presence.replaceChildren();
            readers.forEach(function (reader) {
              var item = document.createElement("li");
              item.textContent = reader.name + ": " + reader.state;
              presence.appendChild(item);
            });
          });
        })();

        """#

    static let styleSheet = """
        :root { color-scheme: light dark; font-family: system-ui, sans-serif; line-height: 1.4; }
        body { margin: 0; }
        header { background: #234; color: #fff; padding: 0.5rem 1rem; }
        header nav { display: flex; flex-wrap: wrap; gap: 0.4rem 1rem; align-items: center; }
        header a { color: #fff; }
        header a[aria-current] { font-weight: bold; text-decoration: none; }
        main { padding: 0 1rem 2rem; max-width: 80rem; }
        h1 { font-size: 1.4rem; }
        h2 { font-size: 1.1rem; }
        .scroll { overflow-x: auto; }
        table { border-collapse: collapse; width: 100%; font-size: 0.95rem; }
        th, td { text-align: left; padding: 0.3rem 0.5rem; border-bottom: 1px solid #8884; vertical-align: top; }
        td.uri, td.tag, code, pre { overflow-wrap: anywhere; }
        pre { white-space: pre-wrap; background: #8881; padding: 0.5rem; }
        .outcome-denied td.outcome, .outcome-failed td.outcome, .problem { color: #b00; }
        .outcome-matched td.outcome { color: #070; }
        .notice { background: #ffd; color: #000; padding: 0.4rem; }
        p.problem { background: #fdd; padding: 0.4rem; }
        form.inline { display: inline; }
        form.filters, #enroll { display: flex; flex-wrap: wrap; gap: 0.5rem; align-items: end; }
        label { display: inline-flex; flex-direction: column; font-size: 0.9rem; }
        input, select, button { font-size: 1rem; padding: 0.35rem; }
        button { cursor: pointer; }
        @media (max-width: 40rem) {
          main { padding: 0 0.5rem 2rem; }
          label, input, select, button { width: 100%; }
          form.inline button { width: auto; }
          table.cards thead { display: none; }
          table.cards tr { display: block; border-bottom: 1px solid #8884; padding: 0.3rem 0; }
          table.cards td { display: flex; gap: 0.5rem; border: 0; padding: 0.1rem 0.3rem; }
          table.cards td::before { content: attr(data-label); font-weight: bold; flex: 0 0 5.5rem; }
          table.cards td.actions::before { content: none; }
        }

        """
}
