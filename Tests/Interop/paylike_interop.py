"""Drives Paylike's merchant API of a running `tender serve` only through the real PyPI `paylike`
library (1.0), pointed at Tender by its `api_base_url`, for an authorization made by Tender's
PaymentEngine: capture part, refund part, void the rest, fetch it, list the merchant's
transactions; then the merchant's settlement balance on the ledger, through Horizon.

Usage: python paylike_interop.py URL SECRET_KEY MERCHANT_ID TRANSACTION_ID OTHER_SECRET_KEY SETTLEMENT_ACCOUNT
The transaction is an authorization of EUR 10.00. Prints one line per check and exits non-zero
at the first failure.
"""

import sys
from decimal import Decimal

import requests
from interop_checks import check, done
from paylike import PaylikeApiClient

URL, SECRET, MERCHANT, TRANSACTION, OTHER_SECRET, SETTLEMENT = sys.argv[1:7]
URL = URL.rstrip("/")
PaylikeApiClient.api_base_url = f"{URL}/paylike/api"

client = PaylikeApiClient(api_key=SECRET, merchant_id=MERCHANT)

ok, transaction = client.get_transaction(TRANSACTION)
check("the authorization is a transaction", ok and transaction["id"] == TRANSACTION, transaction)
check("nothing captured yet", (transaction["amount"], transaction["pendingAmount"], transaction["capturedAmount"]) == (1000, 1000, 0), transaction)
check("in Paylike's shape", transaction["currency"] == "EUR" and transaction["test"] is True and transaction["trail"] == []
      and transaction["card"]["last4"] == "4242" and transaction["merchantId"] == MERCHANT, transaction)

ok, answer = client.capture_transaction(TRANSACTION, Decimal("4.00"), descriptor="Order 7")
check("capture part (4.00)", ok and answer["transaction"]["capturedAmount"] == 400 and answer["transaction"]["pendingAmount"] == 600, answer)
ok, answer = client.capture_transaction(TRANSACTION, Decimal("7.00"))
check("a capture beyond what is pending is refused", not ok and answer.get("code") == "REQUEST_INVALID", answer)
ok, answer = client.capture_transaction(TRANSACTION, Decimal("1.00"), currency="USD")
check("a capture in another currency is refused", not ok, answer)

ok, answer = client.refund_transaction(TRANSACTION, Decimal("1.50"), descriptor="Returned")
check("refund part (1.50)", ok and answer["transaction"]["refundedAmount"] == 150, answer)
ok, answer = client.refund_transaction(TRANSACTION, Decimal("3.00"))
check("a refund beyond what was captured and not refunded is refused", not ok, answer)

ok, answer = client.cancel_transaction(TRANSACTION)
check("void the rest (6.00, the pending amount read first)", ok and answer["transaction"]["voidedAmount"] == 600
      and answer["transaction"]["pendingAmount"] == 0, answer)
ok, answer = client.cancel_transaction(TRANSACTION, Decimal("0.01"))
check("nothing is left to void", not ok, answer)

ok, transaction = client.get_transaction(TRANSACTION)
amounts = {key: transaction[key] for key in ("amount", "pendingAmount", "capturedAmount", "refundedAmount", "voidedAmount")}
check("the amounts add up", amounts == {"amount": 1000, "pendingAmount": 0, "capturedAmount": 400, "refundedAmount": 150, "voidedAmount": 600}, amounts)
trail = [(next(kind for kind in ("capture", "refund", "void") if entry.get(kind)), entry["amount"]) for entry in transaction["trail"]]
check("the trail lists what was done, in order", trail == [("capture", 400), ("refund", 150), ("void", 600)], transaction["trail"])
check("descriptors are kept", transaction["trail"][0].get("descriptor") == "Order 7", transaction["trail"])

ok, listed = client.get_transactions(limit=10)
check("the merchant's transactions list it", ok and isinstance(listed, list) and any(item["id"] == TRANSACTION for item in listed), listed)

other = PaylikeApiClient(api_key=OTHER_SECRET, merchant_id=MERCHANT)
ok, answer = other._call_api(f"/transactions/{TRANSACTION}")
check("another merchant does not see it", not ok and answer.get("code") == "NOT_FOUND", answer)
ok, answer = other.get_transactions(limit=10)
check("nor another merchant's list", not ok, answer)
ok, answer = other.capture_transaction(TRANSACTION, Decimal("1.00"))
check("nor captures it", not ok, answer)
wrong = PaylikeApiClient(api_key="sk_test_wrong", merchant_id=MERCHANT)
ok, answer = wrong._call_api(f"/transactions/{TRANSACTION}")
check("an unknown key is refused", not ok and answer.get("code") == "UNAUTHORIZED", answer)

# The ledger: 4.00 captured less the card fee (1.5% + 0.25 = 0.31), less the 1.50 refunded.
account = requests.get(f"{URL}/accounts/{SETTLEMENT}", timeout=30).json()
eur = [line["balance"] for line in account["balances"] if line.get("asset_code") == "EUR"]
check("the settlement account holds 2.19 EUR on the ledger", eur == ["2.1900000"], account["balances"])

done()
