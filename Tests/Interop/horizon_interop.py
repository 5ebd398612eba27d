"""Drives a running `tender serve` only through the real Python stellar-sdk (16.1.1).

Usage: python horizon_interop.py HORIZON_URL
Prints one line per check and exits non-zero at the first failure.
"""

import base64
import queue
import sys
import threading
import warnings
import time
from decimal import Decimal

import requests
from interop_checks import check, done
from stellar_sdk import (
    Asset,
    AuthorizationFlag,
    Claimant,
    ClaimPredicate,
    Keypair,
    Network,
    Server,
    Signer,
    TransactionBuilder,
    TrustLineEntryFlag,
    TrustLineFlags,
)
from stellar_sdk.exceptions import BadRequestError, NotFoundError
from stellar_sdk import LiquidityPoolAsset
from stellar_sdk.sep.exceptions import AccountRequiresMemoError

URL = sys.argv[1].rstrip("/")
server = Server(URL)
root = server.root().call()
PASSPHRASE = root["network_passphrase"]
assert PASSPHRASE == Network.STANDALONE_NETWORK_PASSPHRASE, PASSPHRASE


def friendbot(address, asset=None):
    params = {"addr": address}
    if asset:
        params["asset"] = asset
    return requests.get(f"{URL}/friendbot", params=params, timeout=30)


def builder(keypair, fee=None):
    account = server.load_account(keypair.public_key)
    return TransactionBuilder(account, PASSPHRASE, base_fee=fee or server.fetch_base_fee()).set_timeout(60)


def submit(tx_builder, *signers, skip_memo_check=False):
    tx = tx_builder.build()
    for signer in signers:
        tx.sign(signer)
    return server.submit_transaction(tx, skip_memo_required_check=skip_memo_check)


def failure(tx_builder, *signers):
    """Submits and returns the result codes of the failure it must be."""
    try:
        submit(tx_builder, *signers, skip_memo_check=True)
    except BadRequestError as error:
        return error.extras["result_codes"]
    raise AssertionError("the transaction was expected to fail")


def with_params(call_builder, **params):
    """The SDK's builder with query parameters it has no method for (Tender's memo and asset filters, /liquidity_pools?account=)."""
    for key, value in params.items():
        call_builder._add_query_param(key, value)
    return call_builder


def balance(address, asset):
    for line in server.accounts().account_id(address).call()["balances"]:
        if asset.is_native() and line["asset_type"] == "native":
            return Decimal(line["balance"])
        if not asset.is_native() and line.get("asset_code") == asset.code and line.get("asset_issuer") == asset.issuer:
            return Decimal(line["balance"])
    return None


# --- root, stellar.toml, test anchor -------------------------------------------------------------
check("root names the network", root["network_passphrase"] == PASSPHRASE and root["history_latest_ledger"] >= 1)
check("root links what it serves: assets, account_transactions", root["_links"]["assets"]["href"].startswith(f"{URL}/assets")
      and root["_links"]["account_transactions"]["templated"])
toml = requests.get(f"{URL}/.well-known/stellar.toml", timeout=10).text
anchor = {}
for block in toml.split("[[CURRENCIES]]")[1:]:
    fields = dict(line.split("=", 1) for line in block.strip().splitlines() if "=" in line)
    anchor[fields["code"].strip('"')] = fields["issuer"].strip('"')
check("stellar.toml lists USDC, SRT and EUR", set(anchor) == {"USDC", "SRT", "EUR"} and f'NETWORK_PASSPHRASE="{PASSPHRASE}"' in toml)
SRT = Asset("SRT", anchor["SRT"])
USDC = Asset("USDC", anchor["USDC"])
issuer = server.accounts().account_id(anchor["SRT"]).call()
check("anchor issuers exist with a home domain", "home_domain" in issuer)

# --- friendbot and accounts ----------------------------------------------------------------------
alice, bob, maker, carol = (Keypair.random() for _ in range(4))
for keypair in (alice, bob, maker):
    response = friendbot(keypair.public_key)
    check("friendbot funds a new account", response.status_code == 200 and response.json()["successful"], response.text)
check("friendbot refuses a funded account", friendbot(alice.public_key).status_code == 400)
check("friendbot refuses a bad address", friendbot("GABC").json()["extras"]["invalid_field"] == "addr")
account = server.load_account(alice.public_key)
check("load_account reads the sequence", account.sequence > 0)
check("the new account holds 10000 XLM", balance(alice.public_key, Asset.native()) == Decimal("10000"))
try:
    server.accounts().account_id(carol.public_key).call()
    check("an unknown account is 404", False)
except NotFoundError:
    check("an unknown account is 404", True)
check("fetch_base_fee reads the last ledger", server.fetch_base_fee() == 100)
fee_stats = server.fee_stats().call()
check("fee_stats has percentiles as strings", fee_stats["fee_charged"]["p50"] == "100" and fee_stats["last_ledger_base_fee"] == "100")

# --- create account, native payment, memos -------------------------------------------------------
response = submit(builder(alice).append_create_account_op(carol.public_key, "50").add_text_memo("welcome carol"), alice)
check("CreateAccount succeeds", response["successful"] and response["memo"] == "welcome carol")
check("the created account holds its starting balance", balance(carol.public_key, Asset.native()) == Decimal("50"))
response = submit(builder(alice).append_payment_op(bob.public_key, Asset.native(), "12.5").add_id_memo(424242), alice)
check("native payment with an id memo", response["memo_type"] == "id" and response["memo"] == "424242")
response = submit(builder(bob).append_payment_op(alice.public_key, Asset.native(), "1").add_hash_memo(b"\x07" * 32), bob)
check("payment with a hash memo", response["memo_type"] == "hash")
tx = server.transactions().transaction(response["hash"]).call()
check("GET /transactions/{hash} finds it", tx["hash"] == response["hash"] and tx["ledger"] == response["ledger"])
check("bob's balance moved by exactly the payments and the fee", balance(bob.public_key, Asset.native()) == Decimal("10011.4999900"))

# --- trustlines and issued assets ----------------------------------------------------------------
for keypair in (alice, bob, maker):
    submit(builder(keypair).append_change_trust_op(SRT), keypair)
check("ChangeTrust adds a trustline", balance(alice.public_key, SRT) == Decimal("0"))
response = friendbot(carol.public_key, "SRT")
check("the anchor refuses an account without the trustline", response.status_code == 400 and "trust" in response.json()["detail"])
for keypair in (alice, maker):
    response = friendbot(keypair.public_key, "SRT")
    check("the anchor hands out 1000 SRT", response.status_code == 200, response.text)
check("alice holds 1000 SRT", balance(alice.public_key, SRT) == Decimal("1000"))
submit(builder(alice).append_payment_op(bob.public_key, SRT, "250"), alice)
check("credit payment", balance(bob.public_key, SRT) == Decimal("250") and balance(alice.public_key, SRT) == Decimal("750"))

# --- failures with their result codes ------------------------------------------------------------
stale = server.load_account(alice.public_key)
submit(TransactionBuilder(stale, PASSPHRASE, 100).set_timeout(60).append_payment_op(bob.public_key, Asset.native(), "1"), alice)
stale.sequence -= 1
codes = failure(TransactionBuilder(stale, PASSPHRASE, 100).set_timeout(60).append_payment_op(bob.public_key, Asset.native(), "2"), alice)
check("a reused sequence number is tx_bad_seq", codes["transaction"] == "tx_bad_seq", codes)
codes = failure(builder(alice).append_payment_op(bob.public_key, SRT, "5000"), alice)
check("paying more than held is op_underfunded", codes["operations"] == ["op_underfunded"], codes)
codes = failure(builder(alice).append_payment_op(carol.public_key, SRT, "1"), alice)
check("paying an asset the destination does not trust is op_no_trust", codes["operations"] == ["op_no_trust"], codes)
codes = failure(builder(alice).append_payment_op(Keypair.random().public_key, Asset.native(), "1"), alice)
check("paying a missing account is op_no_destination", codes["operations"] == ["op_no_destination"], codes)
codes = failure(builder(alice).append_create_account_op(Keypair.random().public_key, "0.5"), alice)
check("creating an account below the reserve is op_low_reserve", codes["operations"] == ["op_low_reserve"], codes)
codes = failure(builder(carol).append_payment_op(alice.public_key, Asset.native(), "49.5"), carol)
check("spending into the reserve is op_underfunded", codes["operations"] == ["op_underfunded"], codes)
submit(builder(carol).append_change_trust_op(SRT, limit="10"), carol)
codes = failure(builder(alice).append_payment_op(carol.public_key, SRT, "11"), alice)
check("paying past the trustline limit is op_line_full", codes["operations"] == ["op_line_full"], codes)
codes = failure(builder(alice).append_payment_op(bob.public_key, Asset.native(), "1"), bob)
check("signing with the wrong key is tx_bad_auth", codes["transaction"] == "tx_bad_auth", codes)
# The SDK will not send bad XDR, so this one goes by hand.
response = requests.post(f"{URL}/transactions", data={"tx": "AAAA"}, timeout=10)
check("malformed XDR is a 400 transaction_malformed", response.status_code == 400 and response.json()["type"].endswith("transaction_malformed"))

# --- offers and path payments --------------------------------------------------------------------
submit(builder(maker).append_change_trust_op(USDC), maker)
check("the anchor hands out 1000 USDC", friendbot(maker.public_key, "USDC").status_code == 200)
submit(builder(maker).append_manage_sell_offer_op(SRT, Asset.native(), "500", "1"), maker)
submit(builder(maker).append_manage_buy_offer_op(USDC, SRT, "400", "1"), maker)
offers = server.offers().for_seller(maker.public_key).call()["_embedded"]["records"]
check("ManageSellOffer and ManageBuyOffer leave two offers", len(offers) == 2, offers)
book = server.orderbook(SRT, Asset.native()).call()
check("the order book shows the SRT ask", book["asks"][0]["price"] == "1.0000000" and book["asks"][0]["amount"] == "500.0000000", book)
submit(builder(bob).append_change_trust_op(USDC), bob)
paths = server.strict_send_paths(Asset.native(), "10", [USDC]).call()["_embedded"]["records"]
check("strict-send paths go XLM -> SRT -> USDC", paths and paths[0]["path"][0]["asset_code"] == "SRT" and paths[0]["destination_amount"] == "10.0000000", paths)
path = [SRT]
submit(builder(alice).append_path_payment_strict_send_op(bob.public_key, Asset.native(), "10", USDC, "9.9", path), alice)
check("PathPaymentStrictSend delivers USDC", balance(bob.public_key, USDC) == Decimal("10"))
paths = server.strict_receive_paths(alice.public_key, USDC, "5").call()["_embedded"]["records"]
native_paths = [p for p in paths if p["source_asset_type"] == "native"]
check("strict-receive paths from alice's assets", native_paths and native_paths[0]["source_amount"] == "5.0000000", paths)
submit(builder(alice).append_path_payment_strict_receive_op(bob.public_key, Asset.native(), "5.5", USDC, "5", path), alice)
check("PathPaymentStrictReceive delivers exactly 5 USDC", balance(bob.public_key, USDC) == Decimal("15"))
payments = server.payments().for_account(bob.public_key).order(desc=True).limit(1).call()["_embedded"]["records"]
check("the path payment is in bob's payments", payments[0]["type"] == "path_payment_strict_receive" and payments[0]["source_amount"] == "5.0000000", payments)
codes = failure(builder(alice).append_path_payment_strict_send_op(bob.public_key, Asset.native(), "10", USDC, "11", path), alice)
check("a strict-send under its minimum is op_under_dest_min", codes["operations"] == ["op_under_dest_min"], codes)

# --- multi-signature -----------------------------------------------------------------------------
submit(builder(bob).append_set_options_op(signer=Signer.ed25519_public_key(carol.public_key, 1), low_threshold=2, med_threshold=2, high_threshold=2), bob)
signers = server.accounts().account_id(bob.public_key).call()["signers"]
check("SetOptions adds a signer", any(s["key"] == carol.public_key for s in signers))
codes = failure(builder(bob).append_payment_op(alice.public_key, Asset.native(), "1"), bob)
check("one of two signatures is tx_bad_auth", codes["transaction"] == "tx_bad_auth", codes)
response = submit(builder(bob).append_payment_op(alice.public_key, Asset.native(), "1"), bob, carol)
check("a 2-of-2 payment succeeds", response["successful"] and len(response["signatures"]) == 2)
signed_by_carol = {a["account_id"] for a in server.accounts().for_signer(carol.public_key).call()["_embedded"]["records"]}
check("/accounts?signer= lists the accounts a key signs for, its own included", signed_by_carol == {bob.public_key, carol.public_key}, signed_by_carol)

# --- SEP-29 --------------------------------------------------------------------------------------
submit(builder(maker).append_manage_data_op("config.memo_required", "1"), maker)
check("account data is shown base64", server.accounts().account_id(maker.public_key).call()["data"]["config.memo_required"] == "MQ==")
check("GET /accounts/{id}/data/{key} answers its value", server.data(maker.public_key, "config.memo_required").call()["value"] == "MQ==")
raw = requests.get(f"{URL}/accounts/{maker.public_key}/data/config.memo_required", headers={"Accept": "application/octet-stream"}, timeout=10)
check("... and the raw bytes for application/octet-stream", raw.status_code == 200 and raw.content == b"1", raw.content)
try:
    server.data(maker.public_key, "no.such.key").call()
    check("an unknown data key is 404", False)
except NotFoundError:
    check("an unknown data key is 404", True)
try:
    submit(builder(alice).append_payment_op(maker.public_key, Asset.native(), "1"), alice)
    check("the SDK's memo check stops a payment without memo", False)
except AccountRequiresMemoError:
    check("the SDK's memo check stops a payment without memo", True)
response = submit(builder(alice).append_payment_op(maker.public_key, Asset.native(), "1").add_text_memo("invoice 7"), alice)
check("the SDK's memo check passes with a memo", response["successful"])

# --- trustline removal, merge --------------------------------------------------------------------
submit(builder(alice).append_payment_op(maker.public_key, SRT, "750").add_text_memo("back"), alice)
submit(builder(alice).append_change_trust_op(SRT, limit="0"), alice)
check("ChangeTrust with limit 0 removes the empty trustline", balance(alice.public_key, SRT) is None)
merged = Keypair.random()
submit(builder(alice).append_create_account_op(merged.public_key, "20"), alice)
before = balance(alice.public_key, Asset.native())
submit(builder(merged).append_account_merge_op(alice.public_key), merged)
check("AccountMerge moves the balance and removes the account", balance(alice.public_key, Asset.native()) == before + Decimal("20") - Decimal("0.00001"))
try:
    server.load_account(merged.public_key)
    check("the merged account is gone", False)
except NotFoundError:
    check("the merged account is gone", True)

# --- assets and their holders -------------------------------------------------------------------
srt = server.assets().for_code("SRT").for_issuer(SRT.issuer).call()["_embedded"]["records"]
check("/assets finds SRT by code and issuer", len(srt) == 1 and srt[0]["asset_type"] == "credit_alphanum4" and srt[0]["asset_issuer"] == SRT.issuer, srt)
srt = srt[0]
holders = []
page = server.accounts().for_asset(SRT).limit(2)
records = page.call()["_embedded"]["records"]
while records:
    holders += records
    records = page.next()["_embedded"]["records"]
ids = [h["account_id"] for h in holders]
check("/accounts?asset= pages through SRT's holders once each (bob, carol, maker; not alice, who gave it up)",
      {bob.public_key, carol.public_key, maker.public_key} <= set(ids) and alice.public_key not in ids and len(set(ids)) == len(ids), ids)
held = sum(Decimal(b["balance"]) for h in holders for b in h["balances"] if b.get("asset_code") == "SRT" and b["asset_issuer"] == SRT.issuer)
check("SRT's holders and balances add up to what /assets says", srt["accounts"]["authorized"] == srt["num_accounts"] == len(ids)
      and Decimal(srt["balances"]["authorized"]) == Decimal(srt["amount"]) == held and held >= Decimal("2000"), (srt, held))
check("an asset shows its issuer's flags and toml link", set(srt["flags"]) == {"auth_required", "auth_revocable", "auth_immutable", "auth_clawback_enabled"}
      and srt["_links"]["toml"]["href"] == f"https://{issuer['home_domain']}/.well-known/stellar.toml", srt)
every, page = [], server.assets().limit(1)
records = page.call()["_embedded"]["records"]
while records:
    every += records
    records = page.next()["_embedded"]["records"]
check("/assets pages by code with its CODE_ISSUER_TYPE tokens", [a["asset_code"] for a in every] == sorted(a["asset_code"] for a in every)
      and {"SRT", "USDC"} <= {a["asset_code"] for a in every} and every[0]["paging_token"].endswith("_credit_alphanum4"), [a["paging_token"] for a in every])
try:
    server.accounts().call()
    check("/accounts without a filter is refused", False)
except BadRequestError:
    check("/accounts without a filter is refused", True)
try:
    server.accounts().for_liquidity_pool("not-a-pool").call()
    check("/accounts?liquidity_pool= with a malformed id is refused naming the field", False)
except BadRequestError as error:
    check("/accounts?liquidity_pool= with a malformed id is refused naming the field", error.extras["invalid_field"] == "liquidity_pool")

# --- asynchronous submission --------------------------------------------------------------------
tx = builder(alice).append_payment_op(bob.public_key, Asset.native(), "0.5").build()
tx.sign(alice)
answer = server.submit_transaction_async(tx)
check("POST /transactions_async answers PENDING at once", answer["tx_status"] == "PENDING" and answer["hash"] == tx.hash_hex(), answer)
again = requests.post(f"{URL}/transactions_async", data={"tx": tx.to_xdr()}, timeout=10)
check("the same transaction again is DUPLICATE (409)", again.status_code == 409 and again.json()["tx_status"] == "DUPLICATE", again.text)
deadline = time.time() + 10
while time.time() < deadline:
    try:
        applied = server.transactions().transaction(tx.hash_hex()).call()
        break
    except NotFoundError:
        time.sleep(0.1)
check("the PENDING transaction reaches a ledger", applied["successful"])
stale = requests.post(f"{URL}/transactions_async", data={"tx": tx.to_xdr()}, timeout=10)
check("once applied it is still DUPLICATE", stale.status_code == 409 and stale.json()["tx_status"] == "DUPLICATE", stale.text)
bad = builder(alice).append_payment_op(bob.public_key, Asset.native(), "0.5").build()
bad.sign(Keypair.random())
refused = requests.post(f"{URL}/transactions_async", data={"tx": bad.to_xdr()}, timeout=10)
check("a transaction the queue refuses is ERROR (400) with its result", refused.status_code == 400 and refused.json()["tx_status"] == "ERROR"
      and refused.json()["errorResultXdr"], refused.text)
check("... tx_bad_auth, nothing applied", server.load_account(alice.public_key).sequence == bad.transaction.sequence - 1)

# --- join=transactions -------------------------------------------------------------------------
joined = server.payments().for_account(bob.public_key).join("transactions").limit(5).call()["_embedded"]["records"]
check("join=transactions embeds each payment's transaction", joined and all(r["transaction"]["hash"] == r["transaction_hash"] for r in joined), joined[:1])
joined = server.operations().join("transactions").order(desc=True).limit(3).call()["_embedded"]["records"]
check("... and each operation's", all(r["transaction"]["id"] == r["transaction_hash"] for r in joined))
check("without it there is none", "transaction" not in server.payments().for_account(bob.public_key).limit(1).call()["_embedded"]["records"][0])
wrong = requests.get(f"{URL}/payments", params={"join": "ledgers"}, timeout=10)
check("join of anything else is refused with invalid_field join", wrong.status_code == 400 and wrong.json()["extras"]["invalid_field"] == "join", wrong.text)

# --- a ledger's own collections, the oldest ledger, health --------------------------------------
latest = server.transactions().for_account(alice.public_key).order(desc=True).limit(1).call()["_embedded"]["records"][0]
in_ledger = server.transactions().for_ledger(latest["ledger"]).limit(200).include_failed(True).call()["_embedded"]["records"]
check("/ledgers/{seq}/transactions lists that ledger's, and only them", latest["hash"] in [t["hash"] for t in in_ledger]
      and {t["ledger"] for t in in_ledger} == {latest["ledger"]}, [t["ledger"] for t in in_ledger])
ops = server.operations().for_ledger(latest["ledger"]).limit(200).call()["_embedded"]["records"]
check("/ledgers/{seq}/operations, all of that ledger's transactions", ops and {o["transaction_hash"] for o in ops} <= {t["hash"] for t in in_ledger}, ops)
pays = server.payments().for_ledger(latest["ledger"]).order(desc=True).call()["_embedded"]["records"]
check("/ledgers/{seq}/payments, newest first", [int(p["id"]) for p in pays] == sorted((int(p["id"]) for p in pays), reverse=True)
      and all(int(p["id"]) >> 32 == latest["ledger"] for p in pays), pays)
check("an empty ledger's collections are empty", server.transactions().for_ledger(2**31 - 1).call()["_embedded"]["records"] == [])
elder = server.root().call()["history_elder_ledger"]
check("history_elder_ledger is a ledger history holds", server.ledgers().ledger(elder).call()["sequence"] == elder, elder)
health = requests.get(f"{URL}/health", timeout=10).json()
check("/health answers Horizon's fields", health["database_connected"] and health["core_up"] and health["core_synced"], health)

# --- effects -------------------------------------------------------------------------------------
def every(call_builder, limit=200):
    """Every record of a collection, page by page through the SDK's next()."""
    records, page = [], call_builder.limit(limit)
    batch = page.call()["_embedded"]["records"]
    while batch:
        records += batch
        batch = page.next()["_embedded"]["records"]
    return records


def operation_of(effect):
    return effect["_links"]["operation"]["href"].rsplit("/", 1)[1]


carol_effects = every(server.effects().for_account(carol.public_key), limit=3)
check("an account's effects begin account_created, signer_created", [e["type"] for e in carol_effects[:2]] == ["account_created", "signer_created"]
      and carol_effects[0]["starting_balance"] == "50.0000000" and carol_effects[1]["public_key"] == carol.public_key
      and carol_effects[1]["weight"] == 1, carol_effects[:2])
created = server.effects().for_operation(operation_of(carol_effects[0])).call()["_embedded"]["records"]
check("CreateAccount's effects: account_created, account_debited (the funder), signer_created",
      [(e["type"], e["account"]) for e in created] == [("account_created", carol.public_key), ("account_debited", alice.public_key), ("signer_created", carol.public_key)]
      and created[1]["amount"] == "50.0000000" and created[1]["asset_type"] == "native", created)
op_id = operation_of(created[0])
check("effect ids, paging tokens and type_i are Horizon's", created[0]["id"] == f"{int(op_id):019d}-{1:010d}" and created[0]["paging_token"] == f"{op_id}-1"
      and [e["type_i"] for e in created] == [0, 3, 10], created[0])
trust = [e for e in carol_effects if e["type"] == "trustline_created"]
check("ChangeTrust: trustline_created with the asset and limit", trust and trust[0]["asset_code"] == "SRT" and trust[0]["asset_issuer"] == SRT.issuer
      and trust[0]["limit"] == "10.0000000", trust)

bob_effects = every(server.effects().for_account(bob.public_key))
credit = next(e for e in bob_effects if e["type"] == "account_credited" and e.get("asset_code") == "SRT" and e["amount"] == "250.0000000")
paid = server.effects().for_operation(operation_of(credit)).call()["_embedded"]["records"]
check("a payment's effects: account_credited (to), account_debited (from)", [(e["type"], e["account"]) for e in paid]
      == [("account_credited", bob.public_key), ("account_debited", alice.public_key)] and paid[1]["amount"] == "250.0000000", paid)
usdc = next(e for e in bob_effects if e["type"] == "account_credited" and e.get("asset_code") == "USDC" and e["amount"] == "10.0000000")
swap = server.effects().for_operation(operation_of(usdc)).call()["_embedded"]["records"]
check("a strict-send path payment: credited, debited, then two trade effects per offer crossed",
      [e["type"] for e in swap] == ["account_credited", "account_debited", "trade", "trade", "trade", "trade"]
      and swap[1]["account"] == alice.public_key and swap[1]["asset_type"] == "native" and swap[1]["amount"] == "10.0000000", [e["type"] for e in swap])
taker, owner = swap[2], swap[3]
check("the taker's trade: sold XLM, bought SRT from the offer's seller", taker["account"] == alice.public_key and taker["seller"] == maker.public_key
      and taker["sold_asset_type"] == "native" and taker["sold_amount"] == "10.0000000" and taker["bought_asset_code"] == "SRT"
      and taker["offer_id"] == owner["offer_id"], taker)
check("the offer owner's trade: the same trade from its side", owner["account"] == maker.public_key and owner["seller"] == alice.public_key
      and owner["sold_asset_code"] == "SRT" and owner["bought_asset_type"] == "native" and owner["bought_amount"] == taker["sold_amount"], owner)
options = next(e for e in bob_effects if e["type"] == "account_thresholds_updated")
check("SetOptions: thresholds updated, then signer_created", [(e["type"], e.get("public_key")) for e in server.effects().for_operation(operation_of(options)).call()["_embedded"]["records"]]
      == [("account_thresholds_updated", None), ("signer_created", carol.public_key)]
      and (options["low_threshold"], options["med_threshold"], options["high_threshold"]) == (2, 2, 2), options)
data = [e for e in every(server.effects().for_account(maker.public_key)) if e["type"].startswith("data_")]
check("ManageData: data_created with its name and base64 value", [(e["type"], e["name"], e["value"]) for e in data] == [("data_created", "config.memo_required", "MQ==")], data)
alice_effects = every(server.effects().for_account(alice.public_key))
removed = [e for e in alice_effects if e["type"] == "trustline_removed"]
check("ChangeTrust with limit 0: trustline_removed", len(removed) == 1 and removed[0]["asset_code"] == "SRT" and removed[0]["limit"] == "0.0000000", removed)
gone = every(server.effects().for_account(merged.public_key))
check("AccountMerge: account_debited (the balance less its fee), account_removed",
      [e["type"] for e in gone][-2:] == ["account_debited", "account_removed"] and gone[-2]["amount"] == "19.9999900", [e["type"] for e in gone])
merge = server.effects().for_operation(operation_of(gone[-1])).call()["_embedded"]["records"]
check("... and account_credited to the destination, between them", [(e["type"], e["account"]) for e in merge]
      == [("account_debited", merged.public_key), ("account_credited", alice.public_key), ("account_removed", merged.public_key)], merge)
sequence = server.load_account(alice.public_key).sequence
response = submit(builder(alice).append_bump_sequence_op(sequence + 100), alice)
bumped = server.effects().for_transaction(response["hash"]).call()["_embedded"]["records"]
check("BumpSequence: sequence_bumped with new_seq as a string", [(e["type"], e["new_seq"]) for e in bumped] == [("sequence_bumped", str(sequence + 100))], bumped)
in_ledger = every(server.effects().for_ledger(response["ledger"]))
check("/ledgers/{seq}/effects holds that ledger's", bumped[0]["id"] in [e["id"] for e in in_ledger]
      and all(int(e["paging_token"].split("-")[0]) >> 32 == response["ledger"] for e in in_ledger), in_ledger)
check("the account's effects were paged 200 and 3 at a time alike", [e["id"] for e in carol_effects] == [e["id"] for e in every(server.effects().for_account(carol.public_key))])
newest = server.effects().order(desc=True).limit(5).call()["_embedded"]["records"]
check("/effects pages backwards by OPID-ORDER", [tuple(map(int, e["paging_token"].split("-"))) for e in newest]
      == sorted((tuple(map(int, e["paging_token"].split("-"))) for e in newest), reverse=True), newest)
after = server.effects().cursor(op_id).limit(1).call()["_embedded"]["records"]
check("a bare operation id as cursor skips all of that operation's effects (an operation's succeeds/precedes links)",
      after and int(after[0]["paging_token"].split("-")[0]) > int(op_id), after)
bad = requests.get(f"{URL}/effects", params={"cursor": "x-1"}, timeout=10)
check("a cursor that is not OPID-ORDER is refused naming cursor", bad.status_code == 400 and bad.json()["extras"]["invalid_field"] == "cursor", bad.text)
try:
    server.effects().for_transaction("00" * 32).call()
    check("an unknown transaction's effects are 404", False)
except NotFoundError:
    check("an unknown transaction's effects are 404", True)
check("root links effects", root["_links"]["effects"]["href"].startswith(f"{URL}/effects"))

# --- trades and their aggregations -----------------------------------------------------------------
SYNTHETIC = 1 << 62
maker_trades = every(server.trades().for_account(maker.public_key), limit=3)
check("an account's trades: both path payments crossed two of the maker's offers each", len(maker_trades) == 4
      and all(maker.public_key in (t["base_account"], t["counter_account"]) for t in maker_trades), maker_trades)
first = maker_trades[0]
check("a trade's id and paging token are OPID-ORDER, its claim's index", first["id"] == first["paging_token"] == f"{operation_of(swap[0])}-0"
      and maker_trades[1]["paging_token"] == f"{operation_of(swap[0])}-1", [t["id"] for t in maker_trades])
check("base is the lower asset (XLM): the path payment's side, with Horizon's synthetic offer id for a taker that left no offer",
      first["base_asset_type"] == "native" and first["base_account"] == alice.public_key and first["base_is_seller"] is False
      and int(first["base_offer_id"]) == int(operation_of(swap[0])) | SYNTHETIC and first["counter_asset_code"] == "SRT"
      and first["counter_account"] == maker.public_key and first["base_amount"] == first["counter_amount"] == "10.0000000"
      and first["price"] == {"n": "1", "d": "1"} and first["trade_type"] == "orderbook", first)
srt_offer = first["counter_offer_id"]
by_pair = every(server.trades().for_asset_pair(SRT, Asset.native()))
check("for_asset_pair(SRT, XLM) turns them round: SRT is base, the maker its seller", [t["id"] for t in by_pair] == [maker_trades[0]["id"], maker_trades[2]["id"]]
      and all(t["base_asset_code"] == "SRT" and t["base_account"] == maker.public_key and t["base_is_seller"] is True for t in by_pair)
      and [t["base_amount"] for t in by_pair] == ["10.0000000", "5.0000000"], by_pair)
by_offer = every(server.trades().for_offer(srt_offer))
check("an offer's trades (/offers/{id}/trades)", [t["id"] for t in by_offer] == [t["id"] for t in by_pair], by_offer)
check("trade_type filter: no liquidity-pool trades", server.trades().for_account(maker.public_key).for_trade_type("liquidity_pool").call()["_embedded"]["records"] == [])
check("/trades?offer_id= is the same as the offer's", [t["id"] for t in requests.get(f"{URL}/trades", params={"offer_id": srt_offer, "limit": 200}, timeout=10).json()["_embedded"]["records"]] == [t["id"] for t in by_offer])
lone = requests.get(f"{URL}/trades", params={"base_asset_type": "native"}, timeout=10)
check("a base asset without a counter is refused naming counter_asset_type", lone.status_code == 400 and lone.json()["extras"]["invalid_field"] == "counter_asset_type", lone.text)
buckets = server.trade_aggregations(SRT, Asset.native(), 60000).call()["_embedded"]["records"]
check("trade_aggregations sums the pair's trades per minute: 15 SRT for 15 XLM at 1", sum(int(b["trade_count"]) for b in buckets) == 2
      and sum(Decimal(b["base_volume"]) for b in buckets) == Decimal("15") and sum(Decimal(b["counter_volume"]) for b in buckets) == Decimal("15")
      and all(b["avg"] == b["open"] == b["close"] == b["high"] == b["low"] == "1.0000000" and b["high_r"] == {"n": "1", "d": "1"} for b in buckets)
      and all(int(b["timestamp"]) % 60000 == 0 for b in buckets), buckets)
week = server.trade_aggregations(Asset.native(), SRT, 604800000, offset=3600000).call()["_embedded"]["records"]
check("... a week from an hour's offset, turned round", len(week) == 1 and week[0]["trade_count"] == "2" and week[0]["base_volume"] == "15.0000000"
      and (int(week[0]["timestamp"]) - 3600000) % 604800000 == 0, week)
bad = requests.get(f"{URL}/trade_aggregations", params={"base_asset_type": "native", "counter_asset_type": "credit_alphanum4", "counter_asset_code": "SRT",
                                                         "counter_asset_issuer": SRT.issuer, "resolution": "1000"}, timeout=10)
check("a resolution Horizon does not allow is refused naming resolution", bad.status_code == 400 and bad.json()["extras"]["invalid_field"] == "resolution", bad.text)
bad = requests.get(f"{URL}/trade_aggregations", params={"base_asset_type": "native", "counter_asset_type": "credit_alphanum4", "counter_asset_code": "SRT",
                                                         "counter_asset_issuer": SRT.issuer, "resolution": "60000", "offset": "3600000"}, timeout=10)
check("an offset past the resolution is refused naming offset", bad.status_code == 400 and bad.json()["extras"]["invalid_field"] == "offset", bad.text)
check("root links trades and trade_aggregations", root["_links"]["trades"]["href"].startswith(f"{URL}/trades")
      and root["_links"]["trade_aggregations"]["href"].startswith(f"{URL}/trade_aggregations"))

# --- trustline flags and clawback -----------------------------------------------------------------
bank, holder = Keypair.random(), Keypair.random()
for keypair in (bank, holder):
    friendbot(keypair.public_key)
GOLD = Asset("GOLD", bank.public_key)
submit(builder(bank).append_set_options_op(set_flags=AuthorizationFlag.AUTHORIZATION_REQUIRED | AuthorizationFlag.AUTHORIZATION_REVOCABLE
                                           | AuthorizationFlag.AUTHORIZATION_CLAWBACK_ENABLED), bank)
submit(builder(holder).append_change_trust_op(GOLD), holder)
line = next(b for b in server.accounts().account_id(holder.public_key).call()["balances"] if b.get("asset_code") == "GOLD")
check("a trustline to an issuer that requires authorization starts unauthorized, with clawback", line["is_authorized"] is False
      and line["is_clawback_enabled"] is True, line)
codes = failure(builder(bank).append_payment_op(holder.public_key, GOLD, "1"), bank)
check("paying an unauthorized trustline is op_not_authorized", codes["operations"] == ["op_not_authorized"], codes)
response = submit(builder(bank).append_set_trust_line_flags_op(holder.public_key, GOLD, set_flags=TrustLineFlags.AUTHORIZED_FLAG)
                  .append_payment_op(holder.public_key, GOLD, "100"), bank)
check("SetTrustLineFlags authorizes, then the payment goes", response["successful"] and balance(holder.public_key, GOLD) == Decimal("100"))
op = server.operations().for_transaction(response["hash"]).call()["_embedded"]["records"][0]
check("the set_trust_line_flags operation as Horizon shows it", op["type"] == "set_trust_line_flags" and op["trustor"] == holder.public_key
      and op["set_flags"] == [1] and op["set_flags_s"] == ["authorized"] and "clear_flags" not in op, op)
flags = server.effects().for_operation(op["id"]).call()["_embedded"]["records"]
check("... its trustline_flags_updated effect", [(e["type"], e["account"], e["trustor"], e.get("authorized_flag")) for e in flags]
      == [("trustline_flags_updated", bank.public_key, holder.public_key, True)], flags)
submit(builder(holder).append_manage_sell_offer_op(GOLD, Asset.native(), "30", "2"), holder)
response = submit(builder(bank).append_clawback_op(GOLD, holder.public_key, "40"), bank)
check("Clawback takes back 40 of 100 GOLD", balance(holder.public_key, GOLD) == Decimal("60"))
op = server.operations().for_transaction(response["hash"]).call()["_embedded"]["records"][0]
check("the clawback operation and its effects", op["type"] == "clawback" and op["from"] == holder.public_key and op["amount"] == "40.0000000"
      and [(e["type"], e["account"]) for e in server.effects().for_operation(op["id"]).call()["_embedded"]["records"]]
      == [("account_credited", bank.public_key), ("account_debited", holder.public_key)], op)
codes = failure(builder(bank).append_clawback_op(GOLD, holder.public_key, "31"), bank)
check("what the holder's offer reserves cannot be clawed back: op_underfunded", codes["operations"] == ["op_underfunded"], codes)
gold = server.assets().for_code("GOLD").for_issuer(bank.public_key).call()["_embedded"]["records"][0]
check("/assets: the supply fell by what was clawed back; the issuer's flags", gold["amount"] == "60.0000000" and gold["flags"]["auth_clawback_enabled"], gold)
with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)  # AllowTrust is deprecated in favour of SetTrustLineFlags, and still served
    response = submit(builder(bank).append_allow_trust_op(holder.public_key, "GOLD", TrustLineEntryFlag.UNAUTHORIZED_FLAG), bank)
check("AllowTrust revokes: the holder's offer in GOLD is gone", server.offers().for_seller(holder.public_key).call()["_embedded"]["records"] == [])
effects = server.effects().for_transaction(response["hash"]).call()["_embedded"]["records"]
check("... with trustline_deauthorized then trustline_flags_updated", [e["type"] for e in effects] == ["trustline_deauthorized", "trustline_flags_updated"]
      and effects[0]["asset_code"] == "GOLD" and effects[1]["authorized_flag"] is False, effects)
codes = failure(builder(holder).append_payment_op(bank.public_key, GOLD, "1"), holder)
check("a revoked holder cannot pay: op_src_not_authorized", codes["operations"] == ["op_src_not_authorized"], codes)
codes = failure(builder(bank).append_set_trust_line_flags_op(holder.public_key, GOLD, set_flags=TrustLineFlags.TRUSTLINE_CLAWBACK_ENABLED_FLAG), bank)
check("setting a trustline's clawback flag is op_malformed", codes["operations"] == ["op_malformed"], codes)

# --- claimable balances --------------------------------------------------------------------------
giver, taker, later = Keypair.random(), Keypair.random(), Keypair.random()
for keypair in (giver, taker, later):
    friendbot(keypair.public_key)
tx = builder(giver).append_create_claimable_balance_op(Asset.native(), "25", [
    Claimant(taker.public_key),
    Claimant(later.public_key, ClaimPredicate.predicate_not(ClaimPredicate.predicate_before_relative_time(3600))),
]).build()
tx.sign(giver)
response = server.submit_transaction(tx)
balance_id = tx.transaction.get_claimable_balance_id(0)
record = server.claimable_balances().claimable_balance(balance_id).call()
check("CreateClaimableBalance: /claimable_balances/{id} finds it by the id the SDK computes", record["id"] == balance_id and record["asset"] == "native"
      and record["amount"] == "25.0000000" and record["sponsor"] == giver.public_key and record["flags"] == {"clawback_enabled": False}, record)
predicates = [c["predicate"] for c in record["claimants"]]
check("... its claimants' predicates, the relative time made absolute", predicates[0] == {"unconditional": True}
      and int(predicates[1]["not"]["abs_before_epoch"]) >= int(time.time()) + 3500 and predicates[1]["not"]["abs_before"].endswith("Z"), predicates)
check("the giver pays both claimants' reserves (num_sponsoring)", server.accounts().account_id(giver.public_key).call()["num_sponsoring"] == 2)
check("/claimable_balances?claimant=, ?sponsor=, ?asset=", [r["id"] for r in server.claimable_balances().for_claimant(later.public_key).call()["_embedded"]["records"]] == [balance_id]
      and [r["id"] for r in server.claimable_balances().for_sponsor(giver.public_key).call()["_embedded"]["records"]] == [balance_id]
      and balance_id in [r["id"] for r in every(server.claimable_balances().for_asset(Asset.native()))])
codes = failure(builder(later).append_claim_claimable_balance_op(balance_id), later)
check("a claimant whose predicate does not hold yet: op_cannot_claim", codes["operations"] == ["op_cannot_claim"], codes)
before = balance(taker.public_key, Asset.native())
claimed = submit(builder(taker).append_claim_claimable_balance_op(balance_id), taker)
check("ClaimClaimableBalance pays the claimant", balance(taker.public_key, Asset.native()) == before + Decimal("25") - Decimal("0.00001"))
check("... and the balance is gone (404), the giver's reserves freed", server.accounts().account_id(giver.public_key).call()["num_sponsoring"] == 0)
try:
    server.claimable_balances().claimable_balance(balance_id).call()
    check("a claimed balance is 404", False)
except NotFoundError:
    check("a claimed balance is 404", True)
ops = server.operations().for_claimable_balance(balance_id).call()["_embedded"]["records"]
check("/claimable_balances/{id}/operations: its creation and its claim", [o["type"] for o in ops] == ["create_claimable_balance", "claim_claimable_balance"]
      and ops[0]["claimants"][0]["destination"] == taker.public_key and ops[1]["balance_id"] == balance_id and ops[1]["claimant"] == taker.public_key, ops)
txs = server.transactions().for_claimable_balance(balance_id).call()["_embedded"]["records"]
check("... and /transactions", [t["hash"] for t in txs] == [response["hash"], claimed["hash"]], txs)
made = server.effects().for_transaction(response["hash"]).call()["_embedded"]["records"]
check("creation effects: created, a claimant_created each, debited, sponsorship", [e["type"] for e in made] == ["claimable_balance_created",
      "claimable_balance_claimant_created", "claimable_balance_claimant_created", "account_debited", "claimable_balance_sponsorship_created"]
      and made[2]["account"] == later.public_key and made[2]["predicate"] == {"not": {"rel_before": "3600"}}, made)
taken = server.effects().for_transaction(claimed["hash"]).call()["_embedded"]["records"]
check("claim effects: claimed, credited, sponsorship removed", [e["type"] for e in taken] == ["claimable_balance_claimed", "account_credited",
      "claimable_balance_sponsorship_removed"] and taken[0]["balance_id"] == balance_id, taken)
codes = failure(builder(taker).append_claim_claimable_balance_op(balance_id), taker)
check("claiming it again: op_does_not_exist", codes["operations"] == ["op_does_not_exist"], codes)
tx = builder(bank).append_create_claimable_balance_op(GOLD, "5", [Claimant(taker.public_key)]).build()
tx.sign(bank)
server.submit_transaction(tx)
gold_id = tx.transaction.get_claimable_balance_id(0)
check("the issuer's own balance with clawback enabled", server.claimable_balances().claimable_balance(gold_id).call()["flags"]["clawback_enabled"])
gold = server.assets().for_code("GOLD").for_issuer(bank.public_key).call()["_embedded"]["records"][0]
check("/assets counts what claimable balances hold", gold["num_claimable_balances"] == 1 and gold["claimable_balances_amount"] == "5.0000000", gold)
submit(builder(bank).append_clawback_claimable_balance_op(gold_id), bank)
try:
    server.claimable_balances().claimable_balance(gold_id).call()
    check("ClawbackClaimableBalance takes it back", False)
except NotFoundError:
    check("ClawbackClaimableBalance takes it back", True)
bad = requests.get(f"{URL}/claimable_balances/nothex", timeout=10)
check("a malformed balance id is refused naming id", bad.status_code == 400 and bad.json()["extras"]["invalid_field"] == "id", bad.text)
check("root links claimable_balances", root["_links"]["claimable_balances"]["href"].startswith(f"{URL}/claimable_balances"))

# --- sponsored reserves (CAP-33) ------------------------------------------------------------------
patron, ward, helper = Keypair.random(), Keypair.random(), Keypair.random()
friendbot(patron.public_key)
friendbot(helper.public_key)
PAT = Asset("PAT", patron.public_key)
# The patron makes the ward's account with nothing, and pays for its trustline, data entry, signer and an offer.
tx = (builder(patron)
      .append_begin_sponsoring_future_reserves_op(ward.public_key)
      .append_create_account_op(ward.public_key, "0")
      .append_change_trust_op(PAT, source=ward.public_key)
      .append_manage_data_op("nickname", b"ward", source=ward.public_key)
      .append_ed25519_public_key_signer(helper.public_key, 1, source=ward.public_key)
      .append_end_sponsoring_future_reserves_op(source=ward.public_key)
      .build())
tx.sign(patron)
tx.sign(ward)
made = server.submit_transaction(tx)
account = server.accounts().account_id(ward.public_key).call()
check("a sponsored account starts with 0 XLM, its reserves paid by its sponsor", account["sponsor"] == patron.public_key and account["num_sponsored"] == 5
      and balance(ward.public_key, Asset.native()) == 0, account)
patron_record = server.accounts().account_id(patron.public_key).call()
check("... who sponsors 5 reserves (num_sponsoring) and has no sponsor", patron_record["num_sponsoring"] == 5 and "sponsor" not in patron_record, patron_record)
gold_line = [b for b in account["balances"] if b.get("asset_code") == "PAT"][0]
helper_signer = [x for x in account["signers"] if x["key"] == helper.public_key][0]
check("the trustline, the signer and the data entry name their sponsor", gold_line["sponsor"] == patron.public_key and helper_signer["sponsor"] == patron.public_key
      and server.data(ward.public_key, "nickname").call() == {"value": base64.b64encode(b"ward").decode(), "sponsor": patron.public_key})
check("/accounts?sponsor= lists the ward", [a["id"] for a in server.accounts().for_sponsor(patron.public_key).call()["_embedded"]["records"]] == [ward.public_key])
ops = server.operations().for_transaction(made["hash"]).call()["_embedded"]["records"]
check("the operations as Horizon shows them: sponsored_id, begin_sponsor", ops[0]["type"] == "begin_sponsoring_future_reserves"
      and ops[0]["sponsored_id"] == ward.public_key and ops[-1]["type"] == "end_sponsoring_future_reserves" and ops[-1]["begin_sponsor"] == patron.public_key, ops)
effects = [e["type"] for e in server.effects().for_transaction(made["hash"]).call()["_embedded"]["records"]]
check("their effects: each entry's sponsorship after its own", effects == [
    "account_created", "account_debited", "signer_created", "account_sponsorship_created",
    "trustline_created", "trustline_sponsorship_created", "data_created", "data_sponsorship_created",
    "signer_created", "signer_sponsorship_created"], effects)
codes = failure(builder(patron).append_begin_sponsoring_future_reserves_op(helper.public_key), patron)
check("a sponsorship never ended: tx_bad_sponsorship", codes["transaction"] == "tx_bad_sponsorship", codes)
codes = failure(builder(patron).append_end_sponsoring_future_reserves_op(), patron)
check("ending one never begun: op_not_sponsored", codes["operations"] == ["op_not_sponsored"], codes)
codes = failure(builder(patron).append_account_merge_op(helper.public_key), patron)
check("a sponsor cannot merge: op_is_sponsor", codes["operations"] == ["op_is_sponsor"], codes)
codes = failure(builder(patron).append_revoke_data_sponsorship_op(ward.public_key, "nickname"), patron)
check("a ward with nothing cannot take its reserve back: op_low_reserve", codes["operations"] == ["op_low_reserve"], codes)
submit(builder(helper).append_payment_op(ward.public_key, Asset.native(), "10"), helper)
submit(builder(patron).append_revoke_data_sponsorship_op(ward.public_key, "nickname"), patron)
check("RevokeSponsorship hands the data entry's reserve back to its owner", "sponsor" not in server.data(ward.public_key, "nickname").call()
      and server.accounts().account_id(patron.public_key).call()["num_sponsoring"] == 4)
# The patron hands the trustline and the signer to the helper.
tx = (builder(helper)
      .append_begin_sponsoring_future_reserves_op(patron.public_key)
      .append_revoke_trustline_sponsorship_op(ward.public_key, PAT, source=patron.public_key)
      .append_revoke_ed25519_public_key_signer_sponsorship_op(ward.public_key, helper.public_key, source=patron.public_key)
      .append_end_sponsoring_future_reserves_op(source=patron.public_key)
      .build())
tx.sign(helper)
tx.sign(patron)
moved = server.submit_transaction(tx)
check("... or to another sponsor", server.accounts().account_id(helper.public_key).call()["num_sponsoring"] == 2
      and server.accounts().account_id(patron.public_key).call()["num_sponsoring"] == 2)
updated = server.effects().for_transaction(moved["hash"]).call()["_embedded"]["records"]
check("trustline_sponsorship_updated and signer_sponsorship_updated", [(e["type"], e.get("former_sponsor"), e.get("new_sponsor")) for e in updated] == [
    ("trustline_sponsorship_updated", patron.public_key, helper.public_key), ("signer_sponsorship_updated", patron.public_key, helper.public_key)], updated)
revoke = [o for o in server.operations().for_transaction(moved["hash"]).call()["_embedded"]["records"] if o["type"] == "revoke_sponsorship"]
check("revoke_sponsorship operations name what they revoke", revoke[0]["trustline_account_id"] == ward.public_key and revoke[0]["trustline_asset"] == f"PAT:{patron.public_key}"
      and revoke[1]["signer_account_id"] == ward.public_key and revoke[1]["signer_key"] == helper.public_key, revoke)
codes = failure(builder(patron).append_revoke_trustline_sponsorship_op(ward.public_key, PAT), patron)
check("revoking what another sponsors: op_not_sponsor", codes["operations"] == ["op_not_sponsor"], codes)
codes = failure(builder(patron).append_revoke_data_sponsorship_op(ward.public_key, "missing"), patron)
check("revoking what does not exist: op_does_not_exist", codes["operations"] == ["op_does_not_exist"], codes)
tx = (builder(patron).append_begin_sponsoring_future_reserves_op(ward.public_key)
      .append_manage_sell_offer_op(Asset.native(), PAT, "1", "1000", source=ward.public_key)
      .append_end_sponsoring_future_reserves_op(source=ward.public_key).build())
tx.sign(patron)
tx.sign(ward)
server.submit_transaction(tx)
sponsored_offers = server.offers().for_sponsor(patron.public_key).call()["_embedded"]["records"]
check("/offers?sponsor= lists the sponsored offer, with its sponsor", len(sponsored_offers) == 1 and sponsored_offers[0]["seller"] == ward.public_key
      and sponsored_offers[0]["sponsor"] == patron.public_key, sponsored_offers)

# --- liquidity pools (CAP-38) ---------------------------------------------------------------------
lp_issuer, lp_maker, lp_payer = Keypair.random(), Keypair.random(), Keypair.random()
for keypair in (lp_issuer, lp_maker, lp_payer):
    friendbot(keypair.public_key)
COIN = Asset("COIN", lp_issuer.public_key)
POOL = LiquidityPoolAsset(Asset.native(), COIN)
pool_id = POOL.liquidity_pool_id
submit(builder(lp_maker).append_change_trust_op(COIN), lp_maker)
submit(builder(lp_payer).append_change_trust_op(COIN), lp_payer)
submit(builder(lp_issuer).append_payment_op(lp_maker.public_key, COIN, "1000"), lp_issuer)
codes = failure(builder(lp_maker).append_liquidity_pool_deposit_op(pool_id, "100", "400", "0.2", "0.3"), lp_maker)
check("depositing without the pool's trustline: op_no_trust", codes["operations"] == ["op_no_trust"], codes)
made = submit(builder(lp_maker).append_change_trust_op(POOL)
              .append_liquidity_pool_deposit_op(pool_id, "100", "400", "0.2", "0.3"), lp_maker)
record = server.liquidity_pools().liquidity_pool(pool_id).call()
check("a ChangeTrust to pool shares makes the pool the SDK names; a deposit fills it (√(100 × 400) = 200 shares)",
      record["id"] == pool_id and record["fee_bp"] == 30 and record["type"] == "constant_product" and record["total_trustlines"] == "1"
      and record["total_shares"] == "200.0000000" and record["reserves"] == [{"asset": "native", "amount": "100.0000000"}, {"asset": f"COIN:{lp_issuer.public_key}", "amount": "400.0000000"}], record)
shares_line = [b for b in server.accounts().account_id(lp_maker.public_key).call()["balances"] if b["asset_type"] == "liquidity_pool_shares"]
check("the maker's balances show its shares", shares_line and shares_line[0]["liquidity_pool_id"] == pool_id and shares_line[0]["balance"] == "200.0000000", shares_line)
check("/liquidity_pools?reserves= and ?account= find it", pool_id in [p["id"] for p in server.liquidity_pools().for_reserves([Asset.native(), COIN]).call()["_embedded"]["records"]]
      and [p["id"] for p in with_params(server.liquidity_pools(), account=lp_maker.public_key).call()["_embedded"]["records"]] == [pool_id])
check("/accounts?liquidity_pool= lists its holder", [a["id"] for a in server.accounts().for_liquidity_pool(pool_id).call()["_embedded"]["records"]] == [lp_maker.public_key])
lp_idle = Keypair.random()
friendbot(lp_idle.public_key)
submit(builder(lp_idle).append_change_trust_op(COIN).append_change_trust_op(POOL), lp_idle)
codes = failure(builder(lp_idle).append_change_trust_op(COIN, limit="0"), lp_idle)
check("an empty asset trustline stays while a pool uses it: op_cannot_delete", codes["operations"] == ["op_cannot_delete"], codes)
submit(builder(lp_idle).append_change_trust_op(POOL, limit="0").append_change_trust_op(COIN, limit="0"), lp_idle)
# 10 XLM through the pool: ⌊9970 × 400 × 10 / (10000 × 100 + 9970 × 10)⌋ in stroops.
expected = (9970 * 400_0000000 * 10_0000000) // (10000 * 100_0000000 + 9970 * 10_0000000)
found = server.strict_send_paths(Asset.native(), "10", [COIN]).call()["_embedded"]["records"]
check("/paths/strict-send finds the way through the pool, priced as the payment will be", [p["destination_amount"] for p in found] == [f"{expected // 10**7}.{expected % 10**7:07d}"], found)
paid = submit(builder(lp_payer).append_path_payment_strict_send_op(lp_payer.public_key, Asset.native(), "10", COIN, "1", []), lp_payer)
check("a path payment through the pool, to the stroop", balance(lp_payer.public_key, COIN) == Decimal(expected) / Decimal(10_000_000), (balance(lp_payer.public_key, COIN), expected))
trades = server.trades().for_liquidity_pool(pool_id).call()["_embedded"]["records"]
check("/liquidity_pools/{id}/trades: a liquidity_pool trade, XLM as base, the pool as counter", len(trades) == 1 and trades[0]["trade_type"] == "liquidity_pool"
      and trades[0]["liquidity_pool_fee_bp"] == 30 and trades[0]["counter_liquidity_pool_id"] == pool_id and trades[0]["base_amount"] == "10.0000000", trades)
effects = [e["type"] for e in server.effects().for_liquidity_pool(pool_id).call()["_embedded"]["records"]]
check("its effects: created, deposited, another holder's trustline made and removed, a trade", effects == ["trustline_created", "liquidity_pool_created",
      "liquidity_pool_deposited", "trustline_created", "trustline_removed", "account_credited", "account_debited", "liquidity_pool_trade"], effects)
ops = server.operations().for_liquidity_pool(pool_id).call()["_embedded"]["records"]
check("its operations, the deposit with what went in", [o["type"] for o in ops] == ["change_trust", "liquidity_pool_deposit", "change_trust", "change_trust", "path_payment_strict_send"]
      and ops[1]["reserves_deposited"] == [{"asset": "native", "amount": "100.0000000"}, {"asset": f"COIN:{lp_issuer.public_key}", "amount": "400.0000000"}]
      and ops[1]["shares_received"] == "200.0000000" and ops[0]["liquidity_pool_id"] == pool_id, ops)
txs = [t["hash"] for t in server.transactions().for_liquidity_pool(pool_id).call()["_embedded"]["records"]]
check("its transactions", len(txs) == 4 and txs[0] == made["hash"] and txs[-1] == paid["hash"], txs)
codes = failure(builder(lp_maker).append_liquidity_pool_withdraw_op(pool_id, "201", "0", "0"), lp_maker)
check("withdrawing more shares than held: op_underfunded", codes["operations"] == ["op_underfunded"], codes)
before = server.liquidity_pools().liquidity_pool(pool_id).call()["reserves"]
withdrew = submit(builder(lp_maker).append_liquidity_pool_withdraw_op(pool_id, "50", "0", "0"), lp_maker)
after = server.liquidity_pools().liquidity_pool(pool_id).call()
out = [int(Decimal(r["amount"]) * 10_000_000) * 50 // 200 for r in before]
check("a withdrawal of a quarter of the shares takes a quarter of each reserve, rounded down", after["total_shares"] == "150.0000000"
      and [int(Decimal(r["amount"]) * 10_000_000) for r in after["reserves"]] == [int(Decimal(b["amount"]) * 10_000_000) - o for b, o in zip(before, out)], (before, after))
withdraw_op = server.operations().for_transaction(withdrew["hash"]).call()["_embedded"]["records"][0]
check("the withdrawal as Horizon shows it", withdraw_op["type"] == "liquidity_pool_withdraw" and withdraw_op["shares"] == "50.0000000"
      and [int(Decimal(r["amount"]) * 10_000_000) for r in withdraw_op["reserves_received"]] == out, withdraw_op)
coin = server.assets().for_code("COIN").for_issuer(lp_issuer.public_key).call()["_embedded"]["records"][0]
check("/assets counts what pools hold", coin["num_liquidity_pools"] == 1 and coin["liquidity_pools_amount"] == after["reserves"][1]["amount"], coin)
check("root links liquidity_pools", root["_links"]["liquidity_pools"]["href"].startswith(f"{URL}/liquidity_pools"))

# --- beyond Horizon: memos and assets on payments and transactions ---------------------------------
by_memo = every(with_params(server.payments(), memo="424242"))
check("/payments?memo= finds the payment made with that id memo, and it carries the memo", by_memo and all(p["memo"] == "424242" and p["memo_type"] == "id" for p in by_memo)
      and bob.public_key in [p["to"] for p in by_memo], by_memo)
invoices = every(with_params(server.payments().for_account(maker.public_key), memo="invoice 7"))
check("/accounts/{id}/payments?memo= (a text memo)", len(invoices) == 1 and invoices[0]["amount"] == "1.0000000" and invoices[0]["memo_type"] == "text", invoices)
welcomed = every(with_params(server.transactions(), memo="welcome carol"))
check("/transactions?memo=", len(welcomed) == 1 and welcomed[0]["memo"] == "welcome carol", welcomed)
srt_to_bob = every(with_params(server.payments().for_account(bob.public_key), asset=f"SRT:{SRT.issuer}"))
check("/accounts/{id}/payments?asset= lists the payments that moved it", srt_to_bob and all("SRT" in (p.get("asset_code"), p.get("source_asset_code")) for p in srt_to_bob)
      and "250.0000000" in [p["amount"] for p in srt_to_bob], srt_to_bob)
usdc = every(with_params(server.payments(), asset=f"USDC:{USDC.issuer}"))
check("/payments?asset= across accounts (the path payments that delivered USDC)", {p["type"] for p in usdc} >= {"path_payment_strict_send", "path_payment_strict_receive"}
      and all(p.get("asset_code") == "USDC" or p.get("source_asset_code") == "USDC" for p in usdc), [p["type"] for p in usdc])
usdc_txs = every(with_params(server.transactions(), asset=f"USDC:{USDC.issuer}"))
check("/transactions?asset= the transactions of those payments", {t["hash"] for t in usdc_txs} >= {p["transaction_hash"] for p in usdc}, len(usdc_txs))
check("a payment without a memo says memo_type none", every(server.payments().for_account(carol.public_key))[0]["memo_type"] in ("none", "text"))
bad = requests.get(f"{URL}/payments", params={"asset": "SRT"}, timeout=10)
check("an asset that is not native or CODE:ISSUER is refused naming asset", bad.status_code == 400 and bad.json()["extras"]["invalid_field"] == "asset", bad.text)

# --- passive offers -----------------------------------------------------------------------------
response = submit(builder(maker).append_create_passive_sell_offer_op(SRT, Asset.native(), "7", "3"), maker)
op = server.operations().for_transaction(response["hash"]).call()["_embedded"]["records"][0]
check("CreatePassiveSellOffer: the operation as Horizon shows it", op["type"] == "create_passive_sell_offer" and op["amount"] == "7.0000000"
      and op["price"] == "3.0000000" and op["selling_asset_code"] == "SRT" and "offer_id" not in op, op)
check("... and the offer rests in the book", any(o["amount"] == "7.0000000" and o["price"] == "3.0000000" for o in server.offers().for_seller(maker.public_key).call()["_embedded"]["records"]))

# --- every link answers ----------------------------------------------------------------------------
def links_of(document):
    """The hrefs a resource's _links advertise, templates filled with nothing."""
    hrefs = []
    for link in document.get("_links", {}).values():
        href = link.get("href", "")
        if href.startswith(URL):
            hrefs.append(href.split("{")[0])
    return hrefs


sample = [server.root().call(), server.accounts().account_id(bob.public_key).call()]
for builder_ in (server.transactions(), server.operations(), server.payments(), server.effects(), server.trades(), server.ledgers(),
                 server.offers(), server.assets(), server.claimable_balances(), server.liquidity_pools()):
    records = builder_.order(desc=True).limit(3).call()["_embedded"]["records"]
    sample += records
checked = set()
broken = []
for document in sample:
    for href in links_of(document):
        if href in checked or "{" in href:
            continue
        checked.add(href)
        if "/data/" in href and href.endswith("/data/"):
            continue
        answer = requests.get(href, timeout=10)
        # A template whose parameters are required (an order book's assets) is a 400 naming one.
        if answer.status_code != 200 and not (answer.status_code == 400 and answer.json().get("extras", {}).get("invalid_field")):
            broken.append((href, answer.status_code))
check(f"every link the resources advertise answers ({len(checked)} links from the root, an account and each collection): none is a 404",
      not broken and len(checked) > 40, broken)

# --- paging --------------------------------------------------------------------------------------
first = server.payments().for_account(alice.public_key).limit(2).call()
records = first["_embedded"]["records"]
builder_page = server.payments().for_account(alice.public_key).limit(2)
builder_page.call()
second = builder_page.next()["_embedded"]["records"]
check("payments page forward with next()", len(records) == 2 and len(second) == 2 and int(second[0]["paging_token"]) > int(records[1]["paging_token"]))
everything = server.payments().for_account(alice.public_key).limit(200).call()["_embedded"]["records"]
check("paging covers every payment once", [r["id"] for r in everything[:4]] == [r["id"] for r in records + second])
types = {r["type"] for r in everything}
check("payments hold every payment type", {"create_account", "payment", "path_payment_strict_send", "path_payment_strict_receive", "account_merge"} <= types, types)
desc = server.operations().for_account(alice.public_key).order(desc=True).limit(3).call()["_embedded"]["records"]
check("operations page backwards", [int(r["id"]) for r in desc] == sorted((int(r["id"]) for r in desc), reverse=True))
try:
    server.payments().limit(201).call()
    check("limit over 200 is refused", False)
except BadRequestError as error:
    check("limit over 200 is refused with invalid_field", error.extras["invalid_field"] == "limit")

# --- streaming -----------------------------------------------------------------------------------
received = queue.Queue()


def listen():
    for record in server.payments().for_account(bob.public_key).cursor("now").stream():
        received.put(record)
        return


listener = threading.Thread(target=listen, daemon=True)
listener.start()
effects_received = queue.Queue()


def listen_effects():
    for record in server.effects().for_account(bob.public_key).cursor("now").stream():
        effects_received.put(record)
        return


threading.Thread(target=listen_effects, daemon=True).start()


def streams_open():
    """Tender's own count of open streams, from /metrics (0 when absent)."""
    for line in requests.get(f"{URL}/metrics", timeout=5).text.splitlines():
        if line.startswith("tender_streams_open "):
            return float(line.split()[1])
    return 0.0


# The stream's "now" is fixed when the server accepts it: pay only once the server counts it open.
deadline = time.monotonic() + 15
while streams_open() < 2 and time.monotonic() < deadline:
    time.sleep(0.02)
check("the streams are open before paying", streams_open() >= 2)
response = submit(builder(alice).append_payment_op(bob.public_key, Asset.native(), "3.25"), alice)
try:
    record = received.get(timeout=15)
    check("a stream from now receives the new payment", record["transaction_hash"] == response["hash"] and record["amount"] == "3.2500000", record)
except queue.Empty:
    check("a stream from now receives the new payment", False, "nothing arrived in 15 s")
try:
    record = effects_received.get(timeout=15)
    check("an effects stream from now receives the credit", record["type"] == "account_credited" and record["amount"] == "3.2500000", record)
except queue.Empty:
    check("an effects stream from now receives the credit", False, "nothing arrived in 15 s")

done()
