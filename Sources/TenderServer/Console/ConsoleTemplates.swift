import Mustache

/// The console's pages: one layout (header, navigation, main) around each page's body. Every
/// value is written with `{{ }}`, which escapes it; `{{{ }}}` is used only for the body and
/// charts the server rendered itself.
enum ConsoleTemplates {
    // The templates are part of the program: a mistake in one fails every test at once.
    static let layout = try! MustacheTemplate(string: """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>{{title}} · Tender console</title>
        <link rel="stylesheet" href="/assets/tender.css">
        </head>
        <body>
        <a class="skip" href="#main">Skip to content</a>
        <header class="bar"><div class="inner">
        <a class="brand" href="/console">Tender console</a>
        {{#signedIn}}
        <nav aria-label="Console">
        <ul>
        <li><a href="/console{{scope}}"{{#homeCurrent}} aria-current="page"{{/homeCurrent}}>Home</a></li>
        {{#merchantName}}<li><a href="/console/payments{{scope}}"{{#paymentsCurrent}} aria-current="page"{{/paymentsCurrent}}>Payments</a></li>
        <li><a href="/console/customers{{scope}}"{{#customersCurrent}} aria-current="page"{{/customersCurrent}}>Customers</a></li>
        <li><a href="/console/balance{{scope}}"{{#balanceCurrent}} aria-current="page"{{/balanceCurrent}}>Balance</a></li>
        <li><a href="/console/webhooks{{scope}}"{{#webhooksCurrent}} aria-current="page"{{/webhooksCurrent}}>Webhooks</a></li>{{/merchantName}}
        {{#isMarketplace}}<li><a href="/console/marketplace{{scope}}"{{#marketplaceCurrent}} aria-current="page"{{/marketplaceCurrent}}>Marketplace</a></li>{{/isMarketplace}}
        <li><a href="/console/explorer"{{#explorerCurrent}} aria-current="page"{{/explorerCurrent}}>Explorer</a></li>
        </ul>
        </nav>
        <span class="muted">{{who}}</span>
        <form method="post" action="/console/sign-out"><input type="hidden" name="csrf" value="{{csrf}}"><button class="secondary" type="submit">Sign out</button></form>
        {{/signedIn}}
        </div></header>
        <main id="main">
        {{{body}}}
        </main>
        </body>
        </html>
        """)

    static let signIn = try! MustacheTemplate(string: """
        <div class="card signin">
        <h1>Sign in</h1>
        {{#error}}<p class="notice error" role="alert">{{error}}</p>{{/error}}
        <p class="muted">With the admin key of the data directory (<code>admin.key</code>) to see every merchant, or with a merchant's secret key (<code>sk_test_…</code>) to see its own.</p>
        <form method="post" action="/console/sign-in">
        <input type="hidden" name="signin" value="{{token}}">
        <label for="key">Key</label>
        <input id="key" name="key" type="password" autocomplete="off" required>
        <button type="submit">Sign in</button>
        </form>
        </div>
        """)

    static let operatorHome = try! MustacheTemplate(string: """
        <h1>Merchants</h1>
        <div class="card"><div class="table-wrap">
        <table>
        <caption class="muted">{{count}} merchants</caption>
        <thead><tr><th scope="col">Name</th><th scope="col">Id</th><th scope="col" class="optional">Settlement account</th><th scope="col" class="num">Balance</th></tr></thead>
        <tbody>
        {{#merchants}}<tr><td><a href="/console?merchant={{id}}">{{name}}</a></td><td><code>{{id}}</code></td><td class="optional"><code>{{account}}</code></td><td class="num">{{balance}}</td></tr>{{/merchants}}
        </tbody>
        </table>
        </div></div>
        """)

    static let home = try! MustacheTemplate(string: """
        <p id="live-status" class="sr-only" aria-live="polite"></p>
        <div data-live="/console/live{{scope}}">
        <h1>{{merchantName}}</h1>
        <div class="grid">
        <section class="card" aria-labelledby="balance-h"><h2 id="balance-h">Balance</h2>{{#balances}}<p class="figure">{{amount}}</p>{{/balances}}<p class="muted">Available, on the ledger</p></section>
        <section class="card" aria-labelledby="paid-h"><h2 id="paid-h">Payments, {{days}} days</h2><p class="figure">{{succeeded}}</p><p class="muted">{{volume}}</p></section>
        <section class="card" aria-labelledby="rate-h"><h2 id="rate-h">Success rate</h2><p class="figure">{{successRate}}</p><p class="muted">{{failed}} failed</p></section>
        <section class="card" aria-labelledby="refund-h"><h2 id="refund-h">Refunded</h2><p class="figure">{{refunded}}</p><p class="muted">in {{days}} days</p></section>
        </div>
        {{^complete}}<p class="notice">More payments were made in these days than the home page reads at once; the figures cover the newest.</p>{{/complete}}
        <section class="card" aria-labelledby="volume-h"><h2 id="volume-h">Volume per day ({{volumeCurrency}})</h2>{{{volumeChart}}}</section>
        <section class="card" aria-labelledby="count-h"><h2 id="count-h">Payments per day</h2>{{{countChart}}}</section>
        <section class="card" aria-labelledby="recent-h"><h2 id="recent-h">Recent payments</h2>{{{recent}}}<p><a href="/console/payments{{scope}}">All payments</a></p></section>
        </div>
        <script src="/assets/console.js"></script>
        """)

    static let paymentsTable = try! MustacheTemplate(string: """
        <div class="table-wrap">
        <table>
        <thead><tr><th scope="col" class="num">Amount</th><th scope="col">Status</th><th scope="col">Method</th><th scope="col" class="optional">Description</th><th scope="col" class="optional">Id</th><th scope="col">Created</th></tr></thead>
        <tbody>
        {{#rows}}<tr><td class="num"><a href="/console/payments/{{id}}{{scope}}">{{amount}}</a></td><td><span class="badge {{tone}}">{{status}}</span></td><td>{{method}}</td><td class="optional">{{description}}</td><td class="optional"><code>{{id}}</code></td><td>{{created}}</td></tr>{{/rows}}
        {{^rows}}<tr><td colspan="6" class="muted">No payments.</td></tr>{{/rows}}
        </tbody>
        </table>
        </div>
        """)

    static let payments = try! MustacheTemplate(string: """
        <h1>Payments</h1>
        <form class="filters card" method="get" action="/console/payments" role="search" aria-label="Filter payments">
        {{#merchantID}}<input type="hidden" name="merchant" value="{{merchantID}}">{{/merchantID}}
        <label>Status<select name="status"><option value="">Any</option>{{#statuses}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{value}}</option>{{/statuses}}</select></label>
        <label>Method<select name="method"><option value="">Any</option>{{#methods}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{value}}</option>{{/methods}}</select></label>
        <label>Currency<select name="currency"><option value="">Any</option>{{#currencies}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{value}}</option>{{/currencies}}</select></label>
        <label>From amount<input name="min" inputmode="decimal" size="8" value="{{min}}"></label>
        <label>To amount<input name="max" inputmode="decimal" size="8" value="{{max}}"></label>
        <label>From date<input name="from" type="date" value="{{from}}"></label>
        <label>To date<input name="to" type="date" value="{{to}}"></label>
        <label>Id or e-mail<input name="q" size="24" value="{{q}}"></label>
        <button type="submit">Filter</button>
        </form>
        {{#error}}<p class="notice error" role="alert">{{error}}</p>{{/error}}
        <section class="card" aria-label="Payments found">{{{table}}}
        <div class="pager">{{#first}}<a href="{{first}}">Newest</a>{{/first}}{{#next}}<a href="{{next}}" rel="next">Older</a>{{/next}}</div>
        <p class="muted">{{scanned}} read for this page.</p>
        </section>
        """)

    static let payment = try! MustacheTemplate(string: """
        <p><a href="/console/payments{{scope}}">Payments</a></p>
        <h1>{{amount}} <span class="badge {{tone}}">{{status}}</span></h1>
        {{#notice}}<p class="notice" role="status">{{notice}}</p>{{/notice}}
        {{#error}}<p class="notice error" role="alert">{{error}}</p>{{/error}}
        <div class="grid">
        <section class="card" aria-labelledby="facts-h"><h2 id="facts-h">Payment</h2>
        <dl class="facts">
        <dt>Id</dt><dd><code>{{id}}</code></dd>
        <dt>Created</dt><dd>{{created}}</dd>
        {{#description}}<dt>Description</dt><dd>{{description}}</dd>{{/description}}
        {{#customer}}<dt>Customer</dt><dd><code>{{customer}}</code></dd>{{/customer}}
        <dt>Received</dt><dd>{{received}}</dd>
        <dt>Refunded</dt><dd>{{refunded}}</dd>
        {{#fee}}<dt>Fee</dt><dd>{{fee}}</dd><dt>Net</dt><dd>{{net}}</dd>{{/fee}}
        {{#ledger}}<dt>Settled by</dt><dd><a href="/console/explorer/transactions/{{ledger}}"><code>{{ledger}}</code></a></dd>{{/ledger}}
        {{#metadata}}<dt>{{key}}</dt><dd>{{value}}</dd>{{/metadata}}
        </dl></section>
        <section class="card" aria-labelledby="method-h"><h2 id="method-h">Payment method</h2>
        <dl class="facts">{{#methodFacts}}<dt>{{key}}</dt><dd>{{value}}</dd>{{/methodFacts}}</dl>
        {{^methodFacts}}<p class="muted">None yet.</p>{{/methodFacts}}
        </section>
        </div>
        <section class="card" aria-labelledby="timeline-h"><h2 id="timeline-h">Timeline</h2>
        <ol class="timeline">{{#timeline}}<li><strong>{{what}}</strong> <span class="muted">{{when}}</span>{{#detail}}<br>{{detail}}{{/detail}}</li>{{/timeline}}</ol>
        </section>
        {{#hasActions}}
        <section class="card" aria-labelledby="actions-h"><h2 id="actions-h">Actions</h2>
        <div class="actions">
        {{#refundable}}
        <form method="post" action="/console/payments/{{id}}/refund{{scope}}">
        <input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="idempotency" value="{{idempotency}}">
        <label>Refund amount ({{currency}}), empty for all {{refundable}}<input name="amount" inputmode="decimal" size="10"></label>
        <label>Reason<select name="reason"><option value="">None</option><option value="requested_by_customer">Requested by customer</option><option value="duplicate">Duplicate</option><option value="fraudulent">Fraudulent</option></select></label>
        <button type="submit">Refund</button>
        </form>
        {{/refundable}}
        {{#capturable}}
        <form method="post" action="/console/payments/{{id}}/capture{{scope}}">
        <input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="idempotency" value="{{idempotency}}">
        <label>Capture amount ({{currency}}), empty for all {{capturable}}<input name="amount" inputmode="decimal" size="10"></label>
        <button type="submit">Capture</button>
        </form>
        {{/capturable}}
        {{#cancelable}}
        <form method="post" action="/console/payments/{{id}}/cancel{{scope}}">
        <input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="idempotency" value="{{idempotency}}">
        <button class="danger" type="submit">Cancel payment</button>
        </form>
        {{/cancelable}}
        </div>
        </section>
        {{/hasActions}}
        """)

    /// Any table: columns (`title`, `num`) and rows of cells (`text`, and `href`, `code`, `num`, `tone` for a badge).
    static let table = try! MustacheTemplate(string: """
        <div class="table-wrap">
        <table>
        {{#caption}}<caption class="muted">{{caption}}</caption>{{/caption}}
        <thead><tr>{{#columns}}<th scope="col"{{#num}} class="num"{{/num}}>{{title}}</th>{{/columns}}</tr></thead>
        <tbody>
        {{#rows}}<tr>{{#cells}}<td{{#num}} class="num"{{/num}}>{{#href}}<a href="{{href}}">{{/href}}{{#tone}}<span class="badge {{tone}}">{{/tone}}{{#code}}<code>{{/code}}{{text}}{{#code}}</code>{{/code}}{{#tone}}</span>{{/tone}}{{#href}}</a>{{/href}}</td>{{/cells}}</tr>{{/rows}}
        {{^rows}}<tr><td colspan="{{width}}" class="muted">{{empty}}</td></tr>{{/rows}}
        </tbody>
        </table>
        </div>
        """)

    /// A page of sections, each a heading, an optional text and a table or facts the server rendered.
    static let sections = try! MustacheTemplate(string: """
        {{#back}}<p><a href="{{back}}">{{backText}}</a></p>{{/back}}
        <h1>{{heading}}</h1>
        {{#notice}}<p class="notice" role="status">{{notice}}</p>{{/notice}}
        {{#error}}<p class="notice error" role="alert">{{error}}</p>{{/error}}
        {{#sections}}<section class="card" aria-labelledby="s{{index}}"><h2 id="s{{index}}">{{title}}</h2>{{#text}}<p class="muted">{{text}}</p>{{/text}}{{{html}}}
        {{#pager}}<div class="pager"><a href="{{pager}}" rel="next">Older</a></div>{{/pager}}</section>{{/sections}}
        """)

    static let facts = try! MustacheTemplate(string: """
        <dl class="facts">{{#facts}}<dt>{{key}}</dt><dd>{{#code}}<code>{{/code}}{{value}}{{#code}}</code>{{/code}}</dd>{{/facts}}</dl>
        """)

    static let webhookForms = try! MustacheTemplate(string: """
        <form method="post" action="/console/webhooks{{scope}}" class="filters">
        <input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="action" value="add">
        <label>Endpoint URL<input name="url" type="url" size="40" required placeholder="https://example.com/webhooks"></label>
        <label>Events<input name="events" size="30" value="*"></label>
        <button type="submit">Add endpoint</button>
        </form>
        """)

    static let endpointActions = try! MustacheTemplate(string: """
        <div class="actions">
        <form method="post" action="/console/webhooks{{scope}}"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="endpoint" value="{{id}}">
        <input type="hidden" name="action" value="{{toggle}}"><button class="secondary" type="submit">{{toggleText}}</button></form>
        <form method="post" action="/console/webhooks{{scope}}"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="endpoint" value="{{id}}">
        <input type="hidden" name="action" value="delete"><button class="danger" type="submit">Delete endpoint</button></form>
        </div>
        """)

    static let resend = try! MustacheTemplate(string: """
        <form method="post" action="/console/webhooks{{scope}}"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="endpoint" value="{{endpoint}}">
        <input type="hidden" name="delivery" value="{{delivery}}"><input type="hidden" name="action" value="resend"><button class="secondary" type="submit">Resend <span class="sr-only">{{delivery}}</span></button></form>
        """)

    static let explorerSearch = try! MustacheTemplate(string: """
        <form class="filters" method="get" action="/console/explorer" role="search" aria-label="Search the ledger">
        <label>Account, transaction hash, ledger or payment id<input name="q" size="60" value="{{q}}"></label>
        <button type="submit">Search</button>
        </form>
        """)

    static let link = try! MustacheTemplate(string: """
        <p><a href="{{href}}">{{text}}</a></p>
        """)

    static let links = try! MustacheTemplate(string: """
        <nav aria-label="{{label}}"><ul class="links">{{#links}}<li><a href="{{href}}">{{text}}</a></li>{{/links}}</ul></nav>
        """)

    static let message = try! MustacheTemplate(string: """
        <div class="card"><h1>{{heading}}</h1><p>{{text}}</p><p><a href="/console">Console home</a></p></div>
        """)
}
