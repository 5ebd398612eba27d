import Gateway

/// What Paylike's SwiftUI view model does, without SwiftUI: the card fields and their states,
/// whether Pay is enabled, and the payment's phase (loading, a challenge frame to show, success,
/// error with a way to try again), over a ``PaymentEngine``. An iOS app binds its views to it; a
/// test drives it without a screen.
public actor PaymentForm {
    public enum Phase: Equatable, Sendable {
        case editing
        /// Paying: show the loading overlay.
        case paying
        /// Show this frame (3-D Secure) and hand its posted hints to ``framePosted(hints:)``.
        case challenge(html: String)
        case succeeded(id: String)
        case failed(EngineError)
    }

    public private(set) var input = CardInput()
    public private(set) var phase = Phase.editing
    public let amount: PaymentAmount
    let engine: PaymentEngine
    let today: @Sendable () -> YearMonth
    var test: PaymentTest?
    var text: String?
    var custom: CustomData?
    /// Runs just before the payment starts, with the card as typed (number, code, expiry) and
    /// the text and custom data so far; what it answers is sent (Paylike's beforePayment hook).
    var beforePayment: (@Sendable (CardInput, PaymentExtras) -> PaymentExtras)?

    /// - Parameter today: the current month, from the app's clock.
    public init(engine: PaymentEngine, amount: PaymentAmount, test: PaymentTest? = nil, text: String? = nil, today: @escaping @Sendable () -> YearMonth) {
        self.engine = engine
        self.amount = amount
        self.test = test
        self.text = text
        self.today = today
    }

    public func setBeforePayment(_ hook: (@Sendable (CardInput, PaymentExtras) -> PaymentExtras)?) { beforePayment = hook }

    public func setNumber(_ text: String) { if phase == .editing { input.number = text } }
    public func setExpiry(_ text: String) { if phase == .editing { input.expiry = text } }
    public func setSecurityCode(_ text: String) { if phase == .editing { input.securityCode = text } }

    public var numberState: FieldState { input.numberState }
    public var expiryState: FieldState { input.expiryState(today: today()) }
    public var securityCodeState: FieldState { input.securityCodeState }
    /// The Pay button: enabled only when every field is valid and nothing is under way.
    public var payEnabled: Bool { phase == .editing && input.canPay(today: today()) }

    /// Pays with what is typed; does nothing while Pay is disabled.
    public func pay() async {
        guard payEnabled, let parts = input.expiryParts, let month = Int(parts.month), let typedYear = Int(parts.year) else { return }
        phase = .paying
        let year = parts.year.count == 2 ? 2000 + typedYear : typedYear
        let extras = beforePayment?(input, PaymentExtras(text: text, custom: custom)) ?? PaymentExtras(text: text, custom: custom)
        await engine.addCard(number: input.number, securityCode: input.securityCode, expiryMonth: month, expiryYear: year)
        await engine.addDescription(amount: amount, test: test)
        await engine.addText(extras.text)
        await engine.addCustom(extras.custom)
        await engine.startPayment()
        await follow()
    }

    /// The hints the challenge frame's page posted.
    public func framePosted(hints: [String]) async {
        guard case .challenge = phase else { return }
        phase = .paying
        await engine.framePosted(hints: hints)
        await follow()
    }

    /// After an error: back to editing (the fields kept), the engine reset.
    public func tryAgain() async {
        guard case .failed = phase else { return }
        await engine.reset()
        phase = .editing
    }

    private func follow() async {
        switch await engine.state {
        case .waitingForInput: phase = .editing
        case .webViewChallengeStarted, .webViewChallengeUserInputRequired: phase = .challenge(html: await engine.html ?? "")
        case .success:
            let authorization = await engine.authorizationId
            let transaction = await engine.transactionId
            phase = .succeeded(id: authorization ?? transaction ?? "")
        case .error(let error): phase = .failed(error)
        }
    }
}
