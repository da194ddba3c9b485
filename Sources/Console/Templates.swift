import Mustache

/// The console's pages as Mustache templates (docs/console.md): compiled into the binary, so a release build and
/// the .deb need no resource files. `{{name}}` escapes HTML; no template uses `{{{…}}}`, and none holds a script
/// or a style attribute (`Content-Security-Policy: default-src 'self'`).
enum Templates {
    /// Every template by name; the pages include `header` and `footer`, and `taprow` for a tap.
    static func library() throws -> MustacheLibrary {
        var library = MustacheLibrary()
        for (name, text) in [
            ("header", header), ("footer", footer), ("taprow", tapRow), ("live", live), ("history", history),
            ("tags", tags), ("readers", readers), ("rules", rules), ("login", login), ("deliveries", deliveries),
            ("confirm", confirm), ("readonly", readOnly),
        ] {
            try library.register(text, named: name)
        }
        return library
    }

    static let header = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>{{layout.title}} · TagRouter</title>
        <link rel="stylesheet" href="/static/console.css">
        <script src="/static/console.js" defer></script>
        </head>
        <body data-csrf="{{layout.csrf}}">
        <header>
        <nav>
        <strong>TagRouter</strong>
        {{#layout.nav}}<a href="{{href}}"{{#current}} aria-current="page"{{/current}}>{{label}}</a>
        {{/layout.nav}}
        {{#layout.signedIn}}<span class="role">Signed in as {{layout.role}}</span> <form method="post" action="/logout" class="inline"><input type="hidden" name="csrf" value="{{layout.csrf}}"><button type="submit">Sign out</button></form>{{/layout.signedIn}}
        </nav>
        </header>
        <main>
        <h1>{{layout.title}}</h1>
        {{#layout.notice}}<p class="notice" role="status">{{layout.notice}}</p>{{/layout.notice}}
        {{#layout.problem}}<p class="problem" role="alert">{{layout.problem}}</p>{{/layout.problem}}

        """

    /// What a viewer's page says where an admin's has its forms.
    static let readOnly = """
        <p class="readonly">Signed in as a viewer: you can read this page but not change anything. Sign in with the admin password or a <code>tagrouter console-login</code> link to change it.</p>

        """

    static let footer = """
        </main>
        </body>
        </html>

        """

    static let tapRow = """
        <tr class="outcome-{{outcome}}"><td data-label="Time">{{time}}</td><td data-label="Reader">{{reader}}</td><td class="tag" data-label="Tag">{{tag}}</td><td class="uri" data-label="URI">{{#uriLink}}<a href="{{uriLink}}" rel="noopener noreferrer nofollow">{{uri}}</a>{{/uriLink}}{{^uriLink}}{{uri}}{{/uriLink}}</td><td data-label="Rule">{{rule}}</td><td class="outcome" data-label="Outcome">{{outcome}}{{#reason}} <span class="reason">{{reason}}</span>{{/reason}}</td><td data-label="Latency">{{latency}}</td></tr>

        """

    static let tapTableHead = """
        <thead><tr><th>Time</th><th>Reader</th><th>Tag</th><th>URI</th><th>Rule</th><th>Outcome</th><th>Latency</th></tr></thead>
        """

    static let live = """
        {{> header}}
        <section>
        <h2>On the readers now</h2>
        <ul id="presence">
        {{#readers}}<li>{{name}}: {{state}}</li>
        {{/readers}}
        {{^readers}}<li>No reader seen yet.</li>{{/readers}}
        </ul>
        </section>
        <section>
        <h2>Taps</h2>
        <p id="live-status" data-stream="/events">New taps appear here as they happen (with JavaScript); reload otherwise.</p>
        <div class="scroll"><table id="taps" class="cards">
        \(tapTableHead)
        <tbody>
        {{#taps}}{{> taprow}}{{/taps}}
        </tbody>
        </table></div>
        </section>
        {{> footer}}
        """

    static let history = """
        {{> header}}
        <form method="get" action="/history" class="filters">
        <label>Reader <input name="reader" value="{{filter.reader}}"></label>
        <label>Rule <input name="rule" value="{{filter.rule}}"></label>
        <label>Tag (name or UID) <input name="tag" value="{{filter.tag}}"></label>
        <label>Outcome <select name="outcome">{{#filter.outcomes}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/filter.outcomes}}</select></label>
        <label>Refused because <input name="reason" value="{{filter.reason}}" placeholder="disabled, expired…"></label>
        <label>From <input name="since" value="{{filter.since}}" placeholder="2026-12-01T08:00"></label>
        <label>Until <input name="until" value="{{filter.until}}" placeholder="2026-12-01T18:00"></label>
        <button type="submit">Show</button>
        </form>
        <p>Export these taps: <a href="{{exportCSV}}" download>CSV</a> · <a href="{{exportJSONL}}" download>JSON Lines</a></p>
        <div class="scroll"><table id="history" class="cards">
        \(tapTableHead)
        <tbody>
        {{#taps}}{{> taprow}}{{/taps}}
        </tbody>
        </table></div>
        {{^taps}}<p>No taps.</p>{{/taps}}
        {{#next}}<p><a href="{{next}}" rel="next">Older taps</a></p>{{/next}}
        {{> footer}}
        """

    static let tags = """
        {{> header}}
        <p>The tags file: <code>{{path}}</code>.</p>
        <section>
        <h2>Enroll by tapping</h2>
        {{^layout.canWrite}}{{> readonly}}{{/layout.canWrite}}
        {{#layout.canWrite}}
        <form method="post" action="/tags/enroll" id="enroll" data-waiting="tap-now">
        <input type="hidden" name="csrf" value="{{layout.csrf}}">
        <label>Name <input name="name" required></label>
        <label>Groups <input name="groups" placeholder="staff, night"></label>
        <label>Valid from <input name="validFrom" placeholder="YYYY-MM-DD"></label>
        <label>Valid until <input name="validUntil" placeholder="YYYY-MM-DD"></label>
        <label>Reader <select name="reader">{{#readers}}<option value="{{name}}">{{shownName}}</option>{{/readers}}</select></label>
        <button type="submit">Enroll</button>
        </form>
        <p id="tap-now" class="notice" hidden>Tap the tag on the reader now.</p>
        <p>After pressing Enroll, put the tag on the reader within a minute: the router holds that reader meanwhile and does nothing for the tag.</p>
        {{/layout.canWrite}}
        </section>
        <section>
        <h2>Enrolled tags</h2>
        <div class="scroll"><table id="tags" class="cards">
        <thead><tr><th>Name</th><th>UID</th><th>Groups</th><th>Valid</th><th>State</th><th>Note</th><th></th></tr></thead>
        <tbody>
        {{#tags}}<tr><td class="name" data-label="Name">{{shownName}}</td><td data-label="UID"><code>{{uid}}</code></td><td data-label="Groups">{{groups}}</td><td data-label="Valid">{{validity}}</td><td class="state" data-label="State">{{state}}</td><td data-label="Note">{{note}}</td><td class="actions">{{#layout.canWrite}}
        <form method="post" action="/tags/edit" class="inline"><input type="hidden" name="csrf" value="{{layout.csrf}}"><input type="hidden" name="tag" value="{{uid}}">{{#disabled}}<button type="submit" name="edit" value="enable">Enable</button>{{/disabled}}{{^disabled}}<button type="submit" name="edit" value="disable">Disable</button>{{/disabled}}</form>
        <form method="post" action="/tags/edit" class="inline" data-confirm="Remove this tag from the tags file?"><input type="hidden" name="csrf" value="{{layout.csrf}}"><input type="hidden" name="tag" value="{{uid}}"><button type="submit" name="edit" value="remove">Remove</button></form>
        <details><summary>Change</summary><form method="post" action="/tags/update"><input type="hidden" name="csrf" value="{{layout.csrf}}"><input type="hidden" name="uid" value="{{uid}}">
        <label>Name <input name="name" value="{{shownName}}" required></label>
        <label>Groups <input name="groups" value="{{groups}}"></label>
        <label>Valid from <input name="validFrom" value="{{validFrom}}" placeholder="YYYY-MM-DD"></label>
        <label>Valid until <input name="validUntil" value="{{validUntil}}" placeholder="YYYY-MM-DD"></label>
        <button type="submit">Save</button></form></details>
        {{/layout.canWrite}}</td></tr>
        {{/tags}}
        </tbody>
        </table></div>
        {{^tags}}<p>No tag is enrolled yet.</p>{{/tags}}
        </section>
        {{> footer}}
        """

    static let readers = """
        {{> header}}
        <div class="scroll"><table id="readers" class="cards">
        <thead><tr><th>Reader</th><th>State</th><th>Last tap</th><th>Feedback</th><th>Last error</th></tr></thead>
        <tbody>
        {{#readers}}<tr><td data-label="Reader">{{name}}</td><td data-label="State">{{state}}</td><td data-label="Last tap">{{lastTap}}</td><td data-label="Feedback">{{feedback}}</td><td data-label="Last error">{{lastError}}</td></tr>
        {{/readers}}
        </tbody>
        </table></div>
        {{^readers}}<p>No reader seen yet.</p>{{/readers}}
        {{> footer}}
        """

    static let deliveries = """
        {{> header}}
        {{^layout.canWrite}}{{> readonly}}{{/layout.canWrite}}
        <div class="scroll"><table id="deliveries" class="cards">
        <thead><tr><th>Id</th><th>Kind</th><th>Rule</th><th>Target</th><th>State</th><th>Attempts</th><th>Last error</th><th>Created</th><th></th></tr></thead>
        <tbody>
        {{#deliveries}}<tr><td data-label="Id">{{id}}</td><td data-label="Kind">{{kind}}</td><td data-label="Rule">{{rule}}</td><td class="uri" data-label="Target">{{target}}</td><td data-label="State">{{state}}</td><td data-label="Attempts">{{attempts}}</td><td data-label="Last error">{{lastError}}</td><td data-label="Created">{{created}}</td><td class="actions">{{#layout.canWrite}}
        <form method="post" action="/deliveries/retry" class="inline"><input type="hidden" name="csrf" value="{{layout.csrf}}"><input type="hidden" name="id" value="{{id}}"><button type="submit">Retry now</button></form>
        <a href="/deliveries/drop?id={{id}}">Drop…</a>
        {{/layout.canWrite}}</td></tr>
        {{/deliveries}}
        </tbody>
        </table></div>
        {{^deliveries}}<p>No delivery waits or failed.</p>{{/deliveries}}
        {{> footer}}
        """

    static let confirm = """
        {{> header}}
        <p>{{question}}</p>
        {{^layout.canWrite}}{{> readonly}}<p><a href="{{back}}">Back</a></p>{{/layout.canWrite}}
        {{#layout.canWrite}}
        <form method="post" action="{{action}}">
        <input type="hidden" name="csrf" value="{{layout.csrf}}">
        {{#fields}}<input type="hidden" name="{{name}}" value="{{value}}">{{/fields}}
        <input type="hidden" name="confirmed" value="yes">
        <button type="submit">{{button}}</button> <a href="{{back}}">Cancel</a>
        </form>
        {{/layout.canWrite}}
        {{> footer}}
        """

    static let rules = """
        {{> header}}
        <section>
        <h2>Loaded files</h2>
        <ul id="files">
        {{#files}}<li><code>{{.}}</code></li>
        {{/files}}
        </ul>
        </section>
        <section>
        <h2>tagrouter check</h2>
        <pre id="check" class="{{#hasErrors}}problem{{/hasErrors}}">{{check}}</pre>
        </section>
        <section>
        <h2>Match tester</h2>
        <form method="get" action="/rules">
        <label>URI <input name="uri" value="{{match.uri}}"></label>
        <label>UID <input name="uid" value="{{match.uid}}" placeholder="04A1B2C3D4E5F6"></label>
        <label>Reader <input name="reader" value="{{match.reader}}"></label>
        <button type="submit" name="explain" value="1">Explain</button>
        </form>
        {{#match.answer}}<pre id="explain">{{match.answer}}</pre>{{/match.answer}}
        </section>
        {{> footer}}
        """

    static let login = """
        {{> header}}
        {{#token}}
        <form method="post" action="/login/link">
        <input type="hidden" name="login" value="{{login}}">
        <input type="hidden" name="token" value="{{token}}">
        <button type="submit" id="use-link">Sign in with this link</button>
        </form>
        {{/token}}
        {{^token}}
        {{#hasPassword}}
        <form method="post" action="/login">
        <input type="hidden" name="login" value="{{login}}">
        <label>Password <input type="password" name="password" autocomplete="current-password" required></label>
        <button type="submit">Sign in</button>
        </form>
        {{/hasPassword}}
        <p>On the router's machine, <code>tagrouter console-login</code> prints a one-time sign-in link.</p>
        {{/token}}
        {{> footer}}
        """
}
