/// A result code of one operation type: its XDR value and the string Horizon prints for it.
public protocol OperationResultCodeProtocol: RawRepresentable, CaseIterable, Hashable, Sendable where RawValue == Int32 {
    /// Horizon's string for the code (`op_success`, `op_underfunded`...).
    var name: String { get }
}

extension OperationResultCodeProtocol {
    static func decode(_ raw: Int32, _ what: String) throws(XDRError) -> Self {
        guard let code = Self(rawValue: raw) else { throw .unknown(what, Int64(raw)) }
        return code
    }
}

/// Transaction result codes (`TransactionResultCode` in XDR).
public enum TransactionResultCode: Int32, CaseIterable, Hashable, Sendable, CustomStringConvertible {
    case feeBumpInnerSuccess = 1
    case success = 0
    case failed = -1
    case tooEarly = -2
    case tooLate = -3
    case missingOperation = -4
    case badSequence = -5
    case badAuth = -6
    case insufficientBalance = -7
    case noAccount = -8
    case insufficientFee = -9
    case badAuthExtra = -10
    case internalError = -11
    case notSupported = -12
    case feeBumpInnerFailed = -13
    case badSponsorship = -14
    case badMinSequenceAgeOrGap = -15
    case malformed = -16
    case sorobanInvalid = -17
    case frozenKeyAccessed = -18

    /// Horizon's string for the code (`tx_success`, `tx_bad_seq`...).
    public var name: String {
        switch self {
        case .feeBumpInnerSuccess: "tx_fee_bump_inner_success"
        case .success: "tx_success"
        case .failed: "tx_failed"
        case .tooEarly: "tx_too_early"
        case .tooLate: "tx_too_late"
        case .missingOperation: "tx_missing_operation"
        case .badSequence: "tx_bad_seq"
        case .badAuth: "tx_bad_auth"
        case .insufficientBalance: "tx_insufficient_balance"
        case .noAccount: "tx_no_source_account"
        case .insufficientFee: "tx_insufficient_fee"
        case .badAuthExtra: "tx_bad_auth_extra"
        case .internalError: "tx_internal_error"
        case .notSupported: "tx_not_supported"
        case .feeBumpInnerFailed: "tx_fee_bump_inner_failed"
        case .badSponsorship: "tx_bad_sponsorship"
        case .badMinSequenceAgeOrGap: "tx_bad_minseq_age_or_gap"
        case .malformed: "tx_malformed"
        case .sorobanInvalid: "tx_soroban_invalid"
        case .frozenKeyAccessed: "tx_frozen_key_accessed"
        }
    }

    public var description: String { name }
}

/// Operation-level codes that carry no inner result (`OperationResultCode` in XDR, other than opINNER).
public enum OperationOuterCode: Int32, CaseIterable, Hashable, Sendable {
    case badAuth = -1
    case noAccount = -2
    case notSupported = -3
    case tooManySubentries = -4
    case exceededWorkLimit = -5
    case tooManySponsoring = -6

    public var name: String {
        switch self {
        case .badAuth: "op_bad_auth"
        case .noAccount: "op_no_source_account"
        case .notSupported: "op_not_supported"
        case .tooManySubentries: "op_too_many_subentries"
        case .exceededWorkLimit: "op_exceeded_work_limit"
        case .tooManySponsoring: "op_too_many_sponsoring"
        }
    }
}

public enum CreateAccountResultCode: Int32, OperationResultCodeProtocol {
    case success = 0, malformed = -1, underfunded = -2, lowReserve = -3, alreadyExists = -4

    public var name: String {
        switch self {
        case .success: "op_success"
        case .malformed: "op_malformed"
        case .underfunded: "op_underfunded"
        case .lowReserve: "op_low_reserve"
        case .alreadyExists: "op_already_exists"
        }
    }
}

public enum PaymentResultCode: Int32, OperationResultCodeProtocol {
    case success = 0, malformed = -1, underfunded = -2, sourceNoTrust = -3, sourceNotAuthorized = -4
    case noDestination = -5, noTrust = -6, notAuthorized = -7, lineFull = -8, noIssuer = -9

    public var name: String {
        switch self {
        case .success: "op_success"
        case .malformed: "op_malformed"
        case .underfunded: "op_underfunded"
        case .sourceNoTrust: "op_src_no_trust"
        case .sourceNotAuthorized: "op_src_not_authorized"
        case .noDestination: "op_no_destination"
        case .noTrust: "op_no_trust"
        case .notAuthorized: "op_not_authorized"
        case .lineFull: "op_line_full"
        case .noIssuer: "op_no_issuer"
        }
    }
}

/// Codes of both path payment operations; -12 is over-send-max for strict receive and
/// under-destination-minimum for strict send.
public protocol PathPaymentResultCodeProtocol: OperationResultCodeProtocol {
    static var success: Self { get }
    static var noIssuer: Self { get }
}

public enum PathPaymentStrictReceiveResultCode: Int32, PathPaymentResultCodeProtocol {
    case success = 0, malformed = -1, underfunded = -2, sourceNoTrust = -3, sourceNotAuthorized = -4
    case noDestination = -5, noTrust = -6, notAuthorized = -7, lineFull = -8, noIssuer = -9
    case tooFewOffers = -10, offerCrossSelf = -11, overSendMax = -12

    public var name: String {
        switch self {
        case .overSendMax: "op_over_source_max"
        default: pathPaymentCommonName(rawValue)
        }
    }
}

public enum PathPaymentStrictSendResultCode: Int32, PathPaymentResultCodeProtocol {
    case success = 0, malformed = -1, underfunded = -2, sourceNoTrust = -3, sourceNotAuthorized = -4
    case noDestination = -5, noTrust = -6, notAuthorized = -7, lineFull = -8, noIssuer = -9
    case tooFewOffers = -10, offerCrossSelf = -11, underDestMin = -12

    public var name: String {
        switch self {
        case .underDestMin: "op_under_dest_min"
        default: pathPaymentCommonName(rawValue)
        }
    }
}

private func pathPaymentCommonName(_ raw: Int32) -> String {
    switch raw {
    case -10: "op_too_few_offers"
    case -11: "op_cross_self"
    default: PaymentResultCode(rawValue: raw)?.name ?? "op_unknown"
    }
}

/// Codes of both offer operations.
public protocol ManageOfferResultCodeProtocol: OperationResultCodeProtocol {
    static var success: Self { get }
}

public enum ManageSellOfferResultCode: Int32, ManageOfferResultCodeProtocol {
    case success = 0, malformed = -1, sellNoTrust = -2, buyNoTrust = -3, sellNotAuthorized = -4
    case buyNotAuthorized = -5, lineFull = -6, underfunded = -7, crossSelf = -8, sellNoIssuer = -9
    case buyNoIssuer = -10, notFound = -11, lowReserve = -12

    public var name: String { manageOfferName(rawValue) }
}

public enum ManageBuyOfferResultCode: Int32, ManageOfferResultCodeProtocol {
    case success = 0, malformed = -1, sellNoTrust = -2, buyNoTrust = -3, sellNotAuthorized = -4
    case buyNotAuthorized = -5, lineFull = -6, underfunded = -7, crossSelf = -8, sellNoIssuer = -9
    case buyNoIssuer = -10, notFound = -11, lowReserve = -12

    public var name: String { manageOfferName(rawValue) }
}

/// Horizon's strings, including its own spellings without the `op_` prefix.
private func manageOfferName(_ raw: Int32) -> String {
    switch raw {
    case 0: "op_success"
    case -1: "op_malformed"
    case -2: "op_sell_no_trust"
    case -3: "op_buy_no_trust"
    case -4: "sell_not_authorized"
    case -5: "buy_not_authorized"
    case -6: "op_line_full"
    case -7: "op_underfunded"
    case -8: "op_cross_self"
    case -9: "op_sell_no_issuer"
    case -10: "buy_no_issuer"
    case -11: "op_offer_not_found"
    default: "op_low_reserve"
    }
}

public enum SetOptionsResultCode: Int32, OperationResultCodeProtocol {
    case success = 0, lowReserve = -1, tooManySigners = -2, badFlags = -3, invalidInflation = -4
    case cantChange = -5, unknownFlag = -6, thresholdOutOfRange = -7, badSigner = -8
    case invalidHomeDomain = -9, authRevocableRequired = -10

    public var name: String {
        switch self {
        case .success: "op_success"
        case .lowReserve: "op_low_reserve"
        case .tooManySigners: "op_too_many_signers"
        case .badFlags: "op_bad_flags"
        case .invalidInflation: "op_invalid_inflation"
        case .cantChange: "op_cant_change"
        case .unknownFlag: "op_unknown_flag"
        case .thresholdOutOfRange: "op_threshold_out_of_range"
        case .badSigner: "op_bad_signer"
        case .invalidHomeDomain: "op_invalid_home_domain"
        case .authRevocableRequired: "op_auth_revocable_required"
        }
    }
}

public enum ChangeTrustResultCode: Int32, OperationResultCodeProtocol {
    case success = 0, malformed = -1, noIssuer = -2, invalidLimit = -3, lowReserve = -4
    case selfNotAllowed = -5, trustLineMissing = -6, cannotDelete = -7, notAuthMaintainLiabilities = -8

    public var name: String {
        switch self {
        case .success: "op_success"
        case .malformed: "op_malformed"
        case .noIssuer: "op_no_issuer"
        case .invalidLimit: "op_invalid_limit"
        case .lowReserve: "op_low_reserve"
        case .selfNotAllowed: "op_self_not_allowed"
        case .trustLineMissing: "op_trust_line_missing"
        case .cannotDelete: "op_cannot_delete"
        case .notAuthMaintainLiabilities: "op_not_aut_maintain_liabilities"
        }
    }
}

public enum AccountMergeResultCode: Int32, OperationResultCodeProtocol {
    case success = 0, malformed = -1, noAccount = -2, immutableSet = -3, hasSubEntries = -4
    case sequenceNumberTooFar = -5, destinationFull = -6, isSponsor = -7

    public var name: String {
        switch self {
        case .success: "op_success"
        case .malformed: "op_malformed"
        case .noAccount: "op_no_account"
        case .immutableSet: "op_immutable_set"
        case .hasSubEntries: "op_has_sub_entries"
        case .sequenceNumberTooFar: "op_seq_num_too_far"
        case .destinationFull: "op_dest_full"
        case .isSponsor: "op_is_sponsor"
        }
    }
}

public enum ManageDataResultCode: Int32, OperationResultCodeProtocol {
    case success = 0, notSupportedYet = -1, nameNotFound = -2, lowReserve = -3, invalidName = -4

    public var name: String {
        switch self {
        case .success: "op_success"
        case .notSupportedYet: "op_not_supported_yet"
        case .nameNotFound: "op_data_name_not_found"
        case .lowReserve: "op_low_reserve"
        case .invalidName: "op_data_invalid_name"
        }
    }
}

public enum BumpSequenceResultCode: Int32, OperationResultCodeProtocol {
    case success = 0, badSequence = -1

    public var name: String {
        switch self {
        case .success: "op_success"
        case .badSequence: "op_bad_seq"
        }
    }
}

public enum AllowTrustResultCode: Int32, OperationResultCodeProtocol {
    case success = 0, malformed = -1, noTrustLine = -2, trustNotRequired = -3, cantRevoke = -4, selfNotAllowed = -5, lowReserve = -6

    public var name: String {
        switch self {
        case .success: "op_success"
        case .malformed: "op_malformed"
        case .noTrustLine: "op_no_trust_line"
        case .trustNotRequired: "op_not_required"
        case .cantRevoke: "op_cant_revoke"
        case .selfNotAllowed: "op_self_not_allowed"
        case .lowReserve: "op_low_reserve"
        }
    }
}

public enum SetTrustLineFlagsResultCode: Int32, OperationResultCodeProtocol {
    case success = 0, malformed = -1, noTrustLine = -2, cantRevoke = -3, invalidState = -4, lowReserve = -5

    public var name: String {
        switch self {
        case .success: "op_success"
        case .malformed: "op_malformed"
        case .noTrustLine: "op_no_trust_line"
        case .cantRevoke: "op_cant_revoke"
        case .invalidState: "op_invalid_state"
        case .lowReserve: "op_low_reserve"
        }
    }
}

public enum ClawbackResultCode: Int32, OperationResultCodeProtocol {
    case success = 0, malformed = -1, notClawbackEnabled = -2, noTrust = -3, underfunded = -4

    public var name: String {
        switch self {
        case .success: "op_success"
        case .malformed: "op_malformed"
        case .notClawbackEnabled: "op_not_clawback_enabled"
        case .noTrust: "op_no_trust"
        case .underfunded: "op_underfunded"
        }
    }
}

public enum CreateClaimableBalanceResultCode: Int32, OperationResultCodeProtocol {
    case success = 0, malformed = -1, lowReserve = -2, noTrust = -3, notAuthorized = -4, underfunded = -5

    public var name: String {
        switch self {
        case .success: "op_success"
        case .malformed: "op_malformed"
        case .lowReserve: "op_low_reserve"
        case .noTrust: "op_no_trust"
        case .notAuthorized: "op_not_authorized"
        case .underfunded: "op_underfunded"
        }
    }
}

public enum ClaimClaimableBalanceResultCode: Int32, OperationResultCodeProtocol {
    case success = 0, doesNotExist = -1, cannotClaim = -2, lineFull = -3, noTrust = -4, notAuthorized = -5

    public var name: String {
        switch self {
        case .success: "op_success"
        case .doesNotExist: "op_does_not_exist"
        case .cannotClaim: "op_cannot_claim"
        case .lineFull: "op_line_full"
        case .noTrust: "op_no_trust"
        case .notAuthorized: "op_not_authorized"
        }
    }
}

public enum ClawbackClaimableBalanceResultCode: Int32, OperationResultCodeProtocol {
    case success = 0, doesNotExist = -1, notIssuer = -2, notClawbackEnabled = -3

    public var name: String {
        switch self {
        case .success: "op_success"
        case .doesNotExist: "op_does_not_exist"
        case .notIssuer: "op_not_issuer"
        case .notClawbackEnabled: "op_not_clawback_enabled"
        }
    }
}

public enum BeginSponsoringFutureReservesResultCode: Int32, OperationResultCodeProtocol {
    case success = 0, malformed = -1, alreadySponsored = -2, recursive = -3

    public var name: String {
        switch self {
        case .success: "op_success"
        case .malformed: "op_malformed"
        case .alreadySponsored: "op_already_sponsored"
        case .recursive: "op_recursive"
        }
    }
}

public enum EndSponsoringFutureReservesResultCode: Int32, OperationResultCodeProtocol {
    case success = 0, notSponsored = -1

    public var name: String {
        switch self {
        case .success: "op_success"
        case .notSponsored: "op_not_sponsored"
        }
    }
}

public enum RevokeSponsorshipResultCode: Int32, OperationResultCodeProtocol {
    case success = 0, doesNotExist = -1, notSponsor = -2, lowReserve = -3, onlyTransferable = -4, malformed = -5

    public var name: String {
        switch self {
        case .success: "op_success"
        case .doesNotExist: "op_does_not_exist"
        case .notSponsor: "op_not_sponsor"
        case .lowReserve: "op_low_reserve"
        case .onlyTransferable: "op_only_transferable"
        case .malformed: "op_malformed"
        }
    }
}
