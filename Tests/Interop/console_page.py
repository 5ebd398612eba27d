"""Drives Tender's /console in a real headless Chromium (Debian's package through Playwright,
executable_path set; no browser download), with payments made through the real `stripe` library:
a merchant signs in, sees them listed and on its home page, refunds part of one (seen through the
library), watches a failing webhook endpoint's attempts and resends a delivery once it is fixed,
finds the payment's settlement in the explorer by account, transaction and ledger; another
merchant's session cannot open the payment; the operator sees both merchants. Every page is
checked with axe-core (axe-playwright-python) for serious or critical violations and
screenshotted at desktop and phone width.

Usage: python console_page.py URL ADMIN_KEY CHROMIUM SCREENSHOT_DIR
Prints one line per check and exits non-zero at the first failure.
"""

import http.server
import re
import sys
import threading

import requests
import stripe
from axe_playwright_python.sync_playwright import Axe
from interop_checks import check, done
from playwright.sync_api import expect, sync_playwright
from stellar_sdk import Asset, Keypair, Network, Server, TransactionBuilder

expect.set_options(timeout=20_000)

URL, ADMIN_KEY, CHROMIUM, SHOTS = sys.argv[1].rstrip("/"), sys.argv[2], sys.argv[3], sys.argv[4]
external = []
axe = Axe()
checked_pages = set()


def merchant(name):
    made = requests.post(f"{URL}/v1/admin/merchants", data={"name": name}, headers={"Authorization": f"Bearer {ADMIN_KEY}"}, timeout=30).json()
    return made


shop, other = merchant("Console shop"), merchant("Other shop")
stripe.api_base = URL
stripe.api_key = shop["secret_key"]
stripe.max_network_retries = 0

# A webhook receiver that fails until told to answer 200.
answers = {"status": 500, "received": 0, "types": []}


class Receiver(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        answers["received"] += 1
        try:
            event = stripe.Webhook.construct_event(body, self.headers.get("Stripe-Signature"), endpoint_secret["value"])
            answers["types"].append((event.type, event.data.object.id))
        except Exception as error:  # noqa: BLE001 - a bad signature is recorded as such
            answers["types"].append(("unverified", str(error)))
        self.send_response(answers["status"])
        self.end_headers()

    def log_message(self, *args):
        pass


receiver = http.server.HTTPServer(("127.0.0.1", 0), Receiver)
threading.Thread(target=receiver.serve_forever, daemon=True).start()
endpoint_secret = {"value": ""}
endpoint = stripe.WebhookEndpoint.create(url=f"http://127.0.0.1:{receiver.server_port}/hooks", enabled_events=["charge.refunded"])
endpoint_secret["value"] = endpoint.secret

paid = stripe.PaymentIntent.create(amount=2500, currency="eur", payment_method="pm_card_visa", confirm=True, description="Order <42>")
held = stripe.PaymentIntent.create(amount=4000, currency="eur", payment_method="pm_card_mastercard", confirm=True, capture_method="manual")
try:
    stripe.PaymentIntent.create(amount=990, currency="eur", payment_method="pm_card_chargeDeclined", confirm=True)
except stripe.error.CardError:
    pass
# An offer on the ledger: 100 XLM for the anchor's EUR, at 0.25 EUR each.
horizon = Server(URL)
euro_issuer = next(b["asset_issuer"] for b in horizon.accounts().account_id(shop["settlement_account"]).call()["balances"] if b.get("asset_code") == "EUR")
trader = Keypair.random()
requests.get(f"{URL}/friendbot", params={"addr": trader.public_key}, timeout=30)
offer = TransactionBuilder(horizon.load_account(trader.public_key), Network.STANDALONE_NETWORK_PASSPHRASE, base_fee=100) \
    .append_change_trust_op(asset=Asset("EUR", euro_issuer)) \
    .append_manage_sell_offer_op(selling=Asset.native(), buying=Asset("EUR", euro_issuer), amount="100", price="0.25") \
    .set_timeout(60).build()
offer.sign(trader)
horizon.submit_transaction(offer)
check("the stripe library made the payments", paid.status == "succeeded" and held.status == "requires_capture")


def audit(page, name):
    """axe-core on the page as it stands: no serious or critical violation."""
    results = axe.run(page)
    bad = [v for v in results.response["violations"] if v["impact"] in ("serious", "critical")]
    check(f"axe: no serious or critical violations on {name}", not bad, [(v["id"], v["impact"], [n["target"] for n in v["nodes"]][:3]) for v in bad])


def visit(page, phone, path, name):
    response = page.goto(URL + path)
    check(f"{name} answers", response.status == 200, f"{response.status} {page.url}")
    check(f"{name} sends a strict CSP", "default-src 'none'" in response.headers.get("content-security-policy", "") and "script-src" not in response.headers.get("content-security-policy", "").replace("script-src 'self'", ""))
    page.screenshot(path=f"{SHOTS}/{name}-desktop.png", full_page=True)
    if name not in checked_pages:
        audit(page, name)
        checked_pages.add(name)
    phone.goto(URL + path)
    phone.screenshot(path=f"{SHOTS}/{name}-phone.png", full_page=True)
    width = phone.evaluate("document.documentElement.scrollWidth")
    check(f"{name} fits 360 px", width <= 362, width)


def sign_in(context, key):
    page = context.new_page()
    page.on("request", lambda request: None if request.url.startswith(URL) else external.append(request.url))
    page.goto(URL + "/")
    check("a browser at the root is led to the sign-in page", page.url.endswith("/console/sign-in"), page.url)
    page.fill("#key", key)
    page.click("button[type=submit]")
    return page


with sync_playwright() as playwright:
    browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
    desktop = browser.new_context(viewport={"width": 1280, "height": 900})
    mobile = browser.new_context(viewport={"width": 360, "height": 780}, color_scheme="dark")
    signin = desktop.new_page()
    signin.goto(URL + "/console/sign-in")
    audit(signin, "sign-in")
    signin.screenshot(path=f"{SHOTS}/sign-in-desktop.png", full_page=True)
    signin.fill("#key", "sk_test_wrong")
    signin.click("button[type=submit]")
    check("a wrong key is refused, and not shown", "neither the admin key" in signin.text_content("[role=alert]") and "sk_test_wrong" not in signin.content())
    signin.close()

    page = sign_in(desktop, shop["secret_key"])
    phone = sign_in(mobile, shop["secret_key"])
    check("the merchant is signed in", page.url.endswith("/console") and "Console shop" in page.text_content("h1"), page.url)
    visit(page, phone, "/console", "home")
    check("home shows the balance: 25.00 less 1.5% and 0.25", "€24.37" in page.text_content("main"))
    check("home draws the day's payments", page.locator("svg.chart rect.bar").count() >= 14)
    # Live: a payment made now appears on the open home page without a reload.
    page.evaluate("window.consoleMarker = 'still here'")
    page.wait_for_timeout(500)
    arrived = stripe.PaymentIntent.create(amount=1200, currency="eur", payment_method="pm_card_visa", confirm=True)
    expect(page.locator("main table")).to_contain_text(arrived.id)
    check("a new payment appears on the open home page, live", page.evaluate("window.consoleMarker") == "still here"
          and "Updated" in page.text_content("#live-status"))

    visit(page, phone, "/console/payments", "payments")
    rows = page.text_content("table")
    check("the stripe library's payments are listed", paid.id in rows and held.id in rows and "Order <42>" in rows)
    page.select_option("select[name=status]", "requires_capture")
    page.click("text=Filter")
    check("filtered by status", held.id in page.text_content("table") and paid.id not in page.text_content("table"))

    visit(page, phone, f"/console/payments/{paid.id}", "payment")
    check("the payment's card and fee", "Visa •••• 4242" in page.text_content("main") and "€0.63" in page.text_content("main"))
    page.fill("input[name=amount]", "3.00")
    page.select_option("select[name=reason]", "requested_by_customer")
    page.click("button:has-text('Refund')")
    expect(page.locator("[role=status]")).to_contain_text("A refund of €3.00 was made.")
    check("the refund is in the timeline", "Refunded" in page.text_content(".timeline"))
    refunds = stripe.Refund.list(payment_intent=paid.id).data
    check("the stripe library sees the console's refund", len(refunds) == 1 and refunds[0].amount == 300 and refunds[0].reason == "requested_by_customer", refunds)
    page.go_back()
    page.go_back()
    check("a second sending of the same form refunds nothing more", stripe.PaymentIntent.retrieve(paid.id, expand=["latest_charge"]).latest_charge.amount_refunded == 300)

    visit(page, phone, f"/console/payments/{held.id}", "payment-held")
    page.fill("form[action*=capture] input[name=amount]", "30.00")
    page.click("button:has-text('Capture')")
    expect(page.locator("[role=status]")).to_contain_text("Captured")
    check("a partial capture is seen by the stripe library", stripe.PaymentIntent.retrieve(held.id).amount_received == 3000)

    # Webhooks: the refund's delivery fails, is shown with its status code, then resent once fixed.
    for _ in range(100):
        if answers["received"] >= 1:
            break
        page.wait_for_timeout(100)
    visit(page, phone, "/console/webhooks", "webhooks")
    expect(page.locator("main")).to_contain_text("500")
    answers["status"] = 200
    page.click("button:has-text('Resend')")
    expect(page.locator("[role=status]")).to_contain_text("will be sent again now")
    for _ in range(100):
        page.goto(URL + "/console/webhooks")
        if "delivered" in page.text_content("table"):
            break
        page.wait_for_timeout(200)
    check("the resent delivery is delivered", "delivered" in page.text_content("table") and answers["received"] >= 2)
    page.click("button:has-text('Send test event')")
    expect(page.locator("[role=status]")).to_contain_text("is on its way")
    for _ in range(100):
        if any(kind == "payment_intent.succeeded" for kind, _ in answers["types"]):
            break
        page.wait_for_timeout(100)
    check("the test event arrives, signed, as a payment_intent.succeeded of a made-up intent",
          any(kind == "payment_intent.succeeded" and obj.startswith("pi_test") for kind, obj in answers["types"]), answers["types"])
    page.goto(URL + f"/console/payments/{paid.id}")
    check("the payment's timeline shows its events and their deliveries", "Event charge.refunded" in page.text_content(".timeline")
          and "delivered to 1 of 1 endpoints" in page.text_content(".timeline"), page.text_content(".timeline"))

    visit(page, phone, "/console/customers", "customers")
    visit(page, phone, "/console/balance", "balance")
    check("the balance lists the refund and the charge", "−€3.00" in page.text_content("main") and "charge" in page.text_content("main"))

    # The explorer: by account, transaction and ledger.
    visit(page, phone, "/console/explorer", "explorer")
    # Live: the latest ledgers follow the ledger as it closes, without a reload.
    ledgers = "section:has(h2:has-text('Latest ledgers')) table tbody tr td"
    newest = page.text_content(ledgers)
    page.evaluate("window.consoleMarker = 'explorer'")
    stripe.PaymentIntent.create(amount=700, currency="eur", payment_method="pm_card_visa", confirm=True)
    expect(page.locator(ledgers).first).not_to_have_text(newest)
    check("the explorer's latest ledgers follow the ledger live", page.evaluate("window.consoleMarker") == "explorer")
    page.fill("input[name=q]", shop["settlement_account"])
    page.click("button:has-text('Search')")
    check("the explorer finds the account", "/console/explorer/accounts/" in page.url and "EUR" in page.text_content("main"), page.url)
    visit(page, phone, f"/console/explorer/accounts/{shop['settlement_account']}", "account")
    page.click("main a:text-is('EUR')")
    check("the account's EUR leads to the asset: its supply, holders and their authorization",
          "/console/explorer/assets/EUR:" in page.url and shop["settlement_account"] in page.text_content("main") and "Supply" in page.text_content("main"), page.url)
    visit(page, phone, page.url.replace(URL, ""), "asset")
    page.goto(URL + f"/console/payments/{paid.id}")
    ledger_hash = re.search(r"/console/explorer/transactions/([0-9a-f]{64})", page.content()).group(1)
    page.goto(URL + "/console/explorer")
    page.fill("input[name=q]", ledger_hash)
    page.click("button:has-text('Search')")
    check("the explorer finds the transaction", "tx_success" in page.text_content("main"), page.url)
    visit(page, phone, f"/console/explorer/transactions/{ledger_hash}", "transaction")
    page.goto(URL + "/console/explorer")
    page.fill("input[name=q]", "2")
    page.click("button:has-text('Search')")
    check("the explorer finds a ledger", page.url.endswith("/console/explorer/ledgers/2") and "closed_at" in page.text_content("main"), page.url)
    visit(page, phone, "/console/explorer/ledgers/2", "ledger")

    page.goto(URL + "/console/explorer")
    page.click("text=XLM → EUR")
    check("the explorer shows the order book with its depth drawn", "100.0000000" in page.text_content("main") and "0.25" in page.text_content("main")
          and page.locator("svg.chart").count() == 1, page.url)
    visit(page, phone, page.url.replace(URL, ""), "order-book")

    # Another merchant cannot open the payment; the operator sees both merchants.
    others = browser.new_context()
    other_page = sign_in(others, other["secret_key"])
    response = other_page.goto(URL + f"/console/payments/{paid.id}")
    check("another merchant's session gets 404 for the payment", response.status == 404)
    operator = browser.new_context()
    operator_page = sign_in(operator, ADMIN_KEY)
    check("the operator sees every merchant", "Console shop" in operator_page.text_content("main") and "Other shop" in operator_page.text_content("main"))
    audit(operator_page, "operator home")
    operator_page.click("text=Console shop")
    check("and opens one", "Console shop" in operator_page.text_content("h1"))

    page.click("button:has-text('Sign out')")
    check("signing out leads to the sign-in page", page.url.endswith("/console/sign-in"))
    page.goto(URL + "/console")
    check("and the console asks to sign in again", page.url.endswith("/console/sign-in"))
    check("no request left the server", not external, external)
    browser.close()

receiver.shutdown()
done()
