import Mustache

/// The console's pages: one layout (header, navigation, main) around each page's body. Every
/// value is written with `{{ }}`, which escapes it; `{{{ }}}` is used only for the body and
/// charts the server rendered itself.
enum ConsoleTemplates {
    // The templates are part of the program: a mistake in one fails every test at once.
    static let layout = try! MustacheTemplate(string: """
        <!doctype html>
        <html lang="{{lang}}">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>{{title}} · {{#t}}Tender console{{/t}}</title>
        <link rel="stylesheet" href="/assets/tender.css">
        </head>
        <body>
        <a class="skip" href="#main">{{#t}}Skip to content{{/t}}</a>
        <header class="bar"><div class="inner">
        <a class="brand" href="/console">{{#t}}Tender console{{/t}}</a>
        {{#signedIn}}
        <nav aria-label="{{#t}}Console{{/t}}">
        <ul>
        <li><a href="/console{{scope}}"{{#homeCurrent}} aria-current="page"{{/homeCurrent}}>{{#t}}Home{{/t}}</a></li>
        {{#merchantName}}<li><a href="/console/payments{{scope}}"{{#paymentsCurrent}} aria-current="page"{{/paymentsCurrent}}>{{#t}}Payments{{/t}}</a></li>
        <li><a href="/console/customers{{scope}}"{{#customersCurrent}} aria-current="page"{{/customersCurrent}}>{{#t}}Customers{{/t}}</a></li>
        <li><a href="/console/balance{{scope}}"{{#balanceCurrent}} aria-current="page"{{/balanceCurrent}}>{{#t}}Balance{{/t}}</a></li>
        <li><a href="/console/webhooks{{scope}}"{{#webhooksCurrent}} aria-current="page"{{/webhooksCurrent}}>{{#t}}Webhooks{{/t}}</a></li>{{/merchantName}}
        {{#isMarketplace}}<li><a href="/console/marketplace{{scope}}"{{#marketplaceCurrent}} aria-current="page"{{/marketplaceCurrent}}>{{#t}}Marketplace{{/t}}</a></li>{{/isMarketplace}}
        <li><a href="/console/explorer"{{#explorerCurrent}} aria-current="page"{{/explorerCurrent}}>{{#t}}Explorer{{/t}}</a></li>
        </ul>
        </nav>
        <span class="muted">{{who}}</span>
        <form method="post" action="/console/sign-out"><input type="hidden" name="csrf" value="{{csrf}}"><button class="secondary" type="submit">{{#t}}Sign out{{/t}}</button></form>
        {{/signedIn}}
        <nav aria-label="{{#t}}Language{{/t}}"><ul class="links"><li><a href="?locale=en" lang="en">English</a></li><li><a href="?locale=nl" lang="nl">Nederlands</a></li><li><a href="?locale=de" lang="de">Deutsch</a></li></ul></nav>
        </div></header>
        <main id="main">
        {{{body}}}
        </main>
        </body>
        </html>
        """)

    static let signIn = try! MustacheTemplate(string: """
        <div class="card signin">
        <h1>{{#t}}Sign in{{/t}}</h1>
        {{#error}}<p class="notice error" role="alert">{{error}}</p>{{/error}}
        <p class="muted">{{#t}}With the admin key of the data directory (<code>admin.key</code>) to see every merchant, or with a merchant's secret key (<code>sk_test_…</code>) to see its own.{{/t}}</p>
        <form method="post" action="/console/sign-in">
        <input type="hidden" name="signin" value="{{token}}">
        <label for="key">{{#t}}Key{{/t}}</label>
        <input id="key" name="key" type="password" autocomplete="off" required>
        <button type="submit">{{#t}}Sign in{{/t}}</button>
        </form>
        </div>
        """)

    static let operatorHome = try! MustacheTemplate(string: """
        <h1>{{#t}}Merchants{{/t}}</h1>
        <div class="card"><div class="table-wrap">
        <table>
        <caption class="muted">{{#t}}{{count}} merchants{{/t}}</caption>
        <thead><tr><th scope="col">{{#t}}Name{{/t}}</th><th scope="col">{{#t}}Id{{/t}}</th><th scope="col" class="optional">{{#t}}Settlement account{{/t}}</th><th scope="col" class="num">{{#t}}Balance{{/t}}</th></tr></thead>
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
        <section class="card" aria-labelledby="balance-h"><h2 id="balance-h">{{#t}}Balance{{/t}}</h2>{{#balances}}<p class="figure">{{amount}}</p>{{/balances}}<p class="muted">{{#t}}Available, on the ledger; nothing is pending, as payments settle at once{{/t}}</p></section>
        <section class="card" aria-labelledby="paid-h"><h2 id="paid-h">{{#t}}Payments, {{days}} days{{/t}}</h2><p class="figure">{{succeeded}}</p><p class="muted">{{volume}}</p></section>
        <section class="card" aria-labelledby="rate-h"><h2 id="rate-h">{{#t}}Success rate{{/t}}</h2><p class="figure">{{successRate}}</p><p class="muted">{{#t}}{{failed}} failed{{/t}}</p></section>
        <section class="card" aria-labelledby="refund-h"><h2 id="refund-h">{{#t}}Refunded{{/t}}</h2><p class="figure">{{refunded}}</p><p class="muted">{{#t}}in {{days}} days{{/t}}</p></section>
        </div>
        {{#incomplete}}<p class="notice">{{incomplete}}</p>{{/incomplete}}
        <section class="card" aria-labelledby="volume-h"><h2 id="volume-h">{{#t}}Volume per day ({{volumeCurrency}}){{/t}}</h2>{{{volumeChart}}}</section>
        <section class="card" aria-labelledby="count-h"><h2 id="count-h">{{#t}}Payments per day{{/t}}</h2>{{{countChart}}}</section>
        <section class="card" aria-labelledby="hour-h"><h2 id="hour-h">{{#t}}Payments per hour, last 24 hours (UTC){{/t}}</h2>{{{hourChart}}}</section>
        <section class="card" aria-labelledby="recent-h"><h2 id="recent-h">{{#t}}Recent payments{{/t}}</h2>{{{recent}}}<p><a href="/console/payments{{scope}}">{{#t}}All payments{{/t}}</a></p></section>
        </div>
        <script src="/assets/console.js"></script>
        """)

    static let paymentsTable = try! MustacheTemplate(string: """
        <div class="table-wrap">
        <table>
        <thead><tr><th scope="col" class="num">{{#t}}Amount{{/t}}</th><th scope="col">{{#t}}Status{{/t}}</th><th scope="col">{{#t}}Method{{/t}}</th><th scope="col" class="optional">{{#t}}Description{{/t}}</th><th scope="col" class="optional">{{#t}}Id{{/t}}</th><th scope="col">{{#t}}Created{{/t}}</th></tr></thead>
        <tbody>
        {{#rows}}<tr><td class="num"><a href="/console/payments/{{id}}{{scope}}">{{amount}}</a></td><td><span class="badge {{tone}}">{{status}}</span></td><td>{{method}}</td><td class="optional">{{description}}</td><td class="optional"><code>{{id}}</code></td><td>{{created}}</td></tr>{{/rows}}
        {{^rows}}<tr><td colspan="6" class="muted">{{noPayments}}</td></tr>{{/rows}}
        </tbody>
        </table>
        </div>
        """)

    static let payments = try! MustacheTemplate(string: """
        <h1>{{#t}}Payments{{/t}}</h1>
        <form class="filters card" method="get" action="/console/payments" role="search" aria-label="{{#t}}Filter payments{{/t}}">
        {{#merchantID}}<input type="hidden" name="merchant" value="{{merchantID}}">{{/merchantID}}
        <label>{{#t}}Status{{/t}}<select name="status"><option value="">{{#t}}Any{{/t}}</option>{{#statuses}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{value}}</option>{{/statuses}}</select></label>
        <label>{{#t}}Method{{/t}}<select name="method"><option value="">{{#t}}Any{{/t}}</option>{{#methods}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{value}}</option>{{/methods}}</select></label>
        <label>{{#t}}Currency{{/t}}<select name="currency"><option value="">{{#t}}Any{{/t}}</option>{{#currencies}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{value}}</option>{{/currencies}}</select></label>
        <label>{{#t}}From amount{{/t}}<input name="min" inputmode="decimal" size="8" value="{{min}}"></label>
        <label>{{#t}}To amount{{/t}}<input name="max" inputmode="decimal" size="8" value="{{max}}"></label>
        <label>{{#t}}From date{{/t}}<input name="from" type="date" value="{{from}}"></label>
        <label>{{#t}}To date{{/t}}<input name="to" type="date" value="{{to}}"></label>
        <label>{{#t}}Id or e-mail{{/t}}<input name="q" size="24" value="{{q}}"></label>
        <button type="submit">{{#t}}Filter{{/t}}</button>
        </form>
        {{#error}}<p class="notice error" role="alert">{{error}}</p>{{/error}}
        <section class="card" aria-label="{{#t}}Payments found{{/t}}">{{{table}}}
        <div class="pager">{{#first}}<a href="{{first}}">{{#t}}Newest{{/t}}</a>{{/first}}{{#next}}<a href="{{next}}" rel="next">{{#t}}Older{{/t}}</a>{{/next}}</div>
        <p class="muted">{{#t}}{{scanned}} read for this page.{{/t}}</p>
        </section>
        """)

    static let payment = try! MustacheTemplate(string: """
        <p><a href="/console/payments{{scope}}">{{#t}}Payments{{/t}}</a></p>
        <h1>{{amount}} <span class="badge {{tone}}">{{status}}</span></h1>
        {{#notice}}<p class="notice" role="status">{{notice}}</p>{{/notice}}
        {{#error}}<p class="notice error" role="alert">{{error}}</p>{{/error}}
        <div class="grid">
        <section class="card" aria-labelledby="facts-h"><h2 id="facts-h">{{#t}}Payment{{/t}}</h2>
        <dl class="facts">
        <dt>{{#t}}Id{{/t}}</dt><dd><code>{{id}}</code></dd>
        <dt>{{#t}}Created{{/t}}</dt><dd>{{created}}</dd>
        {{#description}}<dt>{{#t}}Description{{/t}}</dt><dd>{{description}}</dd>{{/description}}
        {{#customer}}<dt>{{#t}}Customer{{/t}}</dt><dd><code>{{customer}}</code></dd>{{/customer}}
        <dt>{{#t}}Received{{/t}}</dt><dd>{{received}}</dd>
        <dt>{{#t}}Refunded{{/t}}</dt><dd>{{refunded}}</dd>
        {{#fee}}<dt>{{#t}}Fee{{/t}}</dt><dd>{{fee}}</dd><dt>{{#t}}Net{{/t}}</dt><dd>{{net}}</dd>{{/fee}}
        {{#ledger}}<dt>{{#t}}Settled by{{/t}}</dt><dd><a href="/console/explorer/transactions/{{ledger}}"><code>{{ledger}}</code></a></dd>{{/ledger}}
        {{#metadata}}<dt>{{key}}</dt><dd>{{value}}</dd>{{/metadata}}
        </dl></section>
        <section class="card" aria-labelledby="method-h"><h2 id="method-h">{{#t}}Payment method{{/t}}</h2>
        <dl class="facts">{{#methodFacts}}<dt>{{key}}</dt><dd>{{value}}</dd>{{/methodFacts}}</dl>
        {{^methodFacts}}<p class="muted">{{noneYet}}</p>{{/methodFacts}}
        </section>
        </div>
        <section class="card" aria-labelledby="timeline-h"><h2 id="timeline-h">{{#t}}Timeline{{/t}}</h2>
        <ol class="timeline">{{#timeline}}<li><strong>{{what}}</strong> <span class="muted">{{when}}</span>{{#detail}}<br>{{detail}}{{/detail}}</li>{{/timeline}}</ol>
        </section>
        {{#hasActions}}
        <section class="card" aria-labelledby="actions-h"><h2 id="actions-h">{{#t}}Actions{{/t}}</h2>
        <div class="actions">
        {{#refundable}}
        <form method="post" action="/console/payments/{{id}}/refund{{scope}}">
        <input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="idempotency" value="{{idempotency}}">
        <label>{{#t}}Refund amount ({{currency}}), empty for all {{refundable}}{{/t}}<input name="amount" inputmode="decimal" size="10"></label>
        <label>{{#t}}Reason{{/t}}<select name="reason"><option value="">{{#t}}None{{/t}}</option><option value="requested_by_customer">{{#t}}Requested by customer{{/t}}</option><option value="duplicate">{{#t}}Duplicate{{/t}}</option><option value="fraudulent">{{#t}}Fraudulent{{/t}}</option></select></label>
        <button type="submit">{{#t}}Refund{{/t}}</button>
        </form>
        {{/refundable}}
        {{#capturable}}
        <form method="post" action="/console/payments/{{id}}/capture{{scope}}">
        <input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="idempotency" value="{{idempotency}}">
        <label>{{#t}}Capture amount ({{currency}}), empty for all {{capturable}}{{/t}}<input name="amount" inputmode="decimal" size="10"></label>
        <button type="submit">{{#t}}Capture{{/t}}</button>
        </form>
        {{/capturable}}
        {{#cancelable}}
        <form method="post" action="/console/payments/{{id}}/cancel{{scope}}">
        <input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="idempotency" value="{{idempotency}}">
        <button class="danger" type="submit">{{#t}}Cancel payment{{/t}}</button>
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
        {{#live}}<p id="live-status" class="sr-only" aria-live="polite"></p>{{/live}}
        {{#sections}}<section class="card" aria-labelledby="s{{index}}"><h2 id="s{{index}}">{{title}}</h2>{{#text}}<p class="muted">{{text}}</p>{{/text}}{{#liveURL}}<div data-live="{{liveURL}}">{{/liveURL}}{{{html}}}{{#liveURL}}</div>{{/liveURL}}
        {{#pager}}<div class="pager"><a href="{{pager}}" rel="next">{{pagerText}}</a></div>{{/pager}}</section>{{/sections}}
        {{#live}}<script src="/assets/console.js"></script>{{/live}}
        """)

    static let facts = try! MustacheTemplate(string: """
        <dl class="facts">{{#facts}}<dt>{{key}}</dt><dd>{{#code}}<code>{{/code}}{{value}}{{#code}}</code>{{/code}}</dd>{{/facts}}</dl>
        """)

    static let webhookForms = try! MustacheTemplate(string: """
        <form method="post" action="/console/webhooks{{scope}}" class="filters">
        <input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="action" value="add">
        <label>{{#t}}Endpoint URL{{/t}}<input name="url" type="url" size="40" required placeholder="https://example.com/webhooks"></label>
        <label>{{#t}}Events{{/t}}<input name="events" size="30" value="*"></label>
        <button type="submit">{{#t}}Add endpoint{{/t}}</button>
        </form>
        """)

    static let endpointActions = try! MustacheTemplate(string: """
        <div class="actions">
        <form method="post" action="/console/webhooks{{scope}}"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="endpoint" value="{{id}}">
        <input type="hidden" name="action" value="{{toggle}}"><button class="secondary" type="submit">{{toggleText}}</button></form>
        <form method="post" action="/console/webhooks{{scope}}"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="endpoint" value="{{id}}">
        <input type="hidden" name="action" value="delete"><button class="danger" type="submit">{{#t}}Delete endpoint{{/t}}</button></form>
        <form method="post" action="/console/webhooks{{scope}}"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="endpoint" value="{{id}}">
        <input type="hidden" name="action" value="test"><button class="secondary" type="submit">{{#t}}Send test event{{/t}}</button></form>
        </div>
        """)

    static let resend = try! MustacheTemplate(string: """
        <form method="post" action="/console/webhooks{{scope}}"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="endpoint" value="{{endpoint}}">
        <input type="hidden" name="delivery" value="{{delivery}}"><input type="hidden" name="action" value="resend"><button class="secondary" type="submit">{{#t}}Resend{{/t}} <span class="sr-only">{{delivery}}</span></button></form>
        """)

    static let explorerSearch = try! MustacheTemplate(string: """
        <form class="filters" method="get" action="/console/explorer" role="search" aria-label="{{#t}}Search the ledger{{/t}}">
        <label>{{#t}}Account, transaction hash, ledger, asset, payment or order id{{/t}}<input name="q" size="60" value="{{q}}"></label>
        <button type="submit">{{#t}}Search{{/t}}</button>
        </form>
        """)

    static let link = try! MustacheTemplate(string: """
        <p><a href="{{href}}">{{text}}</a></p>
        """)

    static let links = try! MustacheTemplate(string: """
        <nav aria-label="{{label}}"><ul class="links">{{#links}}<li><a href="{{href}}">{{text}}</a></li>{{/links}}</ul></nav>
        """)

    static let message = try! MustacheTemplate(string: """
        <div class="card"><h1>{{heading}}</h1><p>{{text}}</p><p><a href="/console">{{#t}}Console home{{/t}}</a></p></div>
        """)
}
