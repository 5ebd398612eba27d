"""Generates StellarBase's test vectors with the real Python stellar-sdk.

Run through Scripts/generate-vectors.sh, which installs stellar-sdk==16.1.1 into a virtual
environment. Everything is derived from fixed seeds and fixed numbers, so the output is the same
on every run; Swift tests must reproduce every byte of it.
"""
import hashlib
import json
import sys
import warnings

from stellar_sdk import (
    Account, Asset, Keypair, MuxedAccount, Network, TransactionBuilder, TransactionEnvelope,
    FeeBumpTransactionEnvelope, Signer, SignerKey, Claimant, LiquidityPoolAsset, Price,
    LIQUIDITY_POOL_FEE_V18,
)
from stellar_sdk import xdr as x
from stellar_sdk.operation import Operation
from stellar_sdk.operation.allow_trust import TrustLineEntryFlag
from stellar_sdk.memo import NoneMemo, TextMemo, IdMemo, HashMemo, ReturnHashMemo

STANDALONE = "Standalone Network ; February 2017"
TESTNET = Network.TESTNET_NETWORK_PASSPHRASE


def seed(i):
    return hashlib.sha256(f"tender-vector-{i}".encode()).digest()


KEYS = [Keypair.from_raw_ed25519_seed(seed(i)) for i in range(6)]
ALICE, BOB, ISSUER, CAROL, FEE, DAVE = KEYS
USD = Asset("USD", ISSUER.public_key)
EURT = Asset("EURT", ISSUER.public_key)
LONG = Asset("LONGASSET12", ISSUER.public_key)
FIVE = Asset("ABCDE", CAROL.public_key)
MUXED_BOB = MuxedAccount(BOB.public_key, 1234567890123).account_muxed
MUXED_ALICE = MuxedAccount(ALICE.public_key, 18446744073709551615).account_muxed


def keypairs():
    out = []
    for i, kp in enumerate(KEYS):
        muxed = [
            {"id": str(mid), "address": MuxedAccount(kp.public_key, mid).account_muxed}
            for mid in (0, 1, 1234567890123, 18446744073709551615)
        ]
        msg = f"message {i}".encode()
        out.append({
            "seed_hex": seed(i).hex(),
            "secret": kp.secret,
            "account_id": kp.public_key,
            "public_key_hex": kp.raw_public_key().hex(),
            "hint_hex": kp.signature_hint().hex(),
            "muxed": muxed,
            "message_hex": msg.hex(),
            "signature_hex": kp.sign(msg).hex(),
        })
    return out


def builder(source=ALICE, sequence=4294967296123, base_fee=100, memo=None, time_bounds=None, v1=True, muxed_source=None):
    account = Account(muxed_source or source.public_key, sequence)
    b = TransactionBuilder(account, network_passphrase=STANDALONE, base_fee=base_fee, v1=v1)
    if memo is not None:
        b.add_memo(memo)
    if time_bounds is not None:
        b.add_time_bounds(*time_bounds)
    return b


def envelope_cases():
    """(name, builder) pairs; each is signed by ALICE (and more where needed)."""
    cases = []

    def add(name, b, signers=(ALICE,)):
        cases.append((name, b, signers))

    add("create_account", builder().append_create_account_op(BOB.public_key, "10000.5"))
    add("payment_native", builder().append_payment_op(BOB.public_key, Asset.native(), "12.3456789"))
    add("payment_credit4", builder().append_payment_op(BOB.public_key, USD, "0.0000001"))
    add("payment_credit12", builder().append_payment_op(BOB.public_key, LONG, "922337203685.4775807"))
    add("payment_to_muxed", builder().append_payment_op(MUXED_BOB, EURT, "50"))
    add("payment_from_muxed_source", builder(muxed_source=MUXED_ALICE).append_payment_op(BOB.public_key, Asset.native(), "1"))
    add("payment_op_source_muxed", builder().append_payment_op(BOB.public_key, Asset.native(), "1", source=MUXED_ALICE))
    add("path_payment_strict_receive", builder().append_path_payment_strict_receive_op(
        BOB.public_key, Asset.native(), "100", USD, "25.5", [EURT, LONG, FIVE]))
    add("path_payment_strict_receive_max_path", builder().append_path_payment_strict_receive_op(
        MUXED_BOB, USD, "100", Asset.native(), "1", [EURT, LONG, FIVE, Asset.native(), Asset("Z", DAVE.public_key)]))
    add("path_payment_strict_send", builder().append_path_payment_strict_send_op(
        BOB.public_key, USD, "10", EURT, "9.9", []))
    add("manage_sell_offer_new", builder().append_manage_sell_offer_op(USD, Asset.native(), "100", Price(3, 7)))
    add("manage_sell_offer_update", builder().append_manage_sell_offer_op(Asset.native(), LONG, "0", "2.5", offer_id=987654321))
    add("manage_buy_offer", builder().append_manage_buy_offer_op(EURT, USD, "33.3333333", Price(2147483647, 1), offer_id=0))
    add("change_trust_default_limit", builder().append_change_trust_op(USD))
    add("change_trust_remove", builder().append_change_trust_op(LONG, limit="0"))
    add("set_options_all", builder().append_set_options_op(
        inflation_dest=CAROL.public_key, clear_flags=1, set_flags=2, master_weight=3, low_threshold=1,
        med_threshold=2, high_threshold=3, home_domain="example.com",
        signer=Signer.ed25519_public_key(BOB.public_key, 5)))
    add("set_options_empty", builder().append_set_options_op())
    add("set_options_hashx_signer", builder().append_set_options_op(
        signer=Signer(SignerKey.sha256_hash(hashlib.sha256(b"preimage").digest()), 1)))
    add("set_options_preauth_signer", builder().append_set_options_op(
        signer=Signer(SignerKey.pre_auth_tx(hashlib.sha256(b"tx").digest()), 0)))
    add("account_merge", builder().append_account_merge_op(BOB.public_key))
    add("account_merge_muxed", builder().append_account_merge_op(MUXED_BOB))
    add("manage_data_set", builder().append_manage_data_op("config.memo_required", b"1"))
    add("manage_data_max", builder().append_manage_data_op("n" * 64, b"\xff" * 64))
    add("manage_data_delete", builder().append_manage_data_op("old-entry", None))
    add("bump_sequence", builder().append_bump_sequence_op(9223372036854775807))
    add("memo_text", builder(memo=TextMemo("Dinner 🍝 at Jane's")).append_payment_op(BOB.public_key, Asset.native(), "50"))
    add("memo_text_max", builder(memo=TextMemo("x" * 28)).append_payment_op(BOB.public_key, Asset.native(), "1"))
    add("memo_id", builder(memo=IdMemo(18446744073709551615)).append_payment_op(BOB.public_key, Asset.native(), "1"))
    add("memo_hash", builder(memo=HashMemo(hashlib.sha256(b"hash").digest())).append_payment_op(BOB.public_key, Asset.native(), "1"))
    add("memo_return", builder(memo=ReturnHashMemo(hashlib.sha256(b"ret").digest())).append_payment_op(BOB.public_key, Asset.native(), "1"))
    add("time_bounds", builder(time_bounds=(1700000000, 1800000000)).append_payment_op(BOB.public_key, Asset.native(), "1"))
    add("time_bounds_open", builder(time_bounds=(0, 0)).append_payment_op(BOB.public_key, Asset.native(), "1"))
    pre = builder(time_bounds=(5, 6))
    pre.set_ledger_bounds(10, 20)
    pre.set_min_sequence_number(4294967296000)
    pre.set_min_sequence_age(3600)
    pre.set_min_sequence_ledger_gap(7)
    pre.add_extra_signer(BOB.public_key)
    pre.add_extra_signer(SignerKey.sha256_hash(hashlib.sha256(b"x").digest()))
    pre.append_payment_op(BOB.public_key, Asset.native(), "1")
    add("preconditions_v2", pre)
    many = builder(base_fee=12345)
    for i in range(100):
        many.append_payment_op(KEYS[i % 6].public_key, [Asset.native(), USD, LONG][i % 3], str(i + 1))
    add("hundred_operations", many)
    mixed = builder(memo=TextMemo("mixed"), time_bounds=(0, 1900000000))
    mixed.append_create_account_op(DAVE.public_key, "2")
    mixed.append_change_trust_op(FIVE, limit="1000")
    mixed.append_payment_op(DAVE.public_key, FIVE, "3", source=CAROL.public_key)
    mixed.append_manage_data_op("k", b"v", source=MUXED_BOB)
    add("mixed_multi_signer", mixed, (ALICE, CAROL, BOB))
    add("v0_payment", builder(v1=False, memo=TextMemo("v0")).append_payment_op(BOB.public_key, USD, "7"))
    add("v0_time_bounds", builder(v1=False, time_bounds=(1, 2)).append_create_account_op(CAROL.public_key, "1"))
    add("unsigned", builder().append_bump_sequence_op(1), ())
    return cases


def envelopes():
    out = []
    for name, b, signers in envelope_cases():
        env = b.build()
        for kp in signers:
            env.sign(kp)
        out.append(describe(name, env))
        if name in ("payment_native", "mixed_multi_signer", "v0_payment"):
            inner = env
            fee_bump = TransactionBuilder.build_fee_bump_transaction(
                FEE.public_key if name != "mixed_multi_signer" else MuxedAccount(FEE.public_key, 42).account_muxed,
                1000, inner, STANDALONE)
            fee_bump.sign(FEE)
            out.append(describe("fee_bump_" + name, fee_bump))
    return out


def describe(name, env):
    xdr_b64 = env.to_xdr()
    is_fee_bump = isinstance(env, FeeBumpTransactionEnvelope)
    entry = {
        "name": name,
        "xdr": xdr_b64,
        "hash_standalone": env.hash_hex(),
        "hash_testnet": hash_on(xdr_b64, TESTNET, is_fee_bump),
        "signature_count": len(env.signatures),
    }
    tx = env.transaction
    if not is_fee_bump:
        entry["fee"] = tx.fee
        entry["sequence"] = str(tx.sequence)
        entry["operation_count"] = len(tx.operations)
        entry["source"] = tx.source.universal_account_id
    else:
        entry["fee"] = tx.fee
        entry["inner_hash_standalone"] = tx.inner_transaction_envelope.hash_hex()
    return entry


def hash_on(xdr_b64, passphrase, is_fee_bump):
    if is_fee_bump:
        return FeeBumpTransactionEnvelope.from_xdr(xdr_b64, passphrase).hash_hex()
    return TransactionEnvelope.from_xdr(xdr_b64, passphrase).hash_hex()


def unsupported_envelopes():
    """Well-formed envelopes with operations Tender refuses, and the name it must give."""
    out = []

    def add(name, b):
        env = b.build()
        env.sign(ALICE)
        out.append({"operation": name, "xdr": env.to_xdr()})

    add("create_claimable_balance", builder().append_create_claimable_balance_op(
        Asset.native(), "1", [Claimant(BOB.public_key)]))
    add("begin_sponsoring_future_reserves", builder().append_begin_sponsoring_future_reserves_op(BOB.public_key))
    add("end_sponsoring_future_reserves", builder().append_end_sponsoring_future_reserves_op())
    pool = LiquidityPoolAsset(Asset.native(), USD, LIQUIDITY_POOL_FEE_V18)
    add("liquidity_pool_deposit", builder().append_liquidity_pool_deposit_op(
        pool.liquidity_pool_id, "1", "1", "0.5", "2"))
    add("liquidity_pool_shares", builder().append_change_trust_op(pool))
    add("allow_trust", builder().append_allow_trust_op(BOB.public_key, "USD", TrustLineEntryFlag.AUTHORIZED_FLAG))
    add("create_passive_sell_offer", builder().append_create_passive_sell_offer_op(USD, Asset.native(), "1", "1"))
    add("set_trust_line_flags", builder(source=ISSUER).append_set_trust_line_flags_op(BOB.public_key, USD, set_flags=None, clear_flags=None))
    add("inflation", builder().append_inflation_op())
    add("restore_footprint", builder().append_restore_footprint_op())
    return out


def op_result(op_type, inner_field, result):
    tr = x.OperationResultTr(op_type, **{inner_field: result})
    return x.OperationResult(x.OperationResultCode.opINNER, tr=tr)


def results():
    """Result XDRs: success and each failure code of every supported operation."""
    out = []
    usd = USD.to_xdr_object()
    native = Asset.native().to_xdr_object()
    alice_id = x.AccountID(x.PublicKey(x.PublicKeyType.PUBLIC_KEY_TYPE_ED25519, x.Uint256(ALICE.raw_public_key())))
    bob_id = x.AccountID(x.PublicKey(x.PublicKeyType.PUBLIC_KEY_TYPE_ED25519, x.Uint256(BOB.raw_public_key())))

    def claim():
        return x.ClaimAtom(x.ClaimAtomType.CLAIM_ATOM_TYPE_ORDER_BOOK, order_book=x.ClaimOfferAtom(
            bob_id, x.Int64(77), usd, x.Int64(1000), native, x.Int64(2500)))

    def claim_v0():
        return x.ClaimAtom(x.ClaimAtomType.CLAIM_ATOM_TYPE_V0, v0=x.ClaimOfferAtomV0(
            x.Uint256(BOB.raw_public_key()), x.Int64(78), native, x.Int64(5), usd, x.Int64(6)))

    def offer_entry():
        return x.OfferEntry(alice_id, x.Int64(99), usd, native, x.Int64(123456), x.Price(x.Int32(3), x.Int32(7)),
                            x.Uint32(0), x.OfferEntryExt(0))

    def add(name, tx_code, ops, expected_ops, fee=100):
        if tx_code in (x.TransactionResultCode.txSUCCESS, x.TransactionResultCode.txFAILED):
            result = x.TransactionResultResult(tx_code, results=ops)
        else:
            result = x.TransactionResultResult(tx_code)
        tr = x.TransactionResult(x.Int64(fee), result, x.TransactionResultExt(0))
        out.append({"name": name, "xdr": tr.to_xdr(), "fee_charged": fee,
                    "transaction": TX_NAMES[tx_code], "operations": expected_ops})

    T = x.TransactionResultCode
    OT = x.OperationType
    specs = [
        (OT.CREATE_ACCOUNT, "create_account_result", x.CreateAccountResult, x.CreateAccountResultCode),
        (OT.PAYMENT, "payment_result", x.PaymentResult, x.PaymentResultCode),
        (OT.SET_OPTIONS, "set_options_result", x.SetOptionsResult, x.SetOptionsResultCode),
        (OT.CHANGE_TRUST, "change_trust_result", x.ChangeTrustResult, x.ChangeTrustResultCode),
        (OT.MANAGE_DATA, "manage_data_result", x.ManageDataResult, x.ManageDataResultCode),
        (OT.BUMP_SEQUENCE, "bump_seq_result", x.BumpSequenceResult, x.BumpSequenceResultCode),
    ]
    for op_type, field, cls, codes in specs:
        for code in codes:
            op = op_result(op_type, field, cls(code))
            tx_code = T.txSUCCESS if code.value == 0 else T.txFAILED
            add(f"{op_type.name.lower()}:{code.name}", tx_code, [op], [op_name(op_type, code)])

    for code in x.AccountMergeResultCode:
        kwargs = {"source_account_balance": x.Int64(987654321)} if code.value == 0 else {}
        op = op_result(OT.ACCOUNT_MERGE, "account_merge_result", x.AccountMergeResult(code, **kwargs))
        add(f"account_merge:{code.name}", T.txSUCCESS if code.value == 0 else T.txFAILED, [op], [op_name(OT.ACCOUNT_MERGE, code)])

    for op_type, field, cls, codes, success_cls in [
        (OT.PATH_PAYMENT_STRICT_RECEIVE, "path_payment_strict_receive_result", x.PathPaymentStrictReceiveResult,
         x.PathPaymentStrictReceiveResultCode, x.PathPaymentStrictReceiveResultSuccess),
        (OT.PATH_PAYMENT_STRICT_SEND, "path_payment_strict_send_result", x.PathPaymentStrictSendResult,
         x.PathPaymentStrictSendResultCode, x.PathPaymentStrictSendResultSuccess),
    ]:
        for code in codes:
            if code.value == 0:
                r = cls(code, success=success_cls([claim(), claim_v0()], x.SimplePaymentResult(bob_id, native, x.Int64(2500))))
            elif code.value == -9:
                r = cls(code, no_issuer=usd)
            else:
                r = cls(code)
            op = op_result(op_type, field, r)
            add(f"{op_type.name.lower()}:{code.name}", T.txSUCCESS if code.value == 0 else T.txFAILED, [op], [op_name(op_type, code)])

    for op_type, field, cls, codes in [
        (OT.MANAGE_SELL_OFFER, "manage_sell_offer_result", x.ManageSellOfferResult, x.ManageSellOfferResultCode),
        (OT.MANAGE_BUY_OFFER, "manage_buy_offer_result", x.ManageBuyOfferResult, x.ManageBuyOfferResultCode),
    ]:
        for code in codes:
            if code.value == 0:
                for effect in x.ManageOfferEffect:
                    offer = x.ManageOfferSuccessResultOffer(effect, offer=offer_entry() if effect.value != 2 else None)
                    r = cls(code, success=x.ManageOfferSuccessResult([claim()] if effect.value != 0 else [], offer))
                    op = op_result(op_type, field, r)
                    add(f"{op_type.name.lower()}:{code.name}:{effect.name}", T.txSUCCESS, [op], [op_name(op_type, code)])
            else:
                op = op_result(op_type, field, cls(code))
                add(f"{op_type.name.lower()}:{code.name}", T.txFAILED, [op], [op_name(op_type, code)])

    for code in x.OperationResultCode:
        if code.value == 0:
            continue
        op = x.OperationResult(code)
        add(f"operation:{code.name}", T.txFAILED, [op], [OUTER_NAMES[code]])

    # A failed transaction with several operations, as Horizon reports tx_failed.
    add("multi:one_failed", T.txFAILED, [
        op_result(OT.PAYMENT, "payment_result", x.PaymentResult(x.PaymentResultCode.PAYMENT_SUCCESS)),
        op_result(OT.PAYMENT, "payment_result", x.PaymentResult(x.PaymentResultCode.PAYMENT_UNDERFUNDED)),
    ], ["op_success", "op_underfunded"], fee=200)
    add("empty_success", T.txSUCCESS, [], [], fee=0)
    for code in T:
        if code.value in (0, -1, 1, -13):
            continue
        add(f"transaction:{code.name}", code, None, None)

    # Fee bump results wrap the inner result.
    for outer, inner_code in ((T.txFEE_BUMP_INNER_SUCCESS, T.txSUCCESS), (T.txFEE_BUMP_INNER_FAILED, T.txFAILED)):
        inner_op = op_result(OT.PAYMENT, "payment_result", x.PaymentResult(
            x.PaymentResultCode.PAYMENT_SUCCESS if inner_code == T.txSUCCESS else x.PaymentResultCode.PAYMENT_NO_TRUST))
        inner = x.InnerTransactionResult(x.Int64(0), x.InnerTransactionResultResult(inner_code, results=[inner_op]),
                                         x.InnerTransactionResultExt(0))
        pair = x.InnerTransactionResultPair(x.Hash(hashlib.sha256(b"inner").digest()), inner)
        tr = x.TransactionResult(x.Int64(200), x.TransactionResultResult(outer, inner_result_pair=pair), x.TransactionResultExt(0))
        out.append({"name": f"fee_bump:{outer.name}", "xdr": tr.to_xdr(), "fee_charged": 200,
                    "transaction": TX_NAMES[outer], "operations": [inner_op_name(inner_code)]})
    return out


def inner_op_name(inner_code):
    return "op_success" if inner_code == x.TransactionResultCode.txSUCCESS else "op_no_trust"


TX_NAMES = {
    x.TransactionResultCode.txFEE_BUMP_INNER_SUCCESS: "tx_fee_bump_inner_success",
    x.TransactionResultCode.txSUCCESS: "tx_success",
    x.TransactionResultCode.txFAILED: "tx_failed",
    x.TransactionResultCode.txTOO_EARLY: "tx_too_early",
    x.TransactionResultCode.txTOO_LATE: "tx_too_late",
    x.TransactionResultCode.txMISSING_OPERATION: "tx_missing_operation",
    x.TransactionResultCode.txBAD_SEQ: "tx_bad_seq",
    x.TransactionResultCode.txBAD_AUTH: "tx_bad_auth",
    x.TransactionResultCode.txINSUFFICIENT_BALANCE: "tx_insufficient_balance",
    x.TransactionResultCode.txNO_ACCOUNT: "tx_no_source_account",
    x.TransactionResultCode.txINSUFFICIENT_FEE: "tx_insufficient_fee",
    x.TransactionResultCode.txBAD_AUTH_EXTRA: "tx_bad_auth_extra",
    x.TransactionResultCode.txINTERNAL_ERROR: "tx_internal_error",
    x.TransactionResultCode.txNOT_SUPPORTED: "tx_not_supported",
    x.TransactionResultCode.txFEE_BUMP_INNER_FAILED: "tx_fee_bump_inner_failed",
    x.TransactionResultCode.txBAD_SPONSORSHIP: "tx_bad_sponsorship",
    x.TransactionResultCode.txBAD_MIN_SEQ_AGE_OR_GAP: "tx_bad_minseq_age_or_gap",
    x.TransactionResultCode.txMALFORMED: "tx_malformed",
    x.TransactionResultCode.txSOROBAN_INVALID: "tx_soroban_invalid",
    x.TransactionResultCode.txFROZEN_KEY_ACCESSED: "tx_frozen_key_accessed",
}

OUTER_NAMES = {
    x.OperationResultCode.opBAD_AUTH: "op_bad_auth",
    x.OperationResultCode.opNO_ACCOUNT: "op_no_source_account",
    x.OperationResultCode.opNOT_SUPPORTED: "op_not_supported",
    x.OperationResultCode.opTOO_MANY_SUBENTRIES: "op_too_many_subentries",
    x.OperationResultCode.opEXCEEDED_WORK_LIMIT: "op_exceeded_work_limit",
    x.OperationResultCode.opTOO_MANY_SPONSORING: "op_too_many_sponsoring",
}

# Horizon's strings for operation codes (stellar-horizon internal/codes), by the code's suffix.
HORIZON_OP_NAMES = {
    "SUCCESS": "op_success", "MALFORMED": "op_malformed", "UNDERFUNDED": "op_underfunded",
    "LOW_RESERVE": "op_low_reserve", "ALREADY_EXIST": "op_already_exists", "SRC_NO_TRUST": "op_src_no_trust",
    "SRC_NOT_AUTHORIZED": "op_src_not_authorized", "NO_DESTINATION": "op_no_destination", "NO_TRUST": "op_no_trust",
    "NOT_AUTHORIZED": "op_not_authorized", "LINE_FULL": "op_line_full", "NO_ISSUER": "op_no_issuer",
    "TOO_FEW_OFFERS": "op_too_few_offers", "OFFER_CROSS_SELF": "op_cross_self", "OVER_SENDMAX": "op_over_source_max",
    "UNDER_DESTMIN": "op_under_dest_min", "SELL_NO_TRUST": "op_sell_no_trust", "BUY_NO_TRUST": "op_buy_no_trust",
    "SELL_NOT_AUTHORIZED": "sell_not_authorized", "BUY_NOT_AUTHORIZED": "buy_not_authorized",
    "CROSS_SELF": "op_cross_self", "SELL_NO_ISSUER": "op_sell_no_issuer", "BUY_NO_ISSUER": "buy_no_issuer",
    "NOT_FOUND": "op_offer_not_found", "TOO_MANY_SIGNERS": "op_too_many_signers", "BAD_FLAGS": "op_bad_flags",
    "INVALID_INFLATION": "op_invalid_inflation", "CANT_CHANGE": "op_cant_change", "UNKNOWN_FLAG": "op_unknown_flag",
    "THRESHOLD_OUT_OF_RANGE": "op_threshold_out_of_range", "BAD_SIGNER": "op_bad_signer",
    "INVALID_HOME_DOMAIN": "op_invalid_home_domain", "AUTH_REVOCABLE_REQUIRED": "op_auth_revocable_required",
    "INVALID_LIMIT": "op_invalid_limit", "SELF_NOT_ALLOWED": "op_self_not_allowed",
    "TRUST_LINE_MISSING": "op_trust_line_missing", "CANNOT_DELETE": "op_cannot_delete",
    "NOT_AUTH_MAINTAIN_LIABILITIES": "op_not_aut_maintain_liabilities", "NO_ACCOUNT": "op_no_account",
    "IMMUTABLE_SET": "op_immutable_set", "HAS_SUB_ENTRIES": "op_has_sub_entries",
    "SEQNUM_TOO_FAR": "op_seq_num_too_far", "DEST_FULL": "op_dest_full", "IS_SPONSOR": "op_is_sponsor",
    "NOT_SUPPORTED_YET": "op_not_supported_yet", "NAME_NOT_FOUND": "op_data_name_not_found",
    "INVALID_NAME": "op_data_invalid_name", "BAD_SEQ": "op_bad_seq",
}


def op_name(op_type, code):
    prefix = op_type.name + "_"
    if op_type == x.OperationType.BUMP_SEQUENCE:
        prefix = "BUMP_SEQUENCE_"
    suffix = code.name[len(prefix):]
    return HORIZON_OP_NAMES[suffix]


def amounts():
    texts = ["0", "1", "10.5", "0.0000001", "922337203685.4775807", "100", "1.1", "12.3456789", "0000.0000010",
             "00012", "99999999999.9999999", "5.", ".5",
             "-1", "+1", "1.12345678", "1e5", "abc", "922337203685.4775808", "1,5", " 1", "", "."]
    out = []
    for t in texts:
        try:
            stroops = Operation.to_xdr_amount(t)
            out.append({"text": t, "stroops": str(stroops), "formatted": f"{stroops // 10**7}.{stroops % 10**7:07d}"})
        except Exception as e:  # noqa: BLE001 - the SDK's refusal is what we record
            out.append({"text": t, "error": type(e).__name__})
    return out


def main():
    warnings.simplefilter("ignore")
    data = {
        "generator": "Scripts/generate_vectors.py with stellar-sdk 16.1.1",
        "passphrases": {"standalone": STANDALONE, "testnet": TESTNET},
        "network_ids": {
            "standalone": Network(STANDALONE).network_id().hex(),
            "testnet": Network(TESTNET).network_id().hex(),
        },
        "keypairs": keypairs(),
        "envelopes": envelopes(),
        "unsupported": unsupported_envelopes(),
        "results": results(),
        "amounts": amounts(),
    }
    json.dump(data, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
