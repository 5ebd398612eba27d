"""Signs in to a running `tender serve`'s test anchor with SEP-10, only through the real Python
stellar-sdk: its SEP-1 toml reader, its SEP-10 helpers (read and verify the challenge the way a
wallet does, and the server-side verifiers as a second opinion on the challenge's shape) and its
transaction builders.

Usage: python anchor_interop.py HORIZON_URL
Prints one line per check and exits non-zero at the first failure.
"""

import base64
import json
import sys
from urllib.parse import urlparse

import requests
from interop_checks import check, done
from stellar_sdk import Keypair, MuxedAccount, Network, Server, Signer, TransactionBuilder, TransactionEnvelope
from stellar_sdk.sep.ed25519_public_key_signer import Ed25519PublicKeySigner
from stellar_sdk.sep.exceptions import InvalidSep10ChallengeError
from stellar_sdk.sep.stellar_toml import fetch_stellar_toml
from stellar_sdk.sep.stellar_web_authentication import (
    read_challenge_transaction,
    verify_challenge_transaction_signed_by_client_master_key,
    verify_challenge_transaction_threshold,
)

URL = sys.argv[1].rstrip("/")
DOMAIN = urlparse(URL).netloc
server = Server(URL)
PASSPHRASE = Network.STANDALONE_NETWORK_PASSPHRASE

# --- SEP-1 ---------------------------------------------------------------------------------------
toml = fetch_stellar_toml(DOMAIN, use_http=True)
check("the toml names the web auth endpoint and signing key, on the host it was fetched from",
      toml["WEB_AUTH_ENDPOINT"] == f"{URL}/auth" and toml["SIGNING_KEY"].startswith("G") and toml["NETWORK_PASSPHRASE"] == PASSPHRASE, toml)
AUTH = toml["WEB_AUTH_ENDPOINT"]
for key in ("WEB_AUTH_ENDPOINT", "KYC_SERVER", "TRANSFER_SERVER", "TRANSFER_SERVER_SEP0024", "ANCHOR_QUOTE_SERVER", "HORIZON_URL"):
    answer = requests.get(toml[key], params={"account": Keypair.random().public_key} if key == "WEB_AUTH_ENDPOINT" else None, timeout=30)
    check(f"the toml's {key} answers", answer.status_code == 200, f"{toml[key]}: {answer.status_code}")
SIGNING_KEY = toml["SIGNING_KEY"]
WEB_AUTH_DOMAIN = urlparse(AUTH).netloc


def challenge(account, **params):
    response = requests.get(AUTH, params={"account": account, **params}, timeout=30)
    check(f"GET /auth answers a challenge ({params or 'no memo'})", response.status_code == 200 and response.json()["network_passphrase"] == PASSPHRASE, response.text)
    return response.json()["transaction"]


def post(envelope_xdr, as_form=False):
    if as_form:
        return requests.post(AUTH, data={"transaction": envelope_xdr}, timeout=30)
    return requests.post(AUTH, json={"transaction": envelope_xdr}, timeout=30)


def signed(xdr, *keypairs, passphrase=PASSPHRASE):
    envelope = TransactionEnvelope.from_xdr(xdr, passphrase)
    for keypair in keypairs:
        envelope.sign(keypair)
    return envelope.to_xdr()


def claims(token):
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def refused(name, response, code):
    check(name, response.status_code == 400 and response.json().get("code") == code and response.json().get("error"), f"{response.status_code} {response.text}")


# --- a new account, signed by its master key -----------------------------------------------------
alice = Keypair.random()
xdr = challenge(alice.public_key)
read = read_challenge_transaction(xdr, SIGNING_KEY, DOMAIN, WEB_AUTH_DOMAIN, PASSPHRASE)
check("the SDK reads the challenge as a wallet does (server-signed, bounds, home and web auth domain)",
      read.client_account_id == alice.public_key and read.matched_home_domain == DOMAIN and read.memo is None)
envelope = read.transaction
check("sequence 0 and a 15-minute window", envelope.transaction.sequence == 0
      and envelope.transaction.preconditions.time_bounds.max_time - envelope.transaction.preconditions.time_bounds.min_time == 900)
answer = signed(xdr, alice)
try:
    verify_challenge_transaction_signed_by_client_master_key(answer, SIGNING_KEY, DOMAIN, WEB_AUTH_DOMAIN, PASSPHRASE)
    check("the SDK's own server-side verifier accepts the signed challenge", True)
except InvalidSep10ChallengeError as error:
    check("the SDK's own server-side verifier accepts the signed challenge", False, error)
response = post(answer)
check("POST /auth (JSON) answers a token", response.status_code == 200 and response.json()["token"].count(".") == 2, response.text)
token = claims(response.json()["token"])
check("the token's claims: iss, sub, iat, exp, jti", token["iss"] == AUTH and token["sub"] == alice.public_key
      and token["exp"] - token["iat"] == 86400 and token["jti"] == envelope.hash_hex(), token)
refused("the same challenge twice is refused", post(answer), "challenge_already_used")

# A form post, and the refusals a wallet can cause.
xdr = challenge(alice.public_key)
check("POST /auth as a form", post(signed(xdr, alice), as_form=True).status_code == 200)
refused("not signed by the client", post(xdr), "not_signed_by_client")
refused("signed for another network", post(signed(challenge(alice.public_key), alice, passphrase=Network.TESTNET_NETWORK_PASSPHRASE)), "wrong_network")
refused("signed by a stranger too", post(signed(challenge(alice.public_key), alice, Keypair.random())), "unrecognized_signature")
twice = TransactionEnvelope.from_xdr(signed(challenge(alice.public_key), alice), PASSPHRASE)
twice.signatures.append(twice.signatures[-1])  # the SDK will not sign twice; a wallet bug might
refused("signed twice by the same key", post(twice.to_xdr()), "duplicate_signature")
stripped = TransactionEnvelope.from_xdr(signed(challenge(alice.public_key), alice), PASSPHRASE)
stripped.signatures = stripped.signatures[1:]
refused("without the server's signature", post(stripped.to_xdr()), "not_signed_by_server")
refused("a transaction that is not a challenge", post("AAAA"), "challenge_malformed")
response = requests.get(AUTH, params={"account": alice.public_key, "home_domain": "elsewhere.example"}, timeout=30)
refused("a home domain the anchor does not serve", response, "invalid_home_domain")
refused("no account", requests.get(AUTH, timeout=30), "invalid_request")

# --- a client domain: the wallet's own toml names its SIGNING_KEY, which must sign too ---------
import http.server
import threading

wallet_key = Keypair.random()


class WalletToml(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = f'SIGNING_KEY="{wallet_key.public_key}"\n'.encode() if self.path == "/.well-known/stellar.toml" else b""
        self.send_response(200 if body else 404)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


wallet_server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), WalletToml)
threading.Thread(target=wallet_server.serve_forever, daemon=True).start()
CLIENT_DOMAIN = f"127.0.0.1:{wallet_server.server_address[1]}"
xdr = challenge(alice.public_key, client_domain=CLIENT_DOMAIN)
operations = TransactionEnvelope.from_xdr(xdr, PASSPHRASE).transaction.operations
check("the challenge names the client domain, from its key", any(getattr(op, "data_name", "") == "client_domain" and op.source.account_id == wallet_key.public_key for op in operations))
read = read_challenge_transaction(xdr, SIGNING_KEY, DOMAIN, WEB_AUTH_DOMAIN, PASSPHRASE)
check("the SDK reads it", read.client_account_id == alice.public_key)
refused("without the client domain's signature", post(signed(xdr, alice)), "not_signed_by_client_domain")
xdr = challenge(alice.public_key, client_domain=CLIENT_DOMAIN)
token = post(signed(xdr, alice, wallet_key)).json()["token"]
check("with it, the token names the client domain", claims(token)["client_domain"] == CLIENT_DOMAIN, claims(token))
refused("a client domain with no toml", requests.get(AUTH, params={"account": alice.public_key, "client_domain": "127.0.0.1:9"}, timeout=30), "invalid_client_domain")

# --- memos and muxed accounts --------------------------------------------------------------------
xdr = challenge(alice.public_key, memo="12345")
read = read_challenge_transaction(xdr, SIGNING_KEY, DOMAIN, WEB_AUTH_DOMAIN, PASSPHRASE)
check("the memo is in the challenge", read.memo == 12345)
check("the token names G...:memo", claims(post(signed(xdr, alice)).json()["token"])["sub"] == f"{alice.public_key}:12345")
muxed = MuxedAccount(alice.public_key, 99).account_muxed
check("the token names a muxed account M...", claims(post(signed(challenge(muxed), alice)).json()["token"])["sub"] == muxed)
refused("a memo with a muxed account", requests.get(AUTH, params={"account": muxed, "memo": "1"}, timeout=30), "invalid_request")
refused("a memo that is not an id", requests.get(AUTH, params={"account": alice.public_key, "memo": "hello"}, timeout=30), "invalid_memo")

# --- an account on the ledger with two signers and a medium threshold of 2 -----------------------
bob, cosigner = Keypair.random(), Keypair.random()
check("friendbot funds bob", requests.get(f"{URL}/friendbot", params={"addr": bob.public_key}, timeout=30).status_code == 200)
account = server.load_account(bob.public_key)
tx = (TransactionBuilder(account, PASSPHRASE, base_fee=100).set_timeout(60)
      .append_set_options_op(signer=Signer.ed25519_public_key(cosigner.public_key, 1), low_threshold=1, med_threshold=2, high_threshold=2).build())
tx.sign(bob)
server.submit_transaction(tx)
refused("one of two signers does not reach the medium threshold", post(signed(challenge(bob.public_key), bob)), "insufficient_weight")
xdr = signed(challenge(bob.public_key), bob, cosigner)
weights = [signer.account_id for signer in verify_challenge_transaction_threshold(
    xdr, SIGNING_KEY, DOMAIN, WEB_AUTH_DOMAIN, PASSPHRASE, 2,
    [Ed25519PublicKeySigner(bob.public_key, 1), Ed25519PublicKeySigner(cosigner.public_key, 1)])]
check("the SDK's threshold verifier agrees both signers are needed", set(weights) == {bob.public_key, cosigner.public_key})
check("both signers together get a token", post(xdr).status_code == 200)
refused("the old master-only way no longer works for a cosigned account", post(signed(challenge(bob.public_key), cosigner)), "insufficient_weight")

# --- SEP-12 ------------------------------------------------------------------------------------
KYC = toml["KYC_SERVER"]
check("the toml names the KYC server", KYC == f"{URL}/kyc", toml)
# Values no file or log line may hold (the Swift side looks for them once the server stops).
SURNAME, EMAIL = "Zyxwvutsrq", "jane.zyxwvutsrq@example.com"


def sign_in(keypair, **params):
    return post(signed(challenge(keypair.public_key, **params), keypair)).json()["token"]


def kyc(method, token, path="/customer", **kwargs):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return requests.request(method, KYC + path, headers=headers, timeout=30, **kwargs)


carol = Keypair.random()
token = sign_in(carol)
response = kyc("GET", None)
check("no token is a 403 with an error", response.status_code == 403 and response.json()["error"], response.text)
check("a forged token is a 403", kyc("GET", token[:-4] + "AAAA").status_code == 403)
response = kyc("GET", token).json()
check("a new customer NEEDS_INFO, with the natural person's fields", response["status"] == "NEEDS_INFO" and "id" not in response
      and {"first_name", "last_name", "email_address"} <= set(response["fields"]) and response["fields"]["mobile_number"]["optional"], response)
response = kyc("PUT", token, json={"first_name": "Jane", "last_name": SURNAME})
check("PUT /customer (JSON) answers 202 with the id", response.status_code == 202 and response.json()["id"].startswith("cus_"), response.text)
customer_id = response.json()["id"]
response = kyc("GET", token).json()
check("still NEEDS_INFO: the e-mail is missing, the names are given", response["status"] == "NEEDS_INFO" and response["id"] == customer_id
      and "email_address" in response["fields"] and set(response["provided_fields"]) == {"first_name", "last_name"}, response)
response = kyc("PUT", token, files={"email_address": (None, "not an e-mail")})
check("a bad value is a 400 naming the field", response.status_code == 400 and "email_address" in response.json()["error"], response.text)
response = kyc("PUT", token, files={"email_address": (None, EMAIL), "mobile_number": (None, "+31612345678")})
check("PUT /customer (multipart, as the iOS SDK sends it) adds to the same customer", response.status_code == 202 and response.json()["id"] == customer_id, response.text)
response = kyc("GET", token, params={"id": customer_id}).json()
check("with every required field the customer is ACCEPTED", response["status"] == "ACCEPTED"
      and response["provided_fields"]["email_address"]["status"] == "ACCEPTED" and "email_address" not in response.get("fields", {}), response)
check("a form PUT works too", kyc("PUT", token, data={"address": "1 Main St"}).status_code == 202)

# One shared account, two customers told apart by memo; nobody reads another's.
shared = sign_in(carol, memo="77")
check("the memo's customer is another one", kyc("GET", shared).json()["status"] == "NEEDS_INFO")
check("the memo's token cannot name another memo", kyc("GET", shared, params={"memo": "78"}).status_code == 403)
dave = Keypair.random()
dave_token = sign_in(dave)
check("another user's token does not find the customer by id (404)", kyc("GET", dave_token, params={"id": customer_id}).status_code == 404)
check("another user's token cannot write for the account (403)", kyc("PUT", dave_token, json={"account": carol.public_key, "first_name": "X"}).status_code == 403)
response = kyc("PUT", dave_token, json={"first_name": "Dave", "last_name": "D", "email_address": "dave+review@example.com"})
check("an e-mail with +review is PROCESSING", kyc("GET", dave_token).json()["status"] == "PROCESSING")
response = kyc("PUT", dave_token, json={"email_address": "dave+reject@example.com"})
check("an e-mail with +reject is REJECTED", kyc("GET", dave_token).json()["status"] == "REJECTED")

check("another user cannot delete the customer", kyc("DELETE", dave_token, path=f"/customer/{carol.public_key}").status_code == 403)
check("DELETE /customer/{account} erases it", kyc("DELETE", token, path=f"/customer/{carol.public_key}").status_code == 200)
response = kyc("GET", token).json()
check("after deletion the account is a new customer", response["status"] == "NEEDS_INFO" and "id" not in response, response)
check("deleting twice is a 404", kyc("DELETE", token, path=f"/customer/{carol.public_key}").status_code == 404)

# --- SEP-38 ------------------------------------------------------------------------------------
QUOTES = toml["ANCHOR_QUOTE_SERVER"]
check("the toml names the quote server", QUOTES == f"{URL}/sep38")
EUR = next(f"stellar:EUR:{c['issuer']}" for c in toml["CURRENCIES"] if c["code"] == "EUR")
info = requests.get(f"{QUOTES}/info", timeout=30).json()
check("/info lists the anchor's assets and the fiat currencies with their delivery methods",
      EUR in [a["asset"] for a in info["assets"]] and any(a["asset"] == "iso4217:USD" and a["sell_delivery_methods"] for a in info["assets"]), info)
prices = requests.get(f"{QUOTES}/prices", params={"sell_asset": "iso4217:USD", "sell_amount": "10.00"}, timeout=30).json()
check("/prices: what 10 USD buys of each asset", EUR in [p["asset"] for p in prices["buy_assets"]], prices)
price = requests.get(f"{QUOTES}/price", params={"sell_asset": "iso4217:USD", "buy_asset": EUR, "sell_amount": "10.00", "context": "sep6"}, timeout=30).json()
check("/price: 10.00 USD less the 0.40 card fee buys 8.88 EUR at 1.08", price["buy_amount"] == "8.88" and price["price"] == "1.08"
      and price["fee"]["total"] == "0.40" and price["fee"]["asset"] == "iso4217:USD", price)
refused("/price without an amount", requests.get(f"{QUOTES}/price", params={"sell_asset": "iso4217:USD", "buy_asset": EUR}, timeout=30), "invalid_request")
refused("/price of an unknown asset", requests.get(f"{QUOTES}/price", params={"sell_asset": "iso4217:GBP", "buy_asset": EUR, "sell_amount": "1"}, timeout=30), "invalid_asset")
erin = Keypair.random()
erin_token = sign_in(erin)
check("POST /quote needs a token", requests.post(f"{QUOTES}/quote", json={}, timeout=30).status_code == 403)
response = requests.post(f"{QUOTES}/quote", headers={"Authorization": f"Bearer {erin_token}"}, timeout=30,
                         json={"sell_asset": EUR, "buy_asset": "iso4217:USD", "buy_amount": "10.00", "context": "sep6"})
check("POST /quote answers 201 with a firm quote that expires", response.status_code == 201 and response.json()["buy_amount"] == "10.00"
      and response.json()["expires_at"] > "2000", response.text)
quote = response.json()
check("GET /quote/{id} reads it back", requests.get(f"{QUOTES}/quote/{quote['id']}", headers={"Authorization": f"Bearer {erin_token}"}, timeout=30).json() == quote)
check("another user's token does not find it", requests.get(f"{QUOTES}/quote/{quote['id']}", headers={"Authorization": f"Bearer {token}"}, timeout=30).status_code == 404)

# --- SEP-6: KYC first ---------------------------------------------------------------------------
SEP6 = toml["TRANSFER_SERVER"]
check("the toml names the SEP-6 server", SEP6 == f"{URL}/sep6")
info = requests.get(f"{SEP6}/info", timeout=30).json()
check("SEP-6 /info: EUR deposits by card or iDEAL, withdrawals to a bank account", info["deposit"]["EUR"]["enabled"]
      and info["deposit"]["EUR"]["funding_methods"] == ["card", "ideal"] and "bank_account" in info["withdraw"]["EUR"]["types"], info)
response = requests.get(f"{SEP6}/deposit", params={"asset_code": "EUR", "amount": "10.00"}, headers={"Authorization": f"Bearer {erin_token}"}, timeout=30)
check("an unknown customer is asked for its fields", response.status_code == 403 and response.json()["type"] == "non_interactive_customer_info_needed"
      and set(response.json()["fields"]) == {"first_name", "last_name", "email_address"}, response.text)
kyc("PUT", erin_token, json={"first_name": "Erin", "last_name": "E", "email_address": "erin+review@example.com"})
response = requests.get(f"{SEP6}/deposit", params={"asset_code": "EUR", "amount": "10.00"}, headers={"Authorization": f"Bearer {erin_token}"}, timeout=30)
check("a customer under review is pending", response.status_code == 403 and response.json() == {"type": "customer_info_status", "status": "pending", "eta": 10}, response.text)
kyc("PUT", erin_token, json={"email_address": "erin@example.com"})
response = requests.get(f"{SEP6}/deposit", params={"asset_code": "EUR", "amount": "10.00"}, headers={"Authorization": f"Bearer {erin_token}"}, timeout=30)
check("an accepted customer's deposit says how to pay", response.status_code == 200 and "/pay/cs_" in response.json()["instructions"]["payment_url"]["value"], response.text)
deposit = response.json()
record = requests.get(f"{SEP6}/transaction", params={"id": deposit["id"]}, headers={"Authorization": f"Bearer {erin_token}"}, timeout=30).json()["transaction"]
check("the SEP-6 deposit waits for the payment", record["status"] == "pending_user_transfer_start" and record["amount_in"] == "10.00" and record["amount_fee"] == "0.40", record)
response = requests.get(f"{SEP6}/withdraw", params={"asset_code": "EUR", "type": "bank_account", "amount": "5.00"}, headers={"Authorization": f"Bearer {erin_token}"}, timeout=30)
check("a SEP-6 withdrawal says where to pay and with which memo", response.status_code == 200 and response.json()["memo_type"] == "id"
      and response.json()["account_id"].startswith("G") and response.json()["memo"], response.text)
refused("an unknown asset", requests.get(f"{SEP6}/deposit", params={"asset_code": "XYZ", "amount": "1"}, headers={"Authorization": f"Bearer {erin_token}"}, timeout=30), "invalid_asset")

done()
