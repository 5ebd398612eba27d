/// Whether the engine pays for real or against the test acquirer.
public enum EngineMode: Sendable, Equatable {
    case test, live
}

/// Why the engine stopped, as Paylike's engine reports it, and Paylike's own codes from the server.
public enum EngineError: Error, Equatable, Sendable {
    /// A call made in a state that does not allow it (data added after the payment started...).
    case invalidState(action: String, state: String)
    /// In live mode the number must pass the Luhn check before it is tokenized.
    case invalidCardNumber
    /// The payment started without a card.
    case cardMissing
    /// Test mode needs the `test` object; live mode must not have one.
    case testDataMissing
    case testDataInLiveMode
    /// The hints held before a call are not the count Paylike's flow has at that step.
    case wrongNumberOfHints(actual: Int, expected: Int)
    /// The server answered something the flow cannot be in (a frame after the last one).
    case unexpectedAnswer(String)
    /// The server refused the payment with Paylike's code (`PAYMENT_CARD_EXPIRED`...).
    case payment(code: String, message: String)
    /// The request did not reach the server or its answer could not be read.
    case transport(String)
}

/// Paylike's engine states.
public enum EngineState: Equatable, Sendable {
    case waitingForInput
    /// The first frame (3-D Secure method) is being shown.
    case webViewChallengeStarted
    /// The second frame (the challenge the user answers) is being shown.
    case webViewChallengeUserInputRequired
    case success
    case error(EngineError)

    var name: String {
        switch self {
        case .waitingForInput: "waitingForInput"
        case .webViewChallengeStarted: "webViewChallengeStarted"
        case .webViewChallengeUserInputRequired: "webViewChallengeUserInputRequired"
        case .success: "success"
        case .error: "error"
        }
    }

    /// The hints the engine must hold before it calls `/payments` in this state: 0 at the start,
    /// 6 after the first frame, 8 after the second (Paylike's engine checks the same).
    var expectedHints: Int? {
        switch self {
        case .waitingForInput: 0
        case .webViewChallengeStarted: 6
        case .webViewChallengeUserInputRequired: 8
        case .success, .error: nil
        }
    }
}

/// The card as the vault answered it: tokens for the number and the code, and the expiry.
public struct CardTokens: Equatable, Sendable {
    public var number: String
    public var code: String
    public var expiryMonth: Int
    public var expiryYear: Int

    public init(number: String, code: String, expiryMonth: Int, expiryYear: Int) {
        self.number = number
        self.code = code
        self.expiryMonth = expiryMonth
        self.expiryYear = expiryYear
    }
}

/// What one call to `/payments` came back with, once the client has followed its challenges.
public enum PaymentCallAnswer: Equatable, Sendable {
    /// A frame for the web view, with the hints gathered so far.
    case frame(html: String, hints: [String])
    case authorized(id: String, hints: [String])
    case transaction(id: String, hints: [String])
}

/// What the engine asks its caller to do next.
public enum EngineAction: Equatable, Sendable {
    /// Call `/payments` with these hints.
    case pay(hints: [String])
    /// Show this frame and hand back the hints its page posts.
    case showFrame(html: String)
    /// Nothing: the payment ended (success or error).
    case done
}

/// Paylike's engine as a pure state machine: the data a payment needs (added only while
/// waiting), the hints loop with the counts Paylike's engine checks, the frames, and the end in
/// success or error. No I/O: the caller tokenizes, calls the server and shows the frames.
/// Any misuse moves it to `.error` with the reason, as Paylike's engine does; `reset()` returns
/// to waiting with nothing held.
public struct PaymentEngineStateMachine: Sendable {
    public let mode: EngineMode
    public private(set) var state: EngineState = .waitingForInput
    public private(set) var card: CardTokens?
    public private(set) var amount: PaymentAmount?
    public private(set) var hasTestData = false
    public private(set) var text: String?
    public private(set) var custom: CustomData?
    public private(set) var hints: [String] = []
    public private(set) var authorizationId: String?
    public private(set) var transactionId: String?
    /// The frame being shown.
    public private(set) var html: String?
    /// Whether a call to `/payments` is out (no data may be added, no frame hints taken).
    public private(set) var calling = false

    public init(mode: EngineMode) {
        self.mode = mode
    }

    private mutating func fail(_ error: EngineError) -> EngineError {
        state = .error(error)
        calling = false
        return error
    }

    /// Fails unless data may be added now: waiting, no call out.
    private mutating func requireWaiting(_ action: String) throws(EngineError) {
        guard state == .waitingForInput, !calling else { throw fail(.invalidState(action: action, state: calling ? "calling" : state.name)) }
    }

    /// The tokenized card. In live mode the number must pass the Luhn check (the caller checks
    /// before tokenizing and says so here).
    public mutating func addCard(_ tokens: CardTokens, numberPassesLuhn: Bool) throws(EngineError) {
        try admitCard(numberPassesLuhn: numberPassesLuhn)
        card = tokens
    }

    /// Whether a card may be added now, checked before its number is tokenized.
    public mutating func admitCard(numberPassesLuhn: Bool) throws(EngineError) {
        try requireWaiting("addCard")
        if mode == .live, !numberPassesLuhn { throw fail(.invalidCardNumber) }
    }

    /// The amount and, in test mode only, whether a `test` object goes with the payment.
    public mutating func addDescription(amount: PaymentAmount?, hasTestData: Bool) throws(EngineError) {
        try requireWaiting("addDescription")
        if mode == .live, hasTestData { throw fail(.testDataInLiveMode) }
        self.amount = amount
        self.hasTestData = hasTestData
    }

    /// The text shown on the merchant's dashboard.
    public mutating func addText(_ text: String?) throws(EngineError) {
        try requireWaiting("addText")
        self.text = text
    }

    /// Custom data, given back with the transaction.
    public mutating func addCustom(_ custom: CustomData?) throws(EngineError) {
        try requireWaiting("addCustom")
        self.custom = custom
    }

    /// Starts the payment: the first call to `/payments`, with no hints.
    public mutating func startPayment() throws(EngineError) -> EngineAction {
        try requireWaiting("startPayment")
        guard card != nil else { throw fail(.cardMissing) }
        if mode == .test, !hasTestData { throw fail(.testDataMissing) }
        return try call()
    }

    private mutating func call() throws(EngineError) -> EngineAction {
        if let expected = state.expectedHints, hints.count != expected {
            throw fail(.wrongNumberOfHints(actual: hints.count, expected: expected))
        }
        calling = true
        return .pay(hints: hints)
    }

    /// The answer to the call that is out.
    public mutating func answered(_ answer: PaymentCallAnswer) throws(EngineError) -> EngineAction {
        guard calling else { throw fail(.invalidState(action: "answered", state: state.name)) }
        calling = false
        switch answer {
        case .frame(let html, let hints):
            self.hints = hints
            switch state {
            case .waitingForInput: state = .webViewChallengeStarted
            case .webViewChallengeStarted: state = .webViewChallengeUserInputRequired
            default: throw fail(.unexpectedAnswer("a frame after the challenge"))
            }
            self.html = html
            return .showFrame(html: html)
        case .authorized(let id, let hints):
            self.hints = hints
            authorizationId = id
        case .transaction(let id, let hints):
            self.hints = hints
            transactionId = id
        }
        state = .success
        html = nil
        return .done
    }

    /// The hints the frame's page posted: added (without repeats), then the next call, once the
    /// count is the one Paylike's flow has at this step.
    public mutating func framePosted(hints posted: [String]) throws(EngineError) -> EngineAction {
        guard state == .webViewChallengeStarted || state == .webViewChallengeUserInputRequired, !calling else {
            throw fail(.invalidState(action: "framePosted", state: calling ? "calling" : state.name))
        }
        for hint in posted where !hints.contains(hint) { hints.append(hint) }
        return try call()
    }

    /// The call failed: the server's error code, or the transport's.
    public mutating func failed(_ error: EngineError) {
        _ = fail(error)
    }

    /// Back to waiting, with nothing held.
    public mutating func reset() {
        self = PaymentEngineStateMachine(mode: mode)
    }
}
