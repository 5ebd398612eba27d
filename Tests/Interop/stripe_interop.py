"""Drives the gateway of a running `tender serve` only through the real `stripe` Python library
(and the Python stellar-sdk for the ledger), as a shop's server would after changing its API
base URL and key.

Usage: python stripe_interop.py URL ADMIN_KEY [TENDER_BINARY]
With the binary, `tender gateway webhooks listen --forward-to` is checked too.
Prints one line per check and exits non-zero at the first failure.
"""

import http.server
import subprocess
import sys
import threading
import time
import urllib.parse
import uuid

import requests
import stripe
from interop_checks import check, done, raises, shaped
from stellar_sdk import Asset, Keypair, Network, Server, TransactionBuilder

URL = sys.argv[1].rstrip("/")
ADMIN_KEY = sys.argv[2]

merchant = requests.post(f"{URL}/v1/admin/merchants", data={"name": "Interop shop"},
                         headers={"Authorization": f"Bearer {ADMIN_KEY}"}, timeout=30).json()
check("admin route makes a merchant", merchant["secret_key"].startswith("sk_test_") and merchant["publishable_key"].startswith("pk_test_"))
stripe.api_base = URL
stripe.api_key = merchant["secret_key"]
stripe.max_network_retries = 0
expected_eur = 0  # minor units the merchant should hold after fees

# A webhook receiver that answers the first delivery with a 500 (so it is retried) and verifies
# every signature with the stripe library.
received = []
receiver_errors = []
attempts = {"count": 0}


class Receiver(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        payload = self.rfile.read(int(self.headers["Content-Length"]))
        attempts["count"] += 1
        if attempts["count"] == 1:
            self.send_response(500)
            self.end_headers()
            return
        try:
            event = stripe.Webhook.construct_event(payload, self.headers["Stripe-Signature"], endpoint_secret)
            received.append(event)
        except Exception as error:  # noqa: BLE001 - a bad signature is recorded, then fails the run
            receiver_errors.append(repr(error))
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args):
        pass


receiver = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
threading.Thread(target=receiver.serve_forever, daemon=True).start()
endpoint = stripe.WebhookEndpoint.create(url=f"http://127.0.0.1:{receiver.server_address[1]}/hook", enabled_events=["*"])
endpoint_secret = endpoint.secret
check("webhook endpoint with a signing secret", endpoint.secret.startswith("whsec_") and endpoint.enabled_events == ["*"])
raises("webhook endpoints take known events", stripe.error.InvalidRequestError, lambda: stripe.WebhookEndpoint.create(url="http://127.0.0.1:1/", enabled_events=["nope"]), param="enabled_events")
fetched = stripe.WebhookEndpoint.retrieve(endpoint.id)
check("a webhook endpoint retrieved, its secret not shown again", fetched.id == endpoint.id and fetched.status == "enabled" and "secret" not in fetched.to_dict())
paused = stripe.WebhookEndpoint.modify(endpoint.id, disabled=True, description="paused")
check("a webhook endpoint disabled", paused.status == "disabled" and paused.description == "paused")
resumed = stripe.WebhookEndpoint.modify(endpoint.id, disabled=False, metadata={"team": "payments"})
check("and enabled again", resumed.status == "enabled" and stripe.WebhookEndpoint.retrieve(endpoint.id).status == "enabled" and resumed.metadata.team == "payments")
shaped("a webhook endpoint", resumed, stripe.WebhookEndpoint, may_lack=("secret",))  # shown by the create only, as Stripe's
spare = stripe.WebhookEndpoint.create(url="http://127.0.0.1:9/spare", enabled_events=["charge.succeeded"])
removed = stripe.WebhookEndpoint.delete(spare.id)
check("a webhook endpoint deleted", removed.deleted and [e.id for e in stripe.WebhookEndpoint.list().data] == [endpoint.id])
raises("a deleted endpoint is gone", stripe.error.InvalidRequestError, lambda: stripe.WebhookEndpoint.retrieve(spare.id), http_status=404)


def card_fee(amount):
    return min((amount * 150 + 5000) // 10000 + 25, amount)


def card(number, **extra):
    return stripe.PaymentMethod.create(type="card", card={"number": number, "exp_month": 12, "exp_year": 2034, "cvc": extra.pop("cvc", "123"), **extra})


# Payment methods
pm = card("4242 4242 4242 4242")
check("card payment method", pm.object == "payment_method" and pm.card.brand == "visa" and pm.card.last4 == "4242" and pm.card.exp_year == 2034)
check("payment method retrieved", stripe.PaymentMethod.retrieve(pm.id).card.fingerprint == pm.card.fingerprint)
check("same card, same fingerprint", card("4242424242424242").card.fingerprint == pm.card.fingerprint)
check("amex and mastercard brands", card("378282246310005", cvc="1234").card.brand == "amex" and card("5555555555554444").card.brand == "mastercard")
raises("Luhn failure is incorrect_number", stripe.error.CardError, lambda: card("4242424242424241"), code="incorrect_number")
raises("wrong length is invalid_number", stripe.error.CardError, lambda: card("424242424242424"), code="invalid_number")
raises("expiry month", stripe.error.CardError, lambda: stripe.PaymentMethod.create(type="card", card={"number": "4242424242424242", "exp_month": 13, "exp_year": 2034}), code="invalid_expiry_month")
raises("expiry year in the past", stripe.error.CardError, lambda: stripe.PaymentMethod.create(type="card", card={"number": "4242424242424242", "exp_month": 1, "exp_year": 2020}), code="invalid_expiry_year")
raises("amex CVC has four digits", stripe.error.CardError, lambda: card("378282246310005", cvc="123"), code="invalid_cvc")
raises("unknown payment method", stripe.error.InvalidRequestError, lambda: stripe.PaymentMethod.retrieve("pm_nope"), http_status=404, code="resource_missing")

# Automatic capture
intent = stripe.PaymentIntent.create(amount=1099, currency="eur", payment_method=pm.id, confirm=True, metadata={"order": "7"}, description="Order 7")
check("automatic capture succeeds", intent.status == "succeeded" and intent.amount_received == 1099 and intent.metadata["order"] == "7", intent)
expected_eur += 1099 - card_fee(1099)
check("retrieve", stripe.PaymentIntent.retrieve(intent.id).status == "succeeded")

# Two steps: create, then confirm
intent = stripe.PaymentIntent.create(amount=2000, currency="eur", payment_method_types=["card"])
check("created without a method", intent.status == "requires_payment_method" and intent.client_secret.startswith(intent.id + "_secret_"))
intent = stripe.PaymentIntent.modify(intent.id, amount=2500, payment_method=pm.id)
check("updated with amount and method", intent.status == "requires_confirmation" and intent.amount == 2500)
intent = stripe.PaymentIntent.confirm(intent.id)
check("confirmed", intent.status == "succeeded")
expected_eur += 2500 - card_fee(2500)
raises("a succeeded intent cannot be confirmed again", stripe.error.InvalidRequestError, lambda: stripe.PaymentIntent.confirm(intent.id), code="payment_intent_unexpected_state")
raises("nor cancelled", stripe.error.InvalidRequestError, lambda: stripe.PaymentIntent.cancel(intent.id), code="payment_intent_unexpected_state")

# Manual and partial capture
intent = stripe.PaymentIntent.create(amount=5000, currency="eur", payment_method=pm.id, capture_method="manual", confirm=True)
check("manual capture holds", intent.status == "requires_capture" and intent.amount_capturable == 5000)
raises("capture more than authorised", stripe.error.InvalidRequestError, lambda: stripe.PaymentIntent.capture(intent.id, amount_to_capture=5001), code="amount_invalid")
intent = stripe.PaymentIntent.capture(intent.id, amount_to_capture=3000)
check("partial capture", intent.status == "succeeded" and intent.amount_received == 3000 and intent.amount_capturable == 0)
expected_eur += 3000 - card_fee(3000)
raises("capture only once", stripe.error.InvalidRequestError, lambda: stripe.PaymentIntent.capture(intent.id), code="payment_intent_unexpected_state")
held = stripe.PaymentIntent.create(amount=800, currency="eur", payment_method=pm.id, capture_method="manual", confirm=True)
held = stripe.PaymentIntent.cancel(held.id, cancellation_reason="requested_by_customer")
check("cancel releases a hold", held.status == "canceled" and held.cancellation_reason == "requested_by_customer" and held.amount_capturable == 0)

# Every decline
declines = {
    "4000000000000002": ("card_declined", "generic_decline"),
    "4000000000009995": ("card_declined", "insufficient_funds"),
    "4000000000009987": ("card_declined", "lost_card"),
    "4000000000009979": ("card_declined", "stolen_card"),
    "4000000000000069": ("expired_card", "expired_card"),
    "4000000000000127": ("incorrect_cvc", "incorrect_cvc"),
    "4000000000000119": ("processing_error", "processing_error"),
}
for number, (code, decline_code) in declines.items():
    method = card(number)
    error = raises(f"{number} declines with {decline_code}", stripe.error.CardError,
                   lambda: stripe.PaymentIntent.create(amount=1000, currency="eur", payment_method=method.id, confirm=True),
                   code=code, http_status=402)
    declined_id = error.json_body["error"]["payment_intent"]["id"]
    declined = stripe.PaymentIntent.retrieve(declined_id)
    check(f"{number} leaves the intent waiting for another method",
          declined.status == "requires_payment_method" and declined.last_payment_error.decline_code == decline_code)
# ...and a retry with a good card goes through.
declined = stripe.PaymentIntent.confirm(declined_id, payment_method=pm.id)
check("a declined intent succeeds with another card", declined.status == "succeeded")
expected_eur += 1000 - card_fee(1000)


# Stripe's test payment methods and tokens, and payment methods given inline
visa = stripe.PaymentIntent.create(amount=1000, currency="eur", payment_method="pm_card_visa", confirm=True)
made = stripe.PaymentMethod.retrieve(visa.payment_method)
check("pm_card_visa pays with a new payment method of its card", visa.status == "succeeded" and made.id.startswith("pm_") and made.id != "pm_card_visa"
      and made.card.last4 == "4242" and made.card.brand == "visa")
expected_eur += 1000 - card_fee(1000)
raises("pm_card_chargeDeclinedInsufficientFunds declines", stripe.error.CardError,
       lambda: stripe.PaymentIntent.create(amount=1000, currency="eur", payment_method="pm_card_chargeDeclinedInsufficientFunds", confirm=True),
       code="card_declined")
secure = stripe.PaymentIntent.create(amount=1000, currency="eur", payment_method="pm_card_threeDSecure2Required", confirm=True, return_url="https://shop.example/3ds")
check("pm_card_threeDSecure2Required asks for 3-D Secure", secure.status == "requires_action")
tokened = stripe.PaymentMethod.create(type="card", card={"token": "tok_mastercard"})
check("a card from tok_mastercard", tokened.card.brand == "mastercard" and tokened.card.last4 == "4444")
raises("an unknown token", stripe.error.InvalidRequestError, lambda: stripe.PaymentMethod.create(type="card", card={"token": "tok_nope"}),
       code="resource_missing", param="card[token]")
raises("a token and a number", stripe.error.InvalidRequestError,
       lambda: stripe.PaymentMethod.create(type="card", card={"token": "tok_visa", "number": "4242424242424242"}), param="card[number]")
billing = {"name": "Jane Doe", "email": "jane@example.com", "address": {"city": "Amsterdam", "country": "NL", "postal_code": "1011 AB"}}
inline = stripe.PaymentIntent.create(amount=2100, currency="eur", confirm=True, payment_method_data={
    "type": "card", "card": {"number": "5555555555554444", "exp_month": 12, "exp_year": 2034, "cvc": "123"}, "billing_details": billing})
inline_charge = stripe.Charge.retrieve(inline.latest_charge)
check("payment_method_data: a card given inline pays", inline.status == "succeeded" and inline_charge.payment_method == inline.payment_method
      and inline_charge.billing_details.name == "Jane Doe" and inline_charge.billing_details.address.postal_code == "1011 AB"
      and stripe.PaymentMethod.retrieve(inline.payment_method).billing_details.email == "jane@example.com", inline_charge)
expected_eur += 2100 - card_fee(2100)
shaped("a payment method with billing details", stripe.PaymentMethod.retrieve(inline.payment_method), stripe.PaymentMethod)
raises("payment_method_data: a bad number named inside it", stripe.error.CardError,
       lambda: stripe.PaymentIntent.create(amount=1000, currency="eur", confirm=True, payment_method_data={
           "type": "card", "card": {"number": "4242424242424241", "exp_month": 12, "exp_year": 2034}}),
       code="incorrect_number", param="payment_method_data[card][number]")
raises("payment_method_data: an unknown field named inside it", stripe.error.InvalidRequestError,
       lambda: stripe.PaymentIntent.create(amount=1000, currency="eur", payment_method_data={"type": "card", "card": {"token": "tok_visa"}, "billing_details": {"nick": "J"}}),
       code="parameter_unknown", param="payment_method_data[billing_details][nick]")
raises("payment_method and payment_method_data together", stripe.error.InvalidRequestError,
       lambda: stripe.PaymentIntent.create(amount=1000, currency="eur", payment_method=pm.id, payment_method_data={"type": "card", "card": {"token": "tok_visa"}}),
       param="payment_method_data")
by_token = stripe.PaymentIntent.create(amount=1000, currency="eur")
by_token = stripe.PaymentIntent.confirm(by_token.id, payment_method_data={"type": "card", "card": {"token": "tok_amex"}})
check("payment_method_data on confirm, by a token", by_token.status == "succeeded" and stripe.PaymentMethod.retrieve(by_token.payment_method).card.brand == "amex")
expected_eur += 1000 - card_fee(1000)


def follow(next_action, outcome):
    """Does what a customer's browser does on the test page: opens it, presses a button."""
    page_url = next_action.redirect_to_url.url
    page = requests.get(page_url, timeout=30)
    check(f"test page shows ({outcome})", page.status_code == 200 and f'id="{outcome}"' in page.text and "Content-Security-Policy" in page.headers)
    parts = urllib.parse.urlsplit(page_url)
    answer = requests.post(f"{URL}{parts.path}/{outcome}?{parts.query}", allow_redirects=False, timeout=30)
    check(f"{outcome} returns to the shop", answer.status_code == 303, answer.text)
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(answer.headers["Location"]).query)
    return query


# 3-D Secure, both ways
for number, outcome, status, redirect in [
    ("4000000000003220", "complete", "succeeded", "succeeded"),
    ("4000002500003155", "fail", "requires_payment_method", "failed"),
    ("4000008260003178", "complete", "requires_payment_method", "failed"),
]:
    method = card(number)
    intent = stripe.PaymentIntent.create(amount=1500, currency="eur", payment_method=method.id, confirm=True, return_url="https://shop.example/done?order=9")
    check(f"{number} asks for 3-D Secure", intent.status == "requires_action" and intent.next_action.type == "redirect_to_url")
    query = follow(intent.next_action, outcome)
    check(f"{number} return URL", query["payment_intent"] == [intent.id] and query["redirect_status"] == [redirect] and query["order"] == ["9"], query)
    final = stripe.PaymentIntent.retrieve(intent.id)
    check(f"{number} ends {status}", final.status == status)
    if outcome == "fail":
        check(f"{number}: a failed authentication reached no card network, so made no charge", final.latest_charge is None)
    else:
        secured = stripe.Charge.retrieve(final.latest_charge)
        check(f"{number}: its charge tells the 3-D Secure result", secured.status == ("succeeded" if status == "succeeded" else "failed")
              and secured.payment_method_details.card.three_d_secure.result == "authenticated", secured)
    if status == "succeeded":
        expected_eur += 1500 - card_fee(1500)
intent = stripe.PaymentIntent.create(amount=1500, currency="eur", payment_method=card("4000000000003055").id, confirm=True)
check("frictionless 3-D Secure needs no page", intent.status == "succeeded")
expected_eur += 1500 - card_fee(1500)

# iDEAL and Bancontact
for method_type, fee in [("ideal", 29), ("bancontact", 39)]:
    method = stripe.PaymentMethod.create(type=method_type, **({"ideal": {"bank": "ing"}} if method_type == "ideal" else {}))
    raises(f"{method_type} takes euros only", stripe.error.InvalidRequestError,
           lambda: stripe.PaymentIntent.create(amount=1000, currency="usd", payment_method_types=[method_type]), param="currency")
    intent = stripe.PaymentIntent.create(amount=1000, currency="eur", payment_method_types=[method_type], payment_method=method.id, confirm=True, return_url="https://shop.example/back")
    check(f"{method_type} redirects to the bank", intent.status == "requires_action" and "/v1/test/bank/" in intent.next_action.redirect_to_url.url)
    query = follow(intent.next_action, "complete")
    check(f"{method_type} authorised", query["redirect_status"] == ["succeeded"] and stripe.PaymentIntent.retrieve(intent.id).status == "succeeded")
    expected_eur += 1000 - fee
    inline = stripe.PaymentIntent.create(amount=1000, currency="eur", payment_method_types=[method_type], return_url="https://shop.example/back")
    inline = stripe.PaymentIntent.confirm(inline.id, payment_method_data={"type": method_type, "billing_details": {"name": "Jan Jansen"}, **({"ideal": {"bank": "rabobank"}} if method_type == "ideal" else {})})
    follow(inline.next_action, "complete")
    paid_by_bank = stripe.Charge.retrieve(stripe.PaymentIntent.retrieve(inline.id).latest_charge)
    check(f"{method_type} given inline on confirm", paid_by_bank.status == "succeeded" and paid_by_bank.payment_method_details.type == method_type
          and paid_by_bank.billing_details.name == "Jan Jansen" and getattr(paid_by_bank.payment_method_details, method_type).verified_name == "Jan Jansen", paid_by_bank)
    expected_eur += 1000 - fee
    failed = stripe.PaymentIntent.create(amount=1000, currency="eur", payment_method_types=[method_type], payment_method=method.id, confirm=True, return_url="https://shop.example/back")
    follow(failed.next_action, "fail")
    check(f"{method_type} failed at the bank", stripe.PaymentIntent.retrieve(failed.id).status == "requires_payment_method")
    left = stripe.PaymentIntent.create(amount=1000, currency="eur", payment_method_types=[method_type], payment_method=method.id, confirm=True, return_url="https://shop.example/back")
    page = requests.get(left.next_action.redirect_to_url.url, timeout=30)
    leave = page.text.split('id="leave" href="')[1].split('"')[0].replace("&amp;", "&")
    check(f"{method_type} customer leaves", requests.get(URL + leave, timeout=30).status_code == 200 and stripe.PaymentIntent.retrieve(left.id).status == "requires_action")
intent = stripe.PaymentIntent.create(amount=2, currency="eur", payment_method_types=["bancontact"])
check("Bancontact takes two cents", intent.amount == 2)
raises("cards take fifty cents", stripe.error.InvalidRequestError, lambda: stripe.PaymentIntent.create(amount=49, currency="eur"), code="amount_too_small")
raises("unknown currency", stripe.error.InvalidRequestError, lambda: stripe.PaymentIntent.create(amount=1000, currency="gbp"), param="currency")

# Idempotency
key = str(uuid.uuid4())
first = stripe.PaymentIntent.create(amount=700, currency="eur", payment_method=pm.id, confirm=True, idempotency_key=key)
again = stripe.PaymentIntent.create(amount=700, currency="eur", payment_method=pm.id, confirm=True, idempotency_key=key)
check("same key, same answer, charged once", first.id == again.id and again.status == "succeeded")
expected_eur += 700 - card_fee(700)
raises("same key, other parameters", stripe.error.IdempotencyError,
       lambda: stripe.PaymentIntent.create(amount=701, currency="eur", idempotency_key=key))
declined_key = str(uuid.uuid4())
first_error = raises("a decline under a key", stripe.error.CardError, lambda: stripe.PaymentIntent.create(amount=900, currency="eur", payment_method=card("4000000000000002").id, confirm=True, idempotency_key=declined_key))

# Customers and saved cards
customer = stripe.Customer.create(email="jane@example.com", name="Jane", metadata={"tier": "gold"})
check("customer", customer.object == "customer" and customer.email == "jane@example.com" and stripe.Customer.retrieve(customer.id).name == "Jane")
saved = [card("4242424242424242"), card("5555555555554444")]
for method in saved:
    attached = stripe.PaymentMethod.attach(method.id, customer=customer.id)
    check(f"attach {method.card.brand}", attached.customer == customer.id)
listed = stripe.PaymentMethod.list(customer=customer.id, type="card")
check("the customer's cards", sorted(m.id for m in listed.data) == sorted(m.id for m in saved))
raises("attach to an unknown customer", stripe.error.InvalidRequestError, lambda: stripe.PaymentMethod.attach(pm.id, customer="cus_nope"), http_status=404)
detached = stripe.PaymentMethod.detach(saved[0].id)
check("detach", detached.customer is None and [m.id for m in stripe.PaymentMethod.list(customer=customer.id, type="card").data] == [saved[1].id])
raises("detach twice", stripe.error.InvalidRequestError, lambda: stripe.PaymentMethod.detach(saved[0].id))
from_test = stripe.PaymentMethod.attach("pm_card_visa", customer=customer.id)
check("pm_card_visa attached makes a saved card", from_test.id.startswith("pm_") and from_test.id != "pm_card_visa" and from_test.customer == customer.id)
stripe.PaymentMethod.detach(from_test.id)
intent = stripe.PaymentIntent.create(amount=1800, currency="eur", customer=customer.id, payment_method=saved[1].id, confirm=True)
check("pay with a saved card", intent.status == "succeeded" and intent.customer == customer.id)
expected_eur += 1800 - card_fee(1800)
shaped("a payment intent", intent, stripe.PaymentIntent)

# Customers: listed by e-mail, changed, their saved cards, deleted
shaped("a customer", stripe.Customer.retrieve(customer.id), stripe.Customer)
second_jane = stripe.Customer.create(email="jane@example.com", name="Jane B")
stripe.Customer.create(email="joe@example.com")
check("customers listed by e-mail, newest first", [c.id for c in stripe.Customer.list(email="jane@example.com").data] == [second_jane.id, customer.id])
check("customers auto-paged", len(list(stripe.Customer.list(limit=1).auto_paging_iter())) == 3)
changed = stripe.Customer.modify(customer.id, name="Jane Doe", phone="+31 20 123 4567", metadata={"tier": "", "since": "2026"},
                                 invoice_settings={"default_payment_method": saved[1].id})
check("a customer changed", changed.name == "Jane Doe" and changed.phone == "+31 20 123 4567" and changed.metadata.to_dict() == {"since": "2026"}
      and changed.invoice_settings.default_payment_method == saved[1].id and stripe.Customer.retrieve(customer.id).name == "Jane Doe", changed)
raises("a default payment method must be one of the customer's", stripe.error.InvalidRequestError,
       lambda: stripe.Customer.modify(customer.id, invoice_settings={"default_payment_method": pm.id}), param="invoice_settings[default_payment_method]")
check("a customer's payment methods", [m.id for m in stripe.Customer.list_payment_methods(customer.id).data] == [saved[1].id]
      and stripe.Customer.list_payment_methods(customer.id, type="ideal").data == [])
with_card = stripe.Customer.create(email="kim@example.com", payment_method="pm_card_mastercard", invoice_settings={"default_payment_method": ""})
kims = stripe.Customer.list_payment_methods(with_card.id).data
check("a customer made with a card", [m.card.brand for m in kims] == ["mastercard"])
gone = stripe.Customer.delete(with_card.id)
check("a customer deleted", gone.deleted and stripe.Customer.retrieve(with_card.id).deleted and with_card.id not in {c.id for c in stripe.Customer.list().data})
check("its cards detached", stripe.PaymentMethod.retrieve(kims[0].id).customer is None)
raises("a deleted customer cannot change", stripe.error.InvalidRequestError, lambda: stripe.Customer.modify(with_card.id, name="Kim"), http_status=404)
raises("nor be deleted twice", stripe.error.InvalidRequestError, lambda: stripe.Customer.delete(with_card.id), http_status=404)
raises("an unknown customer", stripe.error.InvalidRequestError, lambda: stripe.Customer.retrieve("cus_nope"), http_status=404, code="resource_missing")

# SetupIntents: cards saved, with 3-D Secure when the issuer asks, for payments made without the customer
saver = stripe.Customer.create(email="saver@example.com")
plain = stripe.SetupIntent.create(customer=saver.id, payment_method="pm_card_visa", confirm=True, usage="off_session")
check("a card set up", plain.status == "succeeded" and plain.usage == "off_session" and stripe.PaymentMethod.retrieve(plain.payment_method).customer == saver.id)
shaped("a setup intent", plain, stripe.SetupIntent)
seen = stripe.SetupIntent.retrieve(plain.id, client_secret=plain.client_secret, api_key=merchant["publishable_key"])
check("a publishable key reads a setup intent with its client secret", seen.status == "succeeded")
raises("and not without it", stripe.error.InvalidRequestError, lambda: stripe.SetupIntent.retrieve(plain.id, api_key=merchant["publishable_key"]), param="client_secret")
raises("nor with another", stripe.error.InvalidRequestError,
       lambda: stripe.SetupIntent.retrieve(plain.id, client_secret=plain.client_secret + "x", api_key=merchant["publishable_key"]), param="client_secret")
secured = stripe.SetupIntent.create(customer=saver.id, payment_method="pm_card_authenticationRequiredOnSetup", confirm=True, return_url="https://shop.example/saved")
check("a card whose issuer asks must authenticate to be set up", secured.status == "requires_action" and "/v1/test/3ds/seti_" in secured.next_action.redirect_to_url.url)
query = follow(secured.next_action, "complete")
check("and returns to the shop", query["setup_intent"] == [secured.id] and query["redirect_status"] == ["succeeded"], query)
secured = stripe.SetupIntent.retrieve(secured.id)
check("set up once authenticated", secured.status == "succeeded" and stripe.PaymentMethod.retrieve(secured.payment_method).customer == saver.id)
later = stripe.PaymentIntent.create(amount=3000, currency="eur", customer=saver.id, payment_method=secured.payment_method, off_session=True, confirm=True)
check("an off-session payment with it needs no authentication", later.status == "succeeded")
expected_eur += 3000 - card_fee(3000)
always = stripe.PaymentMethod.attach("pm_card_threeDSecureRequired", customer=saver.id)
refused = raises("an off-session payment whose card always needs authentication", stripe.error.CardError,
                 lambda: stripe.PaymentIntent.create(amount=3000, currency="eur", customer=saver.id, payment_method=always.id, off_session=True, confirm=True),
                 code="authentication_required")
check("... is declined for the customer to come back", refused.json_body["error"]["payment_intent"]["status"] == "requires_payment_method"
      and refused.json_body["error"]["decline_code"] == "authentication_required")
check("... and its charge says so", stripe.Charge.retrieve(refused.json_body["error"]["payment_intent"]["latest_charge"]).failure_code == "authentication_required")
on_session = stripe.PaymentIntent.create(amount=3000, currency="eur", customer=saver.id, payment_method=always.id, confirm=True, return_url="https://shop.example/back")
check("the same card with the customer there asks for 3-D Secure", on_session.status == "requires_action")
failing = stripe.SetupIntent.create(payment_method="pm_card_threeDSecure2Required", confirm=True, return_url="https://shop.example/saved")
follow(failing.next_action, "fail")
failing = stripe.SetupIntent.retrieve(failing.id)
check("a failed authentication sets nothing up", failing.status == "requires_payment_method" and failing.last_setup_error.code == "setup_intent_authentication_failure")
declined_setup = raises("a declined card is not set up", stripe.error.CardError, lambda: stripe.SetupIntent.create(payment_method="pm_card_chargeDeclined", confirm=True), code="card_declined")
check("... its setup intent in the error", declined_setup.json_body["error"]["setup_intent"]["status"] == "requires_payment_method")
check("a setup intent canceled", stripe.SetupIntent.cancel(stripe.SetupIntent.create().id).status == "canceled")
check("setup intents listed by customer", {s.id for s in stripe.SetupIntent.list(customer=saver.id).data} == {plain.id, secured.id})
kept = stripe.PaymentIntent.create(amount=1200, currency="eur", customer=saver.id, payment_method="pm_card_mastercard", setup_future_usage="off_session", confirm=True)
check("setup_future_usage saves the card for the customer", kept.setup_future_usage == "off_session" and stripe.PaymentMethod.retrieve(kept.payment_method).customer == saver.id)
expected_eur += 1200 - card_fee(1200)
raises("off_session needs confirm", stripe.error.InvalidRequestError, lambda: stripe.PaymentIntent.create(amount=1000, currency="eur", off_session=True), param="off_session")

# Refunds
refund = stripe.Refund.create(payment_intent=intent.id, amount=500)
check("partial refund", refund.object == "refund" and refund.status == "succeeded" and refund.amount == 500)
expected_eur -= 500
refund = stripe.Refund.create(payment_intent=intent.id, amount=300, reason="requested_by_customer")
check("another partial refund", refund.status == "succeeded" and stripe.Refund.retrieve(refund.id).amount == 300)
expected_eur -= 300
raises("more than what is left", stripe.error.InvalidRequestError, lambda: stripe.Refund.create(payment_intent=intent.id, amount=1001), code="amount_too_large")
refund = stripe.Refund.create(payment_intent=intent.id)
check("the rest", refund.amount == 1000 and stripe.PaymentIntent.retrieve(intent.id).amount_refunded == 1800)
expected_eur -= 1000
raises("nothing left to refund", stripe.error.InvalidRequestError, lambda: stripe.Refund.create(payment_intent=intent.id, amount=1))
uncaptured = stripe.PaymentIntent.create(amount=900, currency="eur", payment_method=pm.id, capture_method="manual", confirm=True)
raises("an uncaptured payment cannot be refunded", stripe.error.InvalidRequestError, lambda: stripe.Refund.create(payment_intent=uncaptured.id), code="charge_not_refundable")
check("refunds are listed", [r.amount for r in stripe.Refund.list(limit=3).data] == [1000, 300, 500])
shaped("a refund", refund, stripe.Refund)

# Charges: one for each attempt to pay, read by id, listed, refunded by id.
charge = stripe.Charge.retrieve(intent.latest_charge)
shaped("a succeeded charge", charge, stripe.Charge)
check("the intent's latest charge", charge.payment_intent == intent.id and charge.status == "succeeded" and charge.paid and charge.captured
      and charge.amount_captured == 1800 and charge.amount_refunded == 1800 and charge.refunded and charge.customer == customer.id
      and charge.payment_method == saved[1].id and charge.payment_method_details.card.last4 == "4444" and charge.outcome.type == "authorized", charge)
check("refunds name their charge", {r.charge for r in stripe.Refund.list(limit=3).data} == {charge.id})
tries = stripe.Charge.list(payment_intent=declined_id)
check("a declined, then paid intent has two charges, newest first", [c.status for c in tries.data] == ["succeeded", "failed"]
      and tries.data[1].failure_code == "processing_error" and tries.data[1].outcome.type == "issuer_declined" and not tries.data[1].paid, tries)
shaped("a failed charge", tries.data[1], stripe.Charge)
paid = stripe.PaymentIntent.create(amount=1000, currency="eur", payment_method=pm.id, confirm=True)
expected_eur += 1000 - card_fee(1000)
by_charge = stripe.Refund.create(charge=paid.latest_charge, amount=400)
expected_eur -= 400
check("a refund by charge", by_charge.charge == paid.latest_charge and by_charge.payment_intent == paid.id
      and stripe.Charge.retrieve(paid.latest_charge).amount_refunded == 400 and not stripe.Charge.retrieve(paid.latest_charge).refunded)
check("refunds listed by payment intent and by charge", [r.id for r in stripe.Refund.list(payment_intent=paid.id).data] == [by_charge.id]
      and [r.id for r in stripe.Refund.list(charge=paid.latest_charge).data] == [by_charge.id]
      and [r.amount for r in stripe.Refund.list(payment_intent=intent.id).data] == [1000, 300, 500]
      and stripe.Refund.list(payment_intent=uncaptured.id).data == [])
raises("a failed charge cannot be refunded", stripe.error.InvalidRequestError, lambda: stripe.Refund.create(charge=tries.data[1].id), code="charge_not_refundable", param="charge")
raises("an unknown charge", stripe.error.InvalidRequestError, lambda: stripe.Charge.retrieve("ch_nope"), http_status=404, code="resource_missing")
raises("a refund of an unknown charge", stripe.error.InvalidRequestError, lambda: stripe.Refund.create(charge="ch_nope"), code="resource_missing", param="charge")
raises("a refund names what it refunds", stripe.error.InvalidRequestError, lambda: stripe.Refund.create(amount=100), code="parameter_missing")
every_charge = [c.id for c in stripe.Charge.list(limit=100).data]
paged_charges = [c.id for c in stripe.Charge.list(limit=7).auto_paging_iter()]
check("charges auto-page, newest first", paged_charges == every_charge and len(every_charge) > 20 and every_charge[0] == paid.latest_charge,
      f"{len(paged_charges)} / {len(every_charge)}")

# Lists
page = stripe.PaymentIntent.list(limit=3)
check("list page", page.object == "list" and len(page.data) == 3 and page.has_more)
following = stripe.PaymentIntent.list(limit=3, starting_after=page.data[-1].id)
check("next page follows", following.data[0].created <= page.data[-1].created and following.data[0].id not in {i.id for i in page.data})
previous = stripe.PaymentIntent.list(limit=3, ending_before=following.data[0].id)
check("previous page", [i.id for i in previous.data] == [i.id for i in page.data])
every = [i.id for i in stripe.PaymentIntent.list(limit=100).data]
paged = [i.id for i in stripe.PaymentIntent.list(limit=5).auto_paging_iter()]
check("auto-paging sees every intent once, newest first", paged == every and len(every) > 20, f"{len(paged)} / {len(every)}")

# Keys
raises("unknown key", stripe.error.AuthenticationError, lambda: stripe.PaymentIntent.list(api_key="sk_test_nope"))
raises("publishable key cannot create intents", stripe.error.PermissionError,
       lambda: stripe.PaymentIntent.create(amount=1000, currency="eur", api_key=merchant["publishable_key"]))
browser_pm = stripe.PaymentMethod.create(type="card", card={"number": "4242424242424242", "exp_month": 1, "exp_year": 2035}, api_key=merchant["publishable_key"])
pending = stripe.PaymentIntent.create(amount=1200, currency="eur")
raises("publishable key needs the client secret", stripe.error.InvalidRequestError,
       lambda: stripe.PaymentIntent.confirm(pending.id, payment_method=browser_pm.id, api_key=merchant["publishable_key"]), param="client_secret")
confirmed = stripe.PaymentIntent.confirm(pending.id, payment_method=browser_pm.id, client_secret=pending.client_secret, api_key=merchant["publishable_key"])
check("publishable key confirms with the client secret", confirmed.status == "succeeded")
expected_eur += 1200 - card_fee(1200)
other = requests.post(f"{URL}/v1/admin/merchants", data={"name": "Other shop"}, headers={"Authorization": f"Bearer {ADMIN_KEY}"}, timeout=30).json()
raises("another merchant's intent is unknown", stripe.error.InvalidRequestError,
       lambda: stripe.PaymentIntent.retrieve(pending.id, api_key=other["secret_key"]), http_status=404)
raises("admin routes need the admin key", stripe.error.AuthenticationError, lambda: stripe.PaymentIntent.list(api_key=ADMIN_KEY))

# Payouts to the merchant's own Stellar address, which must trust the anchor's EUR.
horizon = Server(URL)
settlement_lines = horizon.accounts().account_id(merchant["settlement_account"]).call()["balances"]
euro = Asset("EUR", next(b["asset_issuer"] for b in settlement_lines if b.get("asset_code") == "EUR"))
wallet = Keypair.random()
requests.get(f"{URL}/friendbot", params={"addr": wallet.public_key}, timeout=30)
raises("a payout to an address without the trustline", stripe.error.InvalidRequestError,
       lambda: stripe.Payout.create(amount=500, currency="eur", destination=wallet.public_key), code="payout_destination_invalid")
raises("a payout to something else than an address", stripe.error.InvalidRequestError,
       lambda: stripe.Payout.create(amount=500, currency="eur", destination="GNOTANADDRESS"), code="payout_destination_invalid")
trust = TransactionBuilder(horizon.load_account(wallet.public_key), Network.STANDALONE_NETWORK_PASSPHRASE, base_fee=100) \
    .append_change_trust_op(asset=euro).set_timeout(60).build()
trust.sign(wallet)
horizon.submit_transaction(trust)
payout = stripe.Payout.create(amount=500, currency="eur", destination=wallet.public_key, metadata={"run": "interop"})
check("payout", payout.object == "payout" and payout.status == "paid" and stripe.Payout.retrieve(payout.id).amount == 500)
expected_eur -= 500
wallet_eur = next(b for b in horizon.accounts().account_id(wallet.public_key).call()["balances"] if b.get("asset_code") == "EUR")
check("the payout is on the ledger", wallet_eur["balance"] == "5.0000000", wallet_eur)
raises("a payout beyond the balance", stripe.error.InvalidRequestError,
       lambda: stripe.Payout.create(amount=expected_eur + 1, currency="eur", destination=wallet.public_key), code="balance_insufficient")
check("payouts are listed", [p.id for p in stripe.Payout.list(limit=5).data] == [payout.id])
shaped("a payout", payout, stripe.Payout)

# The money on the ledger
balance = stripe.Balance.retrieve()
eur = next(b for b in balance.available if b.currency == "eur")
check("balance is the captured amounts less fees", eur.amount == expected_eur, f"{eur.amount} != {expected_eur}")
shaped("the balance", balance, stripe.Balance)
movements = list(stripe.BalanceTransaction.list(limit=10).auto_paging_iter())
check("the balance transactions sum to the balance", sum(t.net for t in movements if t.currency == "eur") == eur.amount and len(movements) > 20,
      f"{sum(t.net for t in movements if t.currency == 'eur')} != {eur.amount}")
moved = stripe.BalanceTransaction.retrieve(charge.balance_transaction)
shaped("a balance transaction", moved, stripe.BalanceTransaction)
check("a charge's balance transaction: gross, fee, net", moved.source == charge.id and moved.type == "charge" and moved.amount == 1800
      and moved.fee == card_fee(1800) and moved.net == 1800 - card_fee(1800) and moved.fee_details[0].type == "stripe_fee", moved)
check("a payout's and a refund's", stripe.BalanceTransaction.retrieve(payout.balance_transaction).amount == -500
      and stripe.BalanceTransaction.retrieve(by_charge.balance_transaction).amount == -400)
refund_movements = stripe.BalanceTransaction.list(type="refund", limit=100).data
check("balance transactions of one type", refund_movements and all(t.type == "refund" for t in refund_movements)
      and [t.id for t in stripe.BalanceTransaction.list(source=payout.id).data] == [payout.balance_transaction])
raises("an unknown type", stripe.error.InvalidRequestError, lambda: stripe.BalanceTransaction.list(type="nope"), param="type")

# Checkout Sessions through the library (paid in Chromium by payment_page.py)
cart = stripe.checkout.Session.create(
    mode="payment", success_url="https://shop.example/thanks?s={CHECKOUT_SESSION_ID}", cancel_url="https://shop.example/cart", customer=customer.id,
    client_reference_id="cart-42", metadata={"cart": "42"},
    line_items=[{"price_data": {"currency": "eur", "unit_amount": 1250, "product_data": {"name": "Tea"}}, "quantity": 3},
                {"price_data": {"currency": "eur", "unit_amount": 199, "product_data": {"name": "Spoon"}}, "quantity": 1}])
shaped("a checkout session", cart, stripe.checkout.Session, may_lack=("line_items",))  # shown when expanded, as Stripe's
check("a checkout session", cart.amount_total == 3949 and cart.status == "open" and cart.payment_status == "unpaid" and cart.url.startswith(URL + "/pay/cs_test_")
      and cart.success_url == f"https://shop.example/thanks?s={cart.id}" and stripe.PaymentIntent.retrieve(cart.payment_intent).amount == 3949, cart)
lines = stripe.checkout.Session.list_line_items(cart.id, limit=1)
check("its line items, paged", [(i.description, i.quantity, i.amount_total) for i in lines.data] == [("Tea", 3, 3750)] and lines.has_more
      and [i.description for i in stripe.checkout.Session.list_line_items(cart.id, starting_after=lines.data[0].id).data] == ["Spoon"])
shaped("a line item", lines.data[0], stripe.LineItem)
check("sessions listed by customer and by intent", [s.id for s in stripe.checkout.Session.list(customer=customer.id).data] == [cart.id]
      and [s.id for s in stripe.checkout.Session.list(payment_intent=cart.payment_intent).data] == [cart.id])
gone_cart = stripe.checkout.Session.expire(cart.id)
check("a session expired, its intent canceled", gone_cart.status == "expired" and stripe.PaymentIntent.retrieve(cart.payment_intent).status == "canceled")
raises("an expired session cannot be paid", stripe.error.InvalidRequestError,
       lambda: stripe.PaymentIntent.confirm(cart.payment_intent, payment_method="pm_card_visa"))
raises("nor expired again", stripe.error.InvalidRequestError, lambda: stripe.checkout.Session.expire(cart.id))
raises("line items in two currencies", stripe.error.InvalidRequestError, lambda: stripe.checkout.Session.create(
    mode="payment", success_url="https://shop.example/", line_items=[
        {"price_data": {"currency": "eur", "unit_amount": 100, "product_data": {"name": "A"}}, "quantity": 1},
        {"price_data": {"currency": "usd", "unit_amount": 100, "product_data": {"name": "B"}}, "quantity": 1}]),
       param="line_items[1][price_data][currency]")
raises("a subscription is not served", stripe.error.InvalidRequestError, lambda: stripe.checkout.Session.create(
    mode="subscription", success_url="https://shop.example/", line_items=[{"price_data": {"currency": "eur", "unit_amount": 100, "product_data": {"name": "A"}}, "quantity": 1}]),
       param="mode")
raises("a quantity of nothing", stripe.error.InvalidRequestError, lambda: stripe.checkout.Session.create(
    mode="payment", success_url="https://shop.example/", line_items=[{"price_data": {"currency": "eur", "unit_amount": 100, "product_data": {"name": "A"}}, "quantity": 0}]),
       param="line_items[0][quantity]")

# expand[]: ids replaced by the objects they name
deep = stripe.PaymentIntent.retrieve(intent.id, expand=["latest_charge.balance_transaction", "payment_method", "customer"])
check("expand on a retrieve, two levels deep", deep.latest_charge.object == "charge" and deep.latest_charge.balance_transaction.fee == card_fee(1800)
      and deep.payment_method.card.last4 == "4444" and deep.customer.email == "jane@example.com", deep)
listed = stripe.PaymentIntent.list(limit=5, expand=["data.latest_charge"])
check("expand in a list", all(i.latest_charge is None or i.latest_charge.object == "charge" for i in listed.data)
      and any(i.latest_charge is not None for i in listed.data))
made_expanded = stripe.PaymentIntent.create(amount=1000, currency="eur", payment_method="pm_card_visa", confirm=True, expand=["latest_charge"])
check("expand on a create", made_expanded.latest_charge.paid and made_expanded.latest_charge.payment_intent == made_expanded.id)
expected_eur += 1000 - card_fee(1000)
check("expand through a customer's settings", stripe.Customer.retrieve(customer.id, expand=["invoice_settings.default_payment_method"]).invoice_settings.default_payment_method.id == saved[1].id)
check("expand on charges and balance transactions",
      stripe.Charge.retrieve(charge.id, expand=["payment_intent"]).payment_intent.id == intent.id
      and stripe.BalanceTransaction.list(limit=3, expand=["data.source"]).data[0].source.object in {"charge", "refund", "payout"})
raises("expand of what holds no id", stripe.error.InvalidRequestError, lambda: stripe.PaymentIntent.retrieve(intent.id, expand=["amount"]), param="expand")
raises("expand more than four levels", stripe.error.InvalidRequestError,
       lambda: stripe.PaymentIntent.retrieve(intent.id, expand=["latest_charge.payment_intent.latest_charge.payment_intent.customer"]), param="expand")
raises("a bad expand on a create moves nothing", stripe.error.InvalidRequestError,
       lambda: stripe.PaymentIntent.create(amount=1000, currency="eur", payment_method="pm_card_visa", confirm=True, expand=["amount"]), param="expand")
account = Server(URL).accounts().account_id(merchant["settlement_account"]).call()
ledger_eur = next(b for b in account["balances"] if b.get("asset_code") == "EUR")
check("the settlement account holds it on the ledger", ledger_eur["balance"] == f"{expected_eur // 100}.{expected_eur % 100:02d}00000", ledger_eur)

# Events and webhooks: every event reaches the receiver, signed, the first after a retry.
events = [e for e in stripe.Event.list(limit=100).auto_paging_iter()]
types = {e.type for e in events}
check("events of every kind", {"payment_intent.created", "payment_intent.succeeded", "payment_intent.payment_failed", "payment_intent.requires_action",
                               "payment_intent.amount_capturable_updated", "payment_intent.canceled", "charge.refunded", "charge.succeeded", "charge.failed",
                               "charge.captured", "setup_intent.created", "setup_intent.succeeded", "setup_intent.requires_action",
                               "setup_intent.setup_failed", "setup_intent.canceled"} <= types, types)
check("an event retrieved", stripe.Event.retrieve(events[0].id).type == events[0].type)
deadline = time.time() + 60
while len({e.id for e in received}) < len(events) and time.time() < deadline:
    time.sleep(0.2)
check("every event delivered and verified by stripe.Webhook", {e.id for e in received} == {e.id for e in events} and not receiver_errors,
      f"{len(received)} of {len(events)}; {receiver_errors[:3]}")
check("the first delivery was retried", attempts["count"] == len(received) + 1, attempts)
shaped("an event", events[0], stripe.Event)
auth = {"Authorization": f"Bearer {stripe.api_key}"}
recent = requests.get(f"{URL}/v1/webhook_endpoints/{endpoint.id}/deliveries", params={"limit": 100}, headers=auth, timeout=30).json()["data"]
check("an endpoint's latest deliveries, newest first", len(recent) == 100 and all(d["status"] == "delivered" and d["last_status_code"] == 200 for d in recent)
      and recent[0]["event"] == events[0].id, recent[:2])
first_event = events[-1]
retried = requests.get(f"{URL}/v1/events/{first_event.id}/deliveries", headers=auth, timeout=30).json()["data"]
check("an event's deliveries tell their attempts", len(retried) == 1 and retried[0]["attempts"] == 2 and retried[0]["last_status_code"] == 200
      and retried[0]["status"] == "delivered" and retried[0]["endpoint"] == endpoint.id and retried[0]["last_attempt_at"] >= time.time() - 600
      and retried[0]["next_attempt_at"] is None, retried)
check("another merchant's event has no deliveries to read",
      requests.get(f"{URL}/v1/events/{retried[0]['event']}/deliveries", headers={"Authorization": f"Bearer {other['secret_key']}"}, timeout=30).status_code == 404)
settled = list(stripe.Event.list(limit=100).auto_paging_iter())
check("once delivered, no event says a webhook is pending", all(e.pending_webhooks == 0 for e in settled) and stripe.Event.retrieve(events[-1].id).pending_webhooks == 0,
      [(e.type, e.pending_webhooks) for e in settled if e.pending_webhooks])
succeeded = [e for e in received if e.type == "payment_intent.succeeded"]
check("a succeeded event carries the intent", succeeded and succeeded[0].data.object.object == "payment_intent" and succeeded[0].data.object.status == "succeeded")
refunded = [e for e in received if e.type == "charge.refunded"]
check("charge.refunded carries the refunded charge", {(e.data.object.id, e.data.object.amount_refunded) for e in refunded} >= {(charge.id, 1800), (paid.latest_charge, 400)})
receiver.shutdown()

# `tender gateway webhooks listen --forward-to`, as the Stripe CLI's: new events reach a local
# URL signed with the secret it prints.
if len(sys.argv) > 3:
    forwarded = []

    class Forwarded(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            payload = self.rfile.read(int(self.headers["Content-Length"]))
            forwarded.append((payload, self.headers["Stripe-Signature"]))
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args):
            pass

    local = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Forwarded)
    threading.Thread(target=local.serve_forever, daemon=True).start()
    listen = subprocess.Popen([sys.argv[3], "gateway", "webhooks", "listen", "--forward-to", f"http://127.0.0.1:{local.server_address[1]}/webhook",
                               "--key", stripe.api_key, "--url", URL, "--interval", "0.1"], stdout=subprocess.PIPE, text=True)
    # Bounded: a CLI that never prints is killed, which ends the line read.
    watchdog = threading.Timer(30, listen.kill)
    watchdog.start()
    ready = listen.stdout.readline()
    watchdog.cancel()
    check("listen prints its signing secret", ready.startswith("Ready! Your webhook signing secret is whsec_"), ready)
    cli_secret = ready.split()[-1]
    paid = stripe.PaymentIntent.create(amount=1300, currency="eur", payment_method=pm.id, confirm=True)
    expected_eur += 1300 - card_fee(1300)
    deadline = time.time() + 30
    while len(forwarded) < 3 and time.time() < deadline:
        time.sleep(0.1)
    listen.terminate()
    listen.wait(timeout=10)
    verified = [stripe.Webhook.construct_event(payload, signature, cli_secret) for payload, signature in forwarded]
    check("listen forwards new events in order, signed", [(e.type, e.data.object.id) for e in verified] ==
          [("payment_intent.created", paid.id), ("payment_intent.succeeded", paid.id), ("charge.succeeded", paid.latest_charge)], [e.type for e in verified])
    local.shutdown()

done()
