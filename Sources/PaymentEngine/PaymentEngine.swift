import Gateway

/// Paylike's payment engine for apps: add the card (tokenized, number and code at once), the
/// amount and the test data, start the payment, show the frames it hands over and give back the
/// hints their pages post, until success or error. Every state is published on ``states``.
public actor PaymentEngine {
    public nonisolated let states: AsyncStream<EngineState>
    private let continuation: AsyncStream<EngineState>.Continuation
    private var machine: PaymentEngineStateMachine
    private let client: PaylikeClient
    private let integrationKey: String
    private var test: PaymentTest?

    /// Called when the payment succeeds, with the authorization (or transaction) id.
    public var onSuccess: (@Sendable (String) -> Void)?
    /// Called when the engine stops with an error.
    public var onError: (@Sendable (EngineError) -> Void)?

    public init(integrationKey: String, mode: EngineMode, client: PaylikeClient) {
        (states, continuation) = AsyncStream.makeStream(of: EngineState.self)
        machine = PaymentEngineStateMachine(mode: mode)
        self.client = client
        self.integrationKey = integrationKey
        continuation.yield(.waitingForInput)
    }

    public var state: EngineState { machine.state }
    /// The frame to show, while one is.
    public var html: String? { machine.html }
    public var authorizationId: String? { machine.authorizationId }
    public var transactionId: String? { machine.transactionId }

    public func setHooks(onSuccess: (@Sendable (String) -> Void)?, onError: (@Sendable (EngineError) -> Void)?) {
        self.onSuccess = onSuccess
        self.onError = onError
    }

    private func publish() {
        continuation.yield(machine.state)
        switch machine.state {
        case .success: onSuccess?(machine.authorizationId ?? machine.transactionId ?? "")
        case .error(let error): onError?(error)
        default: break
        }
    }

    private func run(_ step: (inout PaymentEngineStateMachine) throws(EngineError) -> Void) {
        do {
            try step(&machine)
        } catch {
            publish()
        }
    }

    /// Tokenizes the number and the code at once and keeps the card. In live mode the number
    /// must pass the Luhn check first.
    public func addCard(number: String, securityCode: String, expiryMonth: Int, expiryYear: Int) async {
        let digits = CardRules.sanitise(number) ?? number
        let passesLuhn = CardRules.passesLuhn(digits)
        run { machine throws(EngineError) in try machine.admitCard(numberPassesLuhn: passesLuhn) }
        if case .error = machine.state { return }
        let client = client
        async let numberToken = client.tokenize("pcn", digits)
        async let codeToken = client.tokenize("pcsc", securityCode)
        do {
            let tokens = CardTokens(number: try await numberToken, code: try await codeToken, expiryMonth: expiryMonth, expiryYear: expiryYear)
            run { machine throws(EngineError) in try machine.addCard(tokens, numberPassesLuhn: passesLuhn) }
        } catch let error as EngineError {
            machine.failed(error)
            publish()
        } catch {
            machine.failed(.transport("\(error)"))
            publish()
        }
    }

    /// The amount, and the test object (test mode only).
    public func addDescription(amount: PaymentAmount?, test: PaymentTest?) {
        run { machine throws(EngineError) in try machine.addDescription(amount: amount, hasTestData: test != nil) }
        if machine.state == .waitingForInput { self.test = test }
    }

    public func addText(_ text: String?) {
        run { machine throws(EngineError) in try machine.addText(text) }
    }

    public func addCustom(_ custom: CustomData?) {
        run { machine throws(EngineError) in try machine.addCustom(custom) }
    }

    /// Starts the payment and follows it until a frame must be shown or it ends.
    public func startPayment() async {
        var action = EngineAction.done
        run { machine throws(EngineError) in action = try machine.startPayment() }
        await follow(action)
    }

    /// The hints the shown frame's page posted (`parent.postMessage({hints})`): the payment goes on.
    public func framePosted(hints: [String]) async {
        var action = EngineAction.done
        run { machine throws(EngineError) in action = try machine.framePosted(hints: hints) }
        await follow(action)
    }

    private func follow(_ action: EngineAction) async {
        guard case .pay(let hints) = action, let card = machine.card else { return }
        let body = PaylikePaymentBody(key: integrationKey, amount: machine.amount, card: card, test: test, text: machine.text, custom: machine.custom, hints: hints)
        do {
            let answer = try await client.pay(body)
            run { machine throws(EngineError) in _ = try machine.answered(answer) }
            publish()
        } catch {
            machine.failed(error)
            publish()
        }
    }

    /// Back to waiting, with nothing held.
    public func reset() {
        machine.reset()
        test = nil
        publish()
    }
}
