"""Drives Tender's hosted payment page in a real headless Chromium (Debian's package, through
Playwright with executable_path; no browser is downloaded), as a customer would.

Usage: python payment_page.py URL ADMIN_KEY CHROMIUM SCREENSHOT_DIR CASES_JSON
CASES_JSON holds field inputs with the messages PaymentEngine's CardInput gives for them (the
page must say the same). Prints one line per check and exits non-zero at the first failure.
"""

import http.server
import json
import sys
import threading
import urllib.parse

import requests
from axe_playwright_python.sync_playwright import Axe
from interop_checks import check, done
from playwright.sync_api import sync_playwright

URL, ADMIN_KEY, CHROMIUM, SHOTS, CASES = sys.argv[1].rstrip("/"), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]


def merchant(name):
    answer = requests.post(f"{URL}/v1/admin/merchants", data={"name": name}, headers={"Authorization": f"Bearer {ADMIN_KEY}"}, timeout=30)
    return answer.json()


shop = merchant("Tea & Co <b>")
other = merchant("Other shop")
auth = (shop["secret_key"], "")
link = requests.post(f"{URL}/v1/payment_links", auth=auth, timeout=30, data={
    "amount": 1250, "currency": "eur", "description": "<script>window.hacked=1</script> Green tea",
    "theme[primary]": "#0a7d32", "theme[radius]": "12"}).json()
check("a payment link is made", link.get("url", "").startswith(f"{URL}/pay/plink_"), link)
check("another merchant cannot read it", requests.get(f"{URL}/v1/payment_links/{link['id']}", auth=(other["secret_key"], ""), timeout=30).status_code == 404)
refused = requests.post(f"{URL}/v1/payment_links", auth=auth, timeout=30, data={"amount": 1250, "currency": "eur", "theme[primary]": "red;}"})
check("a theme colour that is not one is refused", refused.status_code == 400, refused.text)

shot = {"n": 0}


class Shop(http.server.BaseHTTPRequestHandler):
    """The shop's own pages (a Checkout Session's success URL), served on 127.0.0.1."""

    def do_GET(self):
        body = b"<!doctype html><title>Thanks</title><p id=thanks>Thanks</p>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


shop_server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Shop)
threading.Thread(target=shop_server.serve_forever, daemon=True).start()
shop_url = f"http://127.0.0.1:{shop_server.server_address[1]}"

external = []


axe = Axe()


def screenshot(page, name):
    shot["n"] += 1
    page.screenshot(path=f"{SHOTS}/{shot['n']:02d}-{name}.png", full_page=True)
    # Every state shown is checked by axe-core: no serious or critical violation.
    bad = [v for v in axe.run(page).response["violations"] if v["impact"] in ("serious", "critical")]
    check(f"axe: no serious or critical violations on {name}", not bad, [(v["id"], [n["target"] for n in v["nodes"]][:3]) for v in bad])


def watch(page):
    """Every request the page makes must stay on Tender's origin."""
    page.on("request", lambda request: None if request.url.startswith(URL) or request.url.startswith("data:") or request.url == "about:blank"
            or request.url.startswith(shop_url + "/") else external.append(request.url))
    dialogs = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    return dialogs


def fill_card(page, number, expiry="12/30", cvc="123"):
    page.fill("#number", "")
    page.type("#number", number)
    page.fill("#expiry", expiry)
    page.fill("#cvc", cvc)


def intents_of_link():
    listed = requests.get(f"{URL}/v1/payment_intents?limit=100", auth=auth, timeout=30).json()["data"]
    return [intent for intent in listed if intent.get("metadata", {}).get("payment_link") == link["id"]]


with sync_playwright() as playwright:
    browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
    context = browser.new_context(locale="en-US")
    page = context.new_page()
    dialogs = watch(page)
    response = page.goto(link["url"])
    csp = response.headers.get("content-security-policy", "")
    check("the page sends a Content-Security-Policy", "default-src 'none'" in csp and "script-src 'self'" in csp, csp)
    check("the merchant's name and description are shown as text", page.text_content("#merchant") == "Tea & Co <b>"
          and page.text_content("#description") == "<script>window.hacked=1</script> Green tea")
    check("no merchant text ran as a script", page.evaluate("window.hacked === undefined") and not dialogs)
    check("the amount", page.text_content("#amount") == "€12.50")
    check("the theme's colour reaches the CSS variables", page.evaluate("getComputedStyle(document.documentElement).getPropertyValue('--primary').trim()") == "#0a7d32")
    check("Pay starts disabled", page.is_disabled("#pay"))

    page.type("#number", "4")
    check("the brand appears as the number is typed", page.text_content("#brand") == "Visa")
    page.type("#number", "242424242424242")
    check("the number is grouped 4-4-4-4", page.input_value("#number") == "4242 4242 4242 4242")
    page.fill("#expiry", "01/20")
    page.fill("#cvc", "123")
    screenshot(page, "expired")
    check("an expired card is said so", page.text_content("#expiry-message") == "The card has expired.")
    check("and Pay stays disabled", page.is_disabled("#pay"))
    page.fill("#expiry", "12/30")
    check("Pay is enabled once every field is valid", page.is_enabled("#pay"))
    check("the fields carry cc-number, cc-exp, cc-csc and cc-name", [page.get_attribute(f"#{f}", "autocomplete") for f in ("number", "expiry", "cvc", "name")]
          == ["cc-number", "cc-exp", "cc-csc", "cc-name"])
    page.fill("#name", "Jane <Doe>")
    screenshot(page, "valid")
    page.click("#pay")
    page.wait_for_selector("#success:not([hidden])")
    screenshot(page, "paid")
    paid = intents_of_link()
    check("the payment is an intent of the link's merchant, succeeded", len(paid) == 1 and paid[0]["status"] == "succeeded" and paid[0]["amount"] == 1250, paid)
    method = requests.get(f"{URL}/v1/payment_methods/{paid[0]['payment_method']}", auth=auth, timeout=30).json()
    check("the name on the card is the method's billing name", method["billing_details"]["name"] == "Jane <Doe>", method)

    # The same rules and messages as PaymentEngine's CardInput, field by field.
    for case in json.load(open(CASES)):
        page.goto(link["url"])
        fill_card(page, case["number"], case["expiry"], case["cvc"])
        for field in ("number", "expiry", "cvc"):
            page.focus(f"#{field}")
        page.focus("#number")
        shown = [page.text_content(f"#{field}-message") for field in ("number", "expiry", "cvc")]
        check(f"messages for {case['number']!r} {case['expiry']!r} {case['cvc']!r}", shown == case["messages"] and page.is_enabled("#pay") == case["canPay"],
              f"{shown} vs {case['messages']}")

    # 3-D Secure in a frame: Complete.
    page.goto(link["url"])
    fill_card(page, "4000 0025 0000 3155")
    page.click("#pay")
    page.wait_for_selector("#challenge:not([hidden])")
    frame = page.frame_locator("#challenge-frame")
    frame.locator("#complete").wait_for()
    screenshot(page, "challenge")
    frame.locator("#complete").click()
    page.wait_for_selector("#success:not([hidden])")
    screenshot(page, "challenge-completed")
    check("3-D Secure completed in the frame pays", len([i for i in intents_of_link() if i["status"] == "succeeded"]) == 2)

    # 3-D Secure: Fail, then the error and a way to try again.
    page.goto(link["url"])
    fill_card(page, "4000 0025 0000 3155")
    page.click("#pay")
    page.wait_for_selector("#challenge:not([hidden])")
    page.frame_locator("#challenge-frame").locator("#fail").click()
    page.wait_for_selector("#failure:not([hidden])")
    screenshot(page, "challenge-failed")
    check("a failed challenge shows the error", "authentication" in page.text_content("#failure-message"), page.text_content("#failure-message"))
    page.click("#try-again")
    check("Try again shows the form with its fields", page.is_visible("#card-form") and page.input_value("#number") != "")
    page.click("#pay")
    page.wait_for_selector("#challenge:not([hidden])")
    page.frame_locator("#challenge-frame").locator("#complete").click()
    page.wait_for_selector("#success:not([hidden])")
    check("the same intent is paid on the second try", len([i for i in intents_of_link() if i["status"] == "succeeded"]) == 3)

    # A declined card: the issuer's message.
    page.goto(link["url"])
    fill_card(page, "4000 0000 0000 9995")
    page.click("#pay")
    page.wait_for_selector("#failure:not([hidden])")
    check("a declined card shows why", "insufficient funds" in page.text_content("#failure-message"), page.text_content("#failure-message"))

    # iDEAL: to the test bank and back.
    page.goto(link["url"])
    page.click("#ideal")
    page.wait_for_url("**/v1/test/bank/**")
    screenshot(page, "bank")
    page.click("#complete")
    page.wait_for_url("**/pay/plink_**")
    page.wait_for_selector("#success:not([hidden])")
    screenshot(page, "bank-returned")
    check("iDEAL through the bank page pays", len([i for i in intents_of_link() if i["status"] == "succeeded"]) == 4)

    # Dutch by ?locale=, German by Accept-Language.
    page.goto(link["url"] + "?locale=nl")
    screenshot(page, "dutch")
    check("Dutch by ?locale=nl", page.text_content("label[for=number]") == "Kaartnummer" and page.text_content("#amount") == "€ 12,50")
    page.type("#number", "4242424242424241")
    page.focus("#expiry")
    check("messages in Dutch", page.text_content("#number-message") == "Het kaartnummer klopt niet.")
    german = browser.new_context(locale="de-DE", extra_http_headers={"Accept-Language": "de-DE,de;q=0.9"}).new_page()
    watch(german)
    german.goto(link["url"])
    check("German by Accept-Language", german.text_content("label[for=number]") == "Kartennummer" and german.text_content("#amount") == "12,50 €")
    # The test bank speaks the browser's language too (and ?locale=): German, then Dutch; leaving pays nothing.
    german.click("#ideal")
    german.wait_for_url("**/v1/test/bank/**")
    bank_url = german.url
    check("the test bank in German", german.text_content("h1") == "Testbank" and german.text_content("#amount") == "12,50 €"
          and german.text_content("#complete") == "Abschließen" and german.get_attribute("html", "lang") == "de", german.text_content("main"))
    screenshot(german, "bank-german")
    german.goto(bank_url + "&locale=nl")
    check("the test bank in Dutch by ?locale=nl", german.text_content("h1") == "Testbank" and german.text_content("#amount") == "€ 12,50"
          and german.text_content("#fail") == "Mislukken" and german.text_content("#leave") == "Weggaan", german.text_content("main"))
    german.goto(bank_url)
    german.click("#leave")
    check("leaving the bank, told in German", "ohne zu bezahlen" in german.text_content("#message"), german.text_content("main"))

    # A page for an intent the merchant made, by its client secret.
    intent = requests.post(f"{URL}/v1/payment_intents", auth=auth, timeout=30, data={"amount": 990, "currency": "usd", "description": "Mug"}).json()
    page.goto(f"{URL}/pay/{intent['client_secret']}?primary=%23123456&radius=0")
    check("an intent's page: its amount, no bank buttons for dollars", page.text_content("#amount") == "$9.90" and page.query_selector("#ideal") is None)
    check("query parameters theme the page", page.evaluate("getComputedStyle(document.documentElement).getPropertyValue('--radius').trim()") == "0px")
    fill_card(page, "5555 5555 5555 4444")
    check("Mastercard is recognised", page.text_content("#brand") == "Mastercard")
    page.click("#pay")
    page.wait_for_selector("#success:not([hidden])")
    paid = requests.get(f"{URL}/v1/payment_intents/{intent['id']}", auth=auth, timeout=30).json()
    check("the merchant's intent is paid", paid["status"] == "succeeded", paid)
    wrong = page.goto(f"{URL}/pay/{intent['id']}_secret_wrong")
    check("a wrong client secret gets no page", wrong.status == 404)

    # Checkout Sessions: the line items on the page, paid, and back to the shop's success URL.
    def session(**extra):
        fields = {
            "mode": "payment", "success_url": shop_url + "/done?session={CHECKOUT_SESSION_ID}", "cancel_url": shop_url + "/cart",
            "line_items[0][price_data][currency]": "eur", "line_items[0][price_data][unit_amount]": 1500,
            "line_items[0][price_data][product_data][name]": "<i>Sencha</i> tea", "line_items[0][quantity]": 2,
            "line_items[1][price_data][currency]": "eur", "line_items[1][price_data][unit_amount]": 500,
            "line_items[1][price_data][product_data][name]": "Cup", "line_items[1][quantity]": 1,
            "payment_method_types[0]": "card", "payment_method_types[1]": "ideal", **extra}
        return requests.post(f"{URL}/v1/checkout/sessions", auth=auth, timeout=30, data=fields).json()

    made = session(customer_email="jo@example.com")
    check("a Checkout Session with its page", made.get("url", "").startswith(f"{URL}/pay/cs_test_") and made["amount_total"] == 3500 and made["status"] == "open", made)
    page.goto(made["url"])
    screenshot(page, "session")
    names = page.eval_on_selector_all("#items .name", "nodes => nodes.map(n => n.textContent)")
    check("the session's line items are shown as text", names == ["<i>Sencha</i> tea", "Cup"] and page.query_selector("#items i") is None, names)
    check("with their quantities and the total", page.eval_on_selector_all("#items .line", "nodes => nodes.map(n => n.textContent)") == ["€30.00", "€5.00"]
          and page.text_content("#amount") == "€35.00")
    check("a way back to the shop's cart", page.get_attribute("#cancel", "href") == shop_url + "/cart")
    check("and the session's methods", page.query_selector("#ideal") is not None and page.query_selector("#bancontact") is None)
    fill_card(page, "4242 4242 4242 4242")
    page.click("#pay")
    page.wait_for_url(shop_url + "/done?session=" + made["id"])
    completed = requests.get(f"{URL}/v1/checkout/sessions/{made['id']}", auth=auth, timeout=30).json()
    check("paid: back at the shop's success URL, the session complete", completed["status"] == "complete" and completed["payment_status"] == "paid"
          and completed["url"] is None, completed)
    events = requests.get(f"{URL}/v1/events?limit=100", auth=auth, timeout=30).json()["data"]
    check("checkout.session.completed reports it", [e["data"]["object"]["id"] for e in events if e["type"] == "checkout.session.completed"] == [made["id"]])

    secured = session()
    page.goto(secured["url"])
    fill_card(page, "4000 0025 0000 3155")
    page.click("#pay")
    page.wait_for_selector("#challenge:not([hidden])")
    page.frame_locator("#challenge-frame").locator("#complete").click()
    page.wait_for_url(shop_url + "/done?session=" + secured["id"])
    check("3-D Secure in the frame, then back to the shop", requests.get(f"{URL}/v1/checkout/sessions/{secured['id']}", auth=auth, timeout=30).json()["status"] == "complete")

    banked = session()
    page.goto(banked["url"])
    page.click("#ideal")
    page.wait_for_url("**/v1/test/bank/**")
    page.click("#complete")
    page.wait_for_url(shop_url + "/done?session=" + banked["id"])
    check("iDEAL through the bank, then back to the shop", requests.get(f"{URL}/v1/checkout/sessions/{banked['id']}", auth=auth, timeout=30).json()["payment_status"] == "paid")

    dropped = session()
    expired = requests.post(f"{URL}/v1/checkout/sessions/{dropped['id']}/expire", auth=auth, timeout=30).json()
    check("a session expired", expired["status"] == "expired" and expired["url"] is None, expired)
    page.goto(dropped["url"])
    page.wait_for_selector("#failure:not([hidden])")
    check("its page takes no payment", page.is_hidden("#card-form"))
    again = requests.post(f"{URL}/v1/checkout/sessions/{made['id']}/expire", auth=auth, timeout=30)
    check("a complete session cannot be expired", again.status_code == 400, again.text)
    shop_server.shutdown()
    browser.close()

check("the pages made no request outside Tender", external == [], external)
done()
