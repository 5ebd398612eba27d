"""A SEP-24 deposit and withdrawal at Tender's test anchor, end to end: the Python stellar-sdk
is the wallet (SEP-10 sign-in, the withdrawal's payment, balances through Horizon), Debian's
Chromium (Playwright with executable_path) is the user on the interactive pages and Tender's
payment page, axe-core checks the pages.

Usage: python sep24_page.py URL CHROMIUM SCREENSHOT_DIR
Prints one line per check and exits non-zero at the first failure.
"""

import sys
import time
from decimal import Decimal
from urllib.parse import urlparse

import requests
from axe_playwright_python.sync_playwright import Axe
from interop_checks import check, done
from playwright.sync_api import sync_playwright
from stellar_sdk import Asset, Keypair, Network, Server, TransactionBuilder, TransactionEnvelope
from stellar_sdk.sep.stellar_toml import fetch_stellar_toml

URL, CHROMIUM, SHOTS = sys.argv[1].rstrip("/"), sys.argv[2], sys.argv[3]
PASSPHRASE = Network.STANDALONE_NETWORK_PASSPHRASE
server = Server(URL)
toml = fetch_stellar_toml(urlparse(URL).netloc, use_http=True)
SEP24 = toml["TRANSFER_SERVER_SEP0024"]
check("the toml names the SEP-24 server", SEP24 == f"{URL}/sep24", toml)
EUR = next(Asset(c["code"], c["issuer"]) for c in toml["CURRENCIES"] if c["code"] == "EUR")
check("EUR is a fiat-anchored asset with a short name", next(c for c in toml["CURRENCIES"] if c["code"] == "EUR")["anchor_asset_type"] == "fiat"
      and all(len(c["name"]) <= 20 for c in toml["CURRENCIES"]))
axe = Axe()
shots = {"n": 0}


def sign_in(keypair):
    challenge = requests.get(toml["WEB_AUTH_ENDPOINT"], params={"account": keypair.public_key}, timeout=30).json()["transaction"]
    envelope = TransactionEnvelope.from_xdr(challenge, PASSPHRASE)
    envelope.sign(keypair)
    return requests.post(toml["WEB_AUTH_ENDPOINT"], json={"transaction": envelope.to_xdr()}, timeout=30).json()["token"]


def funded(trust=True):
    keypair = Keypair.random()
    requests.get(f"{URL}/friendbot", params={"addr": keypair.public_key}, timeout=30).raise_for_status()
    if trust:
        change_trust(keypair)
    return keypair


def change_trust(keypair):
    tx = TransactionBuilder(server.load_account(keypair.public_key), PASSPHRASE, base_fee=100).set_timeout(60).append_change_trust_op(EUR).build()
    tx.sign(keypair)
    server.submit_transaction(tx)


def eur(address):
    for line in server.accounts().account_id(address).call()["balances"]:
        if line.get("asset_code") == "EUR" and line.get("asset_issuer") == EUR.issuer:
            return Decimal(line["balance"])
    return None


def start(kind, token, **fields):
    response = requests.post(f"{SEP24}/transactions/{kind}/interactive", headers={"Authorization": f"Bearer {token}"}, data={"asset_code": "EUR", **fields}, timeout=30)
    check(f"POST /transactions/{kind}/interactive answers the interactive URL", response.status_code == 200
          and response.json()["type"] == "interactive_customer_info_needed", response.text)
    return response.json()


def transaction(token, id):
    response = requests.get(f"{SEP24}/transaction", params={"id": id}, headers={"Authorization": f"Bearer {token}"}, timeout=30)
    return response.json()["transaction"]


def until(token, id, statuses, seconds=30):
    deadline = time.time() + seconds
    while time.time() < deadline:
        record = transaction(token, id)
        if record["status"] in statuses:
            return record
        time.sleep(0.2)
    return transaction(token, id)


def shot(page, name):
    shots["n"] += 1
    page.screenshot(path=f"{SHOTS}/{shots['n']:02d}-{name}.png", full_page=True)
    bad = [v for v in axe.run(page).response["violations"] if v["impact"] in ("serious", "critical")]
    check(f"axe: no serious or critical violations on {name}", not bad, [(v["id"], [n["target"] for n in v["nodes"]][:3]) for v in bad])


def pay(page, number):
    page.fill("#number", "")
    page.type("#number", number)
    page.fill("#expiry", "12/30")
    page.fill("#cvc", "123")
    page.click("#pay")


info = requests.get(f"{SEP24}/info", timeout=30).json()
check("/info states EUR's limits and fees", info["deposit"]["EUR"]["enabled"] and info["deposit"]["EUR"]["fee_fixed"] == 0.25
      and info["deposit"]["EUR"]["fee_percent"] == 1.5 and info["withdraw"]["EUR"]["fee_fixed"] == 0.25, info)

with sync_playwright() as playwright:
    browser = playwright.chromium.launch(executable_path=CHROMIUM)
    page = browser.new_context().new_page()
    external = []
    page.on("request", lambda request: None if request.url.startswith(URL) or request.url.startswith("data:") or request.url == "about:blank" else external.append(request.url))

    # --- a deposit paid by a 3-D Secure card -----------------------------------------------------
    alice = funded()
    token = sign_in(alice)
    started = start("deposit", token)
    check("unknown ids and other users' tokens find nothing", requests.get(f"{SEP24}/transaction", params={"id": started["id"]},
          headers={"Authorization": f"Bearer {sign_in(funded(trust=False))}"}, timeout=30).status_code == 404)
    check("no token is a 403", requests.get(f"{SEP24}/transaction", params={"id": started["id"]}, timeout=30).status_code == 403)
    check("a new deposit is incomplete", transaction(token, started["id"])["status"] == "incomplete")
    response = page.goto(started["url"])
    check("the interactive page answers with a strict CSP", response.status == 200 and "default-src 'none'" in response.headers["content-security-policy"])
    check("the amount field carries its autocomplete token", page.get_attribute("#amount", "autocomplete") == "transaction-amount")
    shot(page, "deposit-form")
    check("the one-time link does not open twice elsewhere", requests.get(started["url"], timeout=30).status_code == 404)
    page.fill("#amount", "0.10")
    page.click("button[type=submit]")
    check("an amount under the limit comes back on the form", "€1.00 to €10000.00" in page.text_content("[role=alert]") and page.input_value("#amount") == "0.10",
          page.text_content("[role=alert]"))
    page.fill("#amount", "10.00")
    page.click("button[type=submit]")
    page.wait_for_url("**/pay/cs_**")
    check("Continue leads to Tender's payment page", transaction(token, started["id"])["status"] == "pending_user_transfer_start")
    pay(page, "4000 0025 0000 3155")
    page.wait_for_selector("#challenge:not([hidden])")
    page.frame_locator("#challenge-frame").locator("#complete").click()
    page.wait_for_url("**/sep24/interactive/**/paid")
    shot(page, "deposit-paid")
    record = until(token, started["id"], ["completed", "error"])
    check("the deposit completes", record["status"] == "completed", record)
    check("its amounts add up: 10.00 in, 0.40 fee (1.5% + 0.25), 9.60 out", record["amount_in"] == "10.00" and record["amount_fee"] == "0.40"
          and record["amount_out"] == "9.60" and record["fee_details"]["total"] == "0.40" and record["amount_in_asset"] == "iso4217:EUR"
          and record["amount_out_asset"] == f"stellar:EUR:{EUR.issuer}", record)
    check("the EUR is on alice's account", eur(alice.public_key) == Decimal("9.60"))
    paid = server.transactions().transaction(record["stellar_transaction_id"]).call()
    check("stellar_transaction_id is the ledger's payment", paid["successful"] and paid["hash"] == record["stellar_transaction_id"])
    check("more_info_url shows the status", requests.get(record["more_info_url"], timeout=30).status_code == 200
          and "completed" in requests.get(record["more_info_url"], timeout=30).text)
    listed = requests.get(f"{SEP24}/transactions", params={"asset_code": "EUR"}, headers={"Authorization": f"Bearer {token}"}, timeout=30).json()["transactions"]
    check("/transactions lists it", [t["id"] for t in listed] == [started["id"]], listed)

    # --- iDEAL: through the test bank ------------------------------------------------------------
    started = start("deposit", token)
    page.goto(started["url"])
    page.fill("#amount", "4.00")
    page.check("input[value=ideal]")
    page.click("button[type=submit]")
    page.wait_for_url("**/pay/cs_**")
    page.click("#ideal")
    page.wait_for_url("**/v1/test/bank/**")
    page.click("#complete")
    page.wait_for_url("**/sep24/interactive/**/paid")
    record = until(token, started["id"], ["completed", "error"])
    check("a deposit paid by iDEAL completes: 4.00 less the card fee /info states (0.31)", record["status"] == "completed"
          and record["amount_fee"] == "0.31" and record["amount_out"] == "3.69" and eur(alice.public_key) == Decimal("13.29"), record)

    # --- a declined card ends in error, nothing issued -------------------------------------------
    started = start("deposit", token)
    page.goto(started["url"])
    page.fill("#amount", "5.00")
    page.click("button[type=submit]")
    page.wait_for_url("**/pay/cs_**")
    pay(page, "4000 0000 0000 0002")
    page.wait_for_selector("#failure:not([hidden])")
    record = until(token, started["id"], ["error"])
    check("a declined card ends the deposit in error", record["status"] == "error" and "declined" in (record["message"] or ""), record)
    check("and no EUR was issued", eur(alice.public_key) == Decimal("13.29"))

    # --- an account without the trustline waits in pending_trust ---------------------------------
    bob = funded(trust=False)
    bob_token = sign_in(bob)
    started = start("deposit", bob_token)
    page.goto(started["url"])
    page.fill("#amount", "2.00")
    page.click("button[type=submit]")
    page.wait_for_url("**/pay/cs_**")
    pay(page, "4242 4242 4242 4242")
    page.wait_for_url("**/sep24/interactive/**/paid")
    record = until(bob_token, started["id"], ["pending_trust"])
    check("a deposit to an account without the trustline waits in pending_trust", record["status"] == "pending_trust", record)
    change_trust(bob)
    record = until(bob_token, started["id"], ["completed"])
    check("once the trustline is added it completes", record["status"] == "completed" and eur(bob.public_key) == Decimal("1.72"), record)

    # --- the pages in Dutch (the wallet's lang) and German (the browser's) ------------------------
    started = start("deposit", token, lang="nl")
    page.goto(started["url"])
    check("the deposit page in Dutch, by the wallet's lang", page.text_content("h1") == "EUR storten" and page.get_attribute("html", "lang") == "nl"
          and "€ 1,00 tot € 10000,00" in page.text_content("#limits"), page.text_content("main"))
    page.fill("#amount", "2,50")
    page.click("button[type=submit]")
    page.wait_for_url("**/pay/cs_**")
    check("a Dutch amount with a comma is read", transaction(token, started["id"])["amount_in"] == "2.50")
    german = browser.new_context(extra_http_headers={"Accept-Language": "de-DE,de;q=0.9"}).new_page()
    started = start("withdraw", token)
    german.goto(started["url"])
    check("the withdrawal page in German, by the browser's language", german.text_content("h1") == "EUR auszahlen", german.text_content("main"))
    shot(german, "withdraw-form-german")

    # --- a withdrawal ---------------------------------------------------------------------------
    supply_before = Decimal(server.assets().for_code("EUR").for_issuer(EUR.issuer).call()["_embedded"]["records"][0]["balances"]["authorized"])
    started = start("withdraw", token)
    page.goto(started["url"])
    shot(page, "withdraw-form")
    page.fill("#amount", "5.00")
    page.click("button[type=submit]")
    shot(page, "withdraw-instructions")
    record = until(token, started["id"], ["pending_user_transfer_start"])
    check("the withdrawal says where to pay, with which memo", record["withdraw_memo_type"] == "id" and record["withdraw_anchor_account"].startswith("G")
          and page.text_content("#memo") == record["withdraw_memo"], record)
    tx = (TransactionBuilder(server.load_account(alice.public_key), PASSPHRASE, base_fee=100).set_timeout(60)
          .append_payment_op(record["withdraw_anchor_account"], EUR, "5").add_id_memo(int(record["withdraw_memo"])).build())
    tx.sign(alice)
    sent = server.submit_transaction(tx)
    record = until(token, started["id"], ["completed", "error"])
    check("the withdrawal completes once the payment arrives", record["status"] == "completed" and record["stellar_transaction_id"] == sent["hash"], record)
    check("its amounts: 5.00 in, 0.25 fee, 4.75 paid out", record["amount_in"] == "5.00" and record["amount_fee"] == "0.25" and record["amount_out"] == "4.75", record)
    check("alice's EUR went down by 5", eur(alice.public_key) == Decimal("8.29"))
    supply_after = Decimal(server.assets().for_code("EUR").for_issuer(EUR.issuer).call()["_embedded"]["records"][0]["balances"]["authorized"])
    check("the payout took 4.75 EUR out of circulation", supply_before - supply_after == Decimal("4.75"), (supply_before, supply_after))

    # --- SEP-6: the same transfers without the interactive pages (KYC by SEP-12 first) -----------
    headers = {"Authorization": f"Bearer {token}"}
    requests.put(f"{toml['KYC_SERVER']}/customer", headers=headers, json={"first_name": "Alice", "last_name": "A", "email_address": "alice@example.com"}, timeout=30)
    response = requests.get(f"{toml['TRANSFER_SERVER']}/deposit", params={"asset_code": "EUR", "amount": "3.00", "account": alice.public_key}, headers=headers, timeout=30)
    check("a SEP-6 deposit answers its payment URL", response.status_code == 200, response.text)
    deposit = response.json()
    page.goto(deposit["instructions"]["payment_url"]["value"])
    pay(page, "4242 4242 4242 4242")
    page.wait_for_url("**/sep24/more_info/**")
    record = until(token, deposit["id"], ["completed", "error"])
    check("the SEP-6 deposit completes: 3.00 less 0.30", record["status"] == "completed" and record["amount_out"] == "2.70" and eur(alice.public_key) == Decimal("10.99"), record)
    response = requests.get(f"{toml['TRANSFER_SERVER']}/withdraw", params={"asset_code": "EUR", "type": "bank_account", "amount": "1.00"}, headers=headers, timeout=30).json()
    tx = (TransactionBuilder(server.load_account(alice.public_key), PASSPHRASE, base_fee=100).set_timeout(60)
          .append_payment_op(response["account_id"], EUR, "1").add_id_memo(int(response["memo"])).build())
    tx.sign(alice)
    server.submit_transaction(tx)
    record = until(token, response["id"], ["completed", "error"])
    check("the SEP-6 withdrawal completes: 1.00 less 0.25 paid out", record["status"] == "completed" and record["amount_out"] == "0.75" and eur(alice.public_key) == Decimal("9.99"), record)
    listed = requests.get(f"{toml['TRANSFER_SERVER']}/transactions", params={"asset_code": "EUR"}, headers=headers, timeout=30).json()["transactions"]
    check("/transactions holds alice's eight transfers, newest first", len(listed) == 8 and listed[0]["id"] == response["id"], [t["id"] for t in listed])
    # Money adds up: what the deposits paid out equals what was paid in less the fees /info states.
    deposits = [t for t in listed if t["kind"] == "deposit" and t["status"] == "completed"]
    check("deposits: amount_in = amount_out + amount_fee, each", all(Decimal(t["amount_in"]) == Decimal(t["amount_out"]) + Decimal(t["amount_fee"]) for t in listed if t["amount_in"]))
    check("alice holds what her deposits paid out less what her withdrawals took", eur(alice.public_key)
          == sum(Decimal(t["amount_out"]) for t in deposits) - sum(Decimal(t["amount_in"]) for t in listed if t["kind"] == "withdrawal" and t["status"] == "completed"))

    # --- SEP-6 exchanges at SEP-38 quotes: dollars in, euros out; euros in, dollars out ----------
    QUOTES = toml["ANCHOR_QUOTE_SERVER"]
    stellar_eur = f"stellar:EUR:{EUR.issuer}"
    quote = requests.post(f"{QUOTES}/quote", headers=headers, timeout=30,
                          json={"sell_asset": "iso4217:USD", "buy_asset": stellar_eur, "sell_amount": "10.00", "context": "sep6"}).json()
    check("a quote: 10.00 USD for 8.88 EUR", quote["buy_amount"] == "8.88", quote)
    exchange = requests.get(f"{toml['TRANSFER_SERVER']}/deposit-exchange", headers=headers, timeout=30, params={
        "destination_asset": "EUR", "source_asset": "iso4217:USD", "amount": "10.00", "quote_id": quote["id"], "account": alice.public_key})
    check("deposit-exchange honours the quote and says where to pay", exchange.status_code == 200, exchange.text)
    again = requests.get(f"{toml['TRANSFER_SERVER']}/deposit-exchange", headers=headers, timeout=30, params={
        "destination_asset": "EUR", "source_asset": "iso4217:USD", "amount": "10.00", "quote_id": quote["id"]})
    check("a quote is honoured once", again.status_code == 400 and again.json()["code"] == "invalid_quote", again.text)
    page.goto(exchange.json()["instructions"]["payment_url"]["value"])
    check("the payment page asks for dollars", "$10.00" in page.text_content("body"))
    pay(page, "4242 4242 4242 4242")
    page.wait_for_url("**/sep24/more_info/**")
    record = until(token, exchange.json()["id"], ["completed", "error"])
    check("the exchange completes: 10.00 USD in, 0.40 USD fee, 8.88 EUR out", record["status"] == "completed" and record["kind"] == "deposit-exchange"
          and record["amount_in"] == "10.00" and record["amount_in_asset"] == "iso4217:USD" and record["amount_out"] == "8.88"
          and record["quote_id"] == quote["id"] and eur(alice.public_key) == Decimal("18.87"), record)
    quote = requests.post(f"{QUOTES}/quote", headers=headers, timeout=30,
                          json={"sell_asset": stellar_eur, "buy_asset": "iso4217:USD", "sell_amount": "5.00", "context": "sep6"}).json()
    exchange = requests.get(f"{toml['TRANSFER_SERVER']}/withdraw-exchange", headers=headers, timeout=30, params={
        "source_asset": "EUR", "destination_asset": "iso4217:USD", "amount": "5.00", "quote_id": quote["id"], "type": "bank_account"}).json()
    tx = (TransactionBuilder(server.load_account(alice.public_key), PASSPHRASE, base_fee=100).set_timeout(60)
          .append_payment_op(exchange["account_id"], EUR, "5").add_id_memo(int(exchange["memo"])).build())
    tx.sign(alice)
    server.submit_transaction(tx)
    record = until(token, exchange["id"], ["completed", "error"])
    check("withdraw-exchange: 5.00 EUR in, 0.25 fee, 5.13 USD paid out at the quote", record["status"] == "completed" and record["kind"] == "withdrawal-exchange"
          and record["amount_out"] == "5.13" == quote["buy_amount"] and record["amount_out_asset"] == "iso4217:USD" and eur(alice.public_key) == Decimal("13.87"), record)
    kinds = {k: [t["kind"] for t in requests.get(f"{toml['TRANSFER_SERVER']}/transactions", params={"asset_code": "EUR", "kind": k}, headers=headers, timeout=30).json()["transactions"]]
             for k in ("deposit", "deposit-exchange", "withdrawal-exchange")}
    check("/transactions by kind, exchanges apart", kinds["deposit"] and set(kinds["deposit"]) == {"deposit"} and kinds["deposit-exchange"] == ["deposit-exchange"]
          and kinds["withdrawal-exchange"] == ["withdrawal-exchange"], kinds)
    check("no page made a request elsewhere", not external, external)
    browser.close()

done()
