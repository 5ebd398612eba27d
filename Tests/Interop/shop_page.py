"""Drives Tender's /shop page in a real headless Chromium (Debian's package through Playwright,
executable_path set; no browser download): a buyer logs in, buys a listing now, changes the
delivery and watches the total change, pays by iDEAL through the test bank and comes back to the
order, paid.

Then the marketplace, signed in to the console with its key, sees the order in escrow and its
escrow equal to its escrow account on the ledger.

Usage: python shop_page.py SHOP_LOGIN_URL CHROMIUM SCREENSHOT_DIR MARKETPLACE_KEY
Prints one line per check and exits non-zero at the first failure.
"""

import sys

from axe_playwright_python.sync_playwright import Axe
from interop_checks import check, done
from playwright.sync_api import expect, sync_playwright

# A loaded machine (the whole suite runs in parallel) can take seconds to answer a page.
expect.set_options(timeout=20_000)

LOGIN, CHROMIUM, SHOTS, MARKETPLACE_KEY = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
BASE = LOGIN.split("/shop/")[0]
external = []
shots = {"n": 0}


axe = Axe()


def screenshot(page, name):
    shots["n"] += 1
    page.screenshot(path=f"{SHOTS}/{shots['n']:02d}-{name}.png", full_page=True)
    # Every page shown is checked by axe-core: no serious or critical violation.
    bad = [v for v in axe.run(page).response["violations"] if v["impact"] in ("serious", "critical")]
    check(f"axe: no serious or critical violations on {name}", not bad, [(v["id"], [n["target"] for n in v["nodes"]][:3]) for v in bad])


with sync_playwright() as playwright:
    browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
    page = browser.new_context().new_page()
    page.on("request", lambda request: None if request.url.startswith(BASE) else external.append(request.url))
    response = page.goto(LOGIN)
    check("the login lands on the shop", page.url.endswith("/shop") and response.status == 200, page.url)
    check("the shop sends a Content-Security-Policy", "default-src 'none'" in response.headers.get("content-security-policy", ""))
    screenshot(page, "listings")
    check("the listings are cards with their prices and delivery costs", page.locator("#listings li.card").count() >= 1
          and "€100.00" in page.text_content("#listings") and "NL €6.95" in page.text_content("#listings"), page.text_content("#listings"))
    check("the shop uses Tender's design system", page.locator("link[href='/assets/tender.css']").count() == 1)
    page.goto(BASE + "/shop?locale=nl")
    check("the shop in Dutch", "Te koop bij" in page.text_content("h1") and "Nu kopen" in page.text_content("#listings")
          and "Ophalen: gratis" in page.text_content("#listings") and page.get_attribute("html", "lang") == "nl", page.text_content("h1"))
    screenshot(page, "listings-dutch")
    page.goto(BASE + "/shop?locale=de")
    check("and in German", "Zu verkaufen bei" in page.text_content("h1") and "Sofort kaufen" in page.text_content("#listings"))
    page.goto(BASE + "/shop?locale=en")
    page.click("text=Bicycle")
    check("a listing shows its price and delivery", page.text_content("#price") == "€100.00" and "standard" in page.text_content("#delivery"))
    page.click("#buy-now")
    page.wait_for_url("**/shop/bids/**")
    screenshot(page, "screen")
    check("the payment screen starts with pickup and iDEAL", page.text_content("#total") == "€101.99", page.text_content("#total"))
    with page.expect_navigation(timeout=20_000):
        page.check("input[name=delivery][value=standard]")
    expect(page.locator("#total")).to_have_text("€108.94")
    check("choosing standard delivery changes the total", page.text_content("#total") == "€108.94")
    with page.expect_navigation(timeout=20_000):
        page.check("input[name=payment_method][value=card]")
    expect(page.locator("#total")).to_have_text("€110.05")
    check("card changes the payment fee", page.text_content("#total") == "€110.05", page.text_content("#total"))
    with page.expect_navigation(timeout=20_000):
        page.check("input[name=payment_method][value=ideal]")
    expect(page.locator("#total")).to_have_text("€108.94")
    screenshot(page, "standard-ideal")
    page.click("#pay")
    page.wait_for_url("**/v1/test/bank/**")
    screenshot(page, "bank")
    check("Pay leads to the bank page", "Test bank" in page.content())
    page.click("#complete")
    page.wait_for_url("**/shop/orders/**")
    screenshot(page, "order")
    check("back at the order, paid", page.get_attribute("#status", "data-status") == "paid" and page.text_content("#total") == "€108.94",
          page.text_content("#status"))
    page.click("text=My orders")
    screenshot(page, "orders")
    check("the orders page lists the order", "Bicycle" in page.text_content("#orders") and "Paid" in page.text_content("#orders"), page.text_content("#orders"))
    page.click("text=Sign out")
    check("signing out leaves the shop", page.url.endswith("/shop/signed-out"), page.url)
    response = page.goto(BASE + "/shop")
    check("and the shop no longer knows the buyer", response.status == 401, response.status)

    # The marketplace's console: the paid order in escrow, and escrow equal to its ledger account.
    page.goto(BASE + "/console/sign-in")
    page.fill("#key", MARKETPLACE_KEY)
    page.click("button[type=submit]")
    page.click("text=Marketplace")
    screenshot(page, "console-marketplace")
    main = page.text_content("main")
    check("the console shows the order's escrow equal to its ledger account",
          "What the orders hold equals the escrow account on the ledger." in main and main.count("€108.94") >= 3, main[:400])
    page.click("table a[href*='/console/marketplace/orders/']")
    screenshot(page, "console-order")
    check("and the order's story: paid and held in escrow", "Held in escrow" in page.text_content("main") and "paid" in page.text_content("main"))
    browser.close()

check("the pages made no request outside Tender", external == [], external)
done()
