/// The hosted payment page's template, style sheet and scripts: Tender's own, small, served
/// from `/pay/assets` (the Content-Security-Policy allows nothing from elsewhere).
enum PaymentPageAssets {
    /// Mustache: `{{x}}` is escaped for HTML; `{{{data}}}` is JSON made safe for a script element.
    static let pageTemplate = """
        <!doctype html>
        <html lang="{{lang}}">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>{{t.title}} · {{merchant}}</title>
        <link rel="stylesheet" href="/assets/tender.css">
        <link rel="stylesheet" href="/pay/assets/pay.css">
        <style nonce="{{nonce}}">:root{--primary:{{primary}};--error:{{error}};--disabled:{{disabled}};--radius:{{radius}}px}</style>
        </head>
        <body>
        <main id="checkout">
          <header>
            <p id="merchant">{{merchant}}</p>
            <h1 id="amount">{{amount}}</h1>
            {{#description}}<p id="description">{{description}}</p>{{/description}}
            {{#hasItems}}<ul id="items">{{#items}}<li class="item"><span class="name">{{name}}</span> <span class="quantity">× {{quantity}}</span> <span class="line">{{amount}}</span></li>{{/items}}</ul>{{/hasItems}}
          </header>
          <form id="card-form" novalidate>
            <label for="number">{{t.cardNumber}}</label>
            <div class="field"><input id="number" name="number" inputmode="numeric" autocomplete="cc-number" maxlength="40"><span id="brand" class="brand"></span></div>
            <p class="message" id="number-message" aria-live="polite"></p>
            <div class="row">
              <div><label for="expiry">{{t.expiry}}</label><input id="expiry" name="expiry" inputmode="numeric" autocomplete="cc-exp" maxlength="7">
                <p class="message" id="expiry-message" aria-live="polite"></p></div>
              <div><label for="cvc">{{t.securityCode}}</label><input id="cvc" name="cvc" inputmode="numeric" autocomplete="cc-csc" maxlength="4">
                <p class="message" id="cvc-message" aria-live="polite"></p></div>
            </div>
            <label for="name">{{t.nameOnCard}}</label>
            <input id="name" name="name" autocomplete="cc-name" maxlength="100">
            <button id="pay" type="submit" disabled>{{t.pay}} {{amount}}</button>
          </form>
          {{#banks}}<div id="banks"><p>{{t.orPayWith}}</p>{{#ideal}}<button id="ideal" type="button">iDEAL</button>{{/ideal}}{{#bancontact}}<button id="bancontact" type="button">Bancontact</button>{{/bancontact}}</div>{{/banks}}
          <section id="success" hidden><h2>{{t.paid}}</h2><p>{{t.paidText}}</p></section>
          <section id="failure" hidden><h2>{{t.failed}}</h2><p id="failure-message"></p><button id="try-again" type="button">{{t.tryAgain}}</button></section>
          {{#cancelURL}}<p id="back"><a id="cancel" href="{{cancelURL}}">{{t.back}}</a></p>{{/cancelURL}}
          <nav id="locales" aria-label="{{t.language}}"><a id="locale-en" href="?locale=en">English</a> · <a id="locale-nl" href="?locale=nl">Nederlands</a> · <a id="locale-de" href="?locale=de">Deutsch</a></nav>
        </main>
        <div id="overlay" hidden><div class="spinner"></div><p>{{t.paying}}</p></div>
        <div id="challenge" hidden><div class="sheet"><p>{{t.authenticate}}</p><iframe id="challenge-frame" title="3-D Secure"></iframe></div></div>
        <script type="application/json" id="page-data">{{{data}}}</script>
        <script src="/pay/assets/pay.js"></script>
        </body>
        </html>
        """

    /// What the payment page adds to Tender's design system (/assets/tender.css): the
    /// merchant's theme (`--primary`, `--error`, `--disabled`, `--radius`) on its controls.
    static let style = """
        main#checkout { max-width: 27rem; margin: 2rem auto; background: var(--surface); padding: 1.5rem; border: 1px solid var(--line); border-radius: var(--radius); }
        header p { margin: .2rem 0; }
        #merchant { color: var(--muted); }
        #amount { font-size: 1.8rem; font-weight: 700; margin: .2rem 0; }
        label { margin-top: .8rem; }
        #card-form input { width: 100%; padding: .6rem; border-radius: var(--radius); }
        input.invalid { border-color: var(--error); }
        .field { position: relative; }
        .brand { position: absolute; right: .6rem; top: .6rem; font-size: .8rem; font-weight: 600; color: var(--muted); }
        .row { display: flex; gap: .8rem; }
        .row > div { flex: 1; min-width: 0; }
        .message { min-height: 1.1rem; margin: .2rem 0; font-size: .8rem; color: var(--muted); }
        .message.invalid { color: var(--error); }
        #checkout button { padding: .7rem 1rem; border: 1px solid var(--primary); border-radius: var(--radius); background: var(--primary); color: #fff; }
        #checkout button:disabled { background: var(--disabled); border-color: var(--disabled); color: #1b1f24; cursor: not-allowed; }
        #pay { width: 100%; margin-top: 1rem; }
        #banks { margin-top: 1rem; }
        #banks button { margin-right: .5rem; background: var(--surface); color: var(--primary); }
        #failure h2 { color: var(--error); }
        #items { list-style: none; padding: 0; margin: .8rem 0 0; border-top: 1px solid var(--line); }
        .item { display: flex; gap: .4rem; padding: .4rem 0; border-bottom: 1px solid var(--line); font-size: .9rem; }
        .item .name { flex: 1; }
        .item .quantity { color: var(--muted); }
        #back { margin-top: 1rem; font-size: .9rem; }
        #locales { margin-top: 1.5rem; font-size: .85rem; color: var(--muted); }
        #overlay, #challenge { position: fixed; inset: 0; background: color-mix(in srgb, var(--bg) 85%, transparent); display: flex; flex-direction: column; align-items: center; justify-content: center; }
        #overlay[hidden], #challenge[hidden] { display: none; }
        .spinner { width: 2.5rem; height: 2.5rem; border: 4px solid var(--disabled); border-top-color: var(--primary); border-radius: 50%; animation: spin 1s linear infinite; }
        @keyframes spin { to { transform: rotate(360deg); } }
        .sheet { background: var(--surface); padding: 1rem; border-radius: var(--radius); border: 1px solid var(--line); }
        #challenge-frame { width: min(22rem, 90vw); height: 20rem; border: 1px solid var(--line); border-radius: var(--radius); }
        @media (max-width: 480px) { main#checkout { margin: 0; border-radius: 0; border-width: 0 0 1px; } }
        """

    /// The page that a 3-D Secure frame or a bank comes back to: in a frame it tells the payment
    /// page; on its own it goes to the payment page with what the bank said.
    static let returnScript = """
        (function () {
          "use strict";
          var token = location.pathname.split("/")[2] || "";
          if (window.parent !== window) {
            window.parent.postMessage({ tender: "returned" }, location.origin);
          } else {
            location.replace("/pay/" + encodeURIComponent(token) + location.search);
          }
        })();
        """

    /// The page's behaviour: the fields checked as typed with the rules and messages rendered
    /// into the page (CardInput's logic, written for the browser), Pay enabled only when all
    /// are valid, then the payment through `/v1` with the publishable key.
    static let script = #"""
        (function () {
          "use strict";
          var data = JSON.parse(document.getElementById("page-data").textContent);
          function $(id) { return document.getElementById(id); }
          function message(key, brand, n) {
            return data.messages[key].replace("{brand}", brand || data.brands.unknown.name).replace("{n}", String(n || 0));
          }

          // The card rules, as Gateway's CardRules and PaymentEngine's CardInput apply them.
          function sanitise(text) { return /^[0-9 \-]*$/.test(text) ? text.replace(/[ \-]/g, "") : null; }
          function brandOf(digits) {
            for (var i = 0; i < data.prefixes.length; i++) {
              var p = data.prefixes[i];
              if (digits.length >= p[0]) { var v = parseInt(digits.slice(0, p[0]), 10); if (v >= p[1] && v <= p[2]) return p[3]; }
            }
            return "unknown";
          }
          function luhn(digits) {
            var sum = 0;
            for (var i = 0; i < digits.length; i++) {
              var d = digits.charCodeAt(digits.length - 1 - i) - 48;
              if (i % 2 === 1) { d *= 2; if (d > 9) d -= 9; }
              sum += d;
            }
            return sum % 10 === 0;
          }
          function maxLength(brand) { var l = data.brands[brand].lengths; return l[l.length - 1]; }
          function grouped(digits, brand) {
            var out = [], at = 0, groups = data.brands[brand].grouping;
            for (var i = 0; i < groups.length && at < digits.length; i++) { out.push(digits.slice(at, at + groups[i])); at += groups[i]; }
            if (at < digits.length) out.push(digits.slice(at));
            return out.join(" ");
          }
          function numberState(text) {
            if (/^[ \-]*$/.test(text)) return ["incomplete", message("enterNumber")];
            var digits = sanitise(text);
            if (digits === null) return ["invalid", message("numberDigitsOnly")];
            var brand = brandOf(digits), name = data.brands[brand].name;
            if (digits.length > maxLength(brand)) return ["invalid", message("numberTooLong", name, maxLength(brand))];
            if (data.brands[brand].lengths.indexOf(digits.length) < 0) return ["incomplete", message("numberIncomplete")];
            if (!luhn(digits)) {
              return digits.length < maxLength(brand) && brand !== "visa" ? ["incomplete", message("numberIncomplete")] : ["invalid", message("numberIncorrect")];
            }
            return ["valid", ""];
          }
          function expiryParts(text) {
            var month = "", year = "", separated = false;
            for (var i = 0; i < text.length; i++) {
              var c = text[i];
              if (c >= "0" && c <= "9") {
                if (!separated && month.length === 2) separated = true;
                if (separated) year += c; else month += c;
              } else if (c === "/" || c === "-" || c === " ") {
                if (month.length > 0) separated = true;
              } else {
                return null;
              }
            }
            return { month: month, year: year, separated: separated };
          }
          function expiryState(text) {
            var parts = expiryParts(text);
            if (parts === null) return ["invalid", message("expiryFormat")];
            if (parts.month === "") return ["incomplete", message("enterExpiry")];
            if (parts.month.length > 2) return ["invalid", message("expiryFormat")];
            var month = parseInt(parts.month, 10);
            if ((parts.month.length === 2 || parts.separated || month > 1) && (month < 1 || month > 12)) return ["invalid", message("monthRange")];
            if (parts.year.length < 2 || parts.year.length === 3) return ["incomplete", message("enterExpiryYear")];
            if (parts.year.length > 4) return ["invalid", message("expiryFormatLong")];
            var year = parseInt(parts.year, 10);
            var full = parts.year.length === 2 ? 2000 + year : year;
            var today = data.today, past = full < today.year || (full === today.year && month < today.month);
            if (past) return ["invalid", message("expired")];
            if (full > today.year + 50) return ["invalid", message("expiryTooFar")];
            return ["valid", ""];
          }
          function cvcState(text, brand) {
            if (text === "") return ["incomplete", message("enterSecurityCode")];
            if (!/^[0-9]+$/.test(text)) return ["invalid", message("securityCodeDigitsOnly")];
            var length = data.brands[brand].cvc;
            if (text.length < length) return ["incomplete", message("securityCodeLength", null, length)];
            if (text.length > length) return ["invalid", message("securityCodeLength", null, length)];
            return ["valid", ""];
          }

          var number = $("number"), expiry = $("expiry"), cvc = $("cvc"), pay = $("pay");
          var touched = {};
          function show(field, state) {
            var shown = touched[field.id] || state[0] === "invalid";
            var line = $(field.id + "-message");
            line.textContent = shown ? state[1] : "";
            line.className = "message" + (state[0] === "invalid" ? " invalid" : "");
            field.className = state[0] === "invalid" ? "invalid" : "";
            field.setAttribute("aria-invalid", state[0] === "invalid" ? "true" : "false");
          }
          function check() {
            var digits = sanitise(number.value) || "", brand = brandOf(digits);
            $("brand").textContent = brand === "unknown" ? "" : data.brands[brand].name;
            var states = [numberState(number.value), expiryState(expiry.value), cvcState(cvc.value, brand)];
            show(number, states[0]); show(expiry, states[1]); show(cvc, states[2]);
            pay.disabled = !(states[0][0] === "valid" && states[1][0] === "valid" && states[2][0] === "valid");
            return !pay.disabled;
          }
          number.addEventListener("input", function () {
            var digits = sanitise(number.value);
            if (digits !== null) number.value = grouped(digits, brandOf(digits));
            check();
          });
          [expiry, cvc].forEach(function (field) { field.addEventListener("input", check); });
          [number, expiry, cvc].forEach(function (field) { field.addEventListener("blur", function () { touched[field.id] = true; check(); }); });

          // Paying through /v1 with the publishable key.
          var intent = data.intent;
          function form(fields) {
            return Object.keys(fields).map(function (k) { return encodeURIComponent(k) + "=" + encodeURIComponent(fields[k]); }).join("&");
          }
          function api(method, path, fields) {
            return fetch(path, {
              method: method,
              headers: { "Authorization": "Bearer " + data.key, "Content-Type": "application/x-www-form-urlencoded" },
              body: fields ? form(fields) : undefined
            }).then(function (response) {
              return response.json().then(function (body) {
                if (!response.ok) { var e = new Error((body.error && body.error.message) || response.statusText); e.body = body; throw e; }
                return body;
              });
            });
          }
          function ensureIntent() {
            if (intent) return Promise.resolve(intent);
            return fetch("/pay/" + encodeURIComponent(data.token) + "/intents", { method: "POST" }).then(function (response) {
              return response.json().then(function (body) {
                if (!response.ok) throw new Error((body.error && body.error.message) || response.statusText);
                intent = body;
                return intent;
              });
            });
          }
          function view(name, text) {
            $("overlay").hidden = name !== "paying";
            $("challenge").hidden = name !== "challenge";
            $("success").hidden = name !== "success";
            $("failure").hidden = name !== "failure";
            $("card-form").hidden = name === "success" || name === "failure";
            if ($("banks")) $("banks").hidden = name === "success" || name === "failure";
            if (name === "failure") $("failure-message").textContent = text || "";
            if (name !== "challenge") $("challenge-frame").removeAttribute("src");
          }
          function returnURL(inFrame) {
            return location.origin + "/pay/" + encodeURIComponent(data.token) + (inFrame ? "/return" : "");
          }
          function paid() {
            if (data.success_url) { location.assign(data.success_url); return; }
            view("success");
          }
          function settle(pi) {
            if (pi.status === "succeeded" || pi.status === "requires_capture" || pi.status === "processing") return paid();
            if (pi.status === "canceled") return view("failure", data.text.canceled);
            if (pi.status === "requires_action" && pi.next_action && pi.next_action.redirect_to_url) {
              var url = pi.next_action.redirect_to_url.url;
              if (url.indexOf("/v1/test/bank/") >= 0) { location.assign(url); return; }
              view("challenge");
              $("challenge-frame").src = url;
              return;
            }
            var error = pi.last_payment_error;
            view("failure", error ? error.message : "");
          }
          function refresh() {
            return api("GET", "/v1/payment_intents/" + encodeURIComponent(intent.id) + "?client_secret=" + encodeURIComponent(intent.client_secret)).then(settle);
          }
          function confirm(method, inFrame) {
            return api("POST", "/v1/payment_intents/" + encodeURIComponent(intent.id) + "/confirm", {
              payment_method: method.id, client_secret: intent.client_secret, return_url: returnURL(inFrame)
            });
          }
          function fail(error) {
            if (error.body && error.body.error && error.body.error.payment_intent) return settle(error.body.error.payment_intent);
            view("failure", error.message);
          }
          $("card-form").addEventListener("submit", function (event) {
            event.preventDefault();
            if (!check()) return;
            var parts = expiryParts(expiry.value), year = parseInt(parts.year, 10);
            view("paying");
            ensureIntent().then(function () {
              var fields = {
                "type": "card", "card[number]": sanitise(number.value), "card[exp_month]": parseInt(parts.month, 10),
                "card[exp_year]": parts.year.length === 2 ? 2000 + year : year, "card[cvc]": cvc.value
              };
              var holder = $("name").value.trim();
              if (holder) fields["billing_details[name]"] = holder;
              return api("POST", "/v1/payment_methods", fields);
            }).then(function (method) { return confirm(method, true); }).then(settle).catch(fail);
          });
          ["ideal", "bancontact"].forEach(function (type) {
            var button = $(type);
            if (!button) return;
            button.addEventListener("click", function () {
              view("paying");
              ensureIntent().then(function () { return api("POST", "/v1/payment_methods", { type: type }); })
                .then(function (method) { return confirm(method, false); }).then(settle).catch(fail);
            });
          });
          $("try-again").addEventListener("click", function () { view("form"); check(); });
          window.addEventListener("message", function (event) {
            if (event.origin !== location.origin || !event.data || event.data.tender !== "returned" || !intent) return;
            view("paying");
            refresh().catch(fail);
          });

          // Back from the bank (or the page reloaded): the intent says how it went.
          var query = new URLSearchParams(location.search);
          if (query.get("payment_intent") && query.get("payment_intent_client_secret")) {
            intent = { id: query.get("payment_intent"), client_secret: query.get("payment_intent_client_secret") };
            view("paying");
            refresh().catch(fail);
          } else if (data.status === "succeeded" || data.status === "requires_capture") {
            paid();
          } else if (data.status === "canceled") {
            view("failure", data.text.canceled);
          } else {
            view("form");
          }
          check();
        })();
        """#
}
