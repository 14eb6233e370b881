public import AuthCore
public import Auth
public import Crypto
public import Fingerprint
import FingerlockProtocol
public import Foundation
public import Vault

#if canImport(Glibc)
    import Glibc
#endif

/// fingerlockd's reader behind Auth's `SystemFingerService` seam, over the same connection rules as
/// `ServiceSlotClient` (whose checks of who answers it reuses). A scan runs on a thread of its own
/// with a blocking call; cancelling the task shuts the connection, which makes the service cancel
/// the scan.
public struct ServiceFingerClient: SystemFingerService {
    let slots: ServiceSlotClient

    public init(socketPath: String) {
        slots = ServiceSlotClient(socketPath: socketPath)
    }

    /// A scan may take its whole timeout, plus a wait for the reader and the service's own work.
    static func callTimeout(_ scan: Duration) -> Duration { scan * 2 + .seconds(5) }

    public func unlockWithTouch(vault: UUID, finger: Finger?, timeout: Duration, reuse: Bool) async throws -> SystemTouch {
        // The service scans for the vault's own scan timeout once it was told it (up to the longest
        // the setting allows), whatever `timeout` asks: wait for that long.
        let longest = Duration.seconds(SecuritySetting.scanTimeout.range.upperBound)
        let reply = try await scanning(timeout: max(timeout, longest)) { client throws(ServiceClientError) in
            try client.unlockWithTouch(
                .init(
                    vault: Self.id(vault), finger: finger?.rawValue, timeoutSeconds: Self.seconds(timeout),
                    reuse: reuse ? true : nil))
        }
        let reused = reply.reused == true
        guard var bytes = Data(base64Encoded: reply.key) else { throw Self.badTouchReply }
        defer { bytes.resetBytes(in: bytes.indices) }
        if reused { return SystemTouch(key: .init(data: bytes), finger: nil, reader: nil, policyKnown: reply.policyKnown) }
        guard let finger = Finger(name: reply.finger), let reader = ReaderIdentity(reply.reader) else {
            throw Self.badTouchReply
        }
        return SystemTouch(key: .init(data: bytes), finger: finger, reader: reader, policyKnown: reply.policyKnown)
    }

    public func unlockWithoutScan(vault: UUID) async throws -> SystemReuse {
        let client = try connect(timeout: .seconds(10))
        let reply: VarlinkParameters.ReleaseWithinReuseWindowReply
        do {
            reply = try client.releaseWithinReuseWindow(Self.id(vault))
        } catch {
            // A fingerlockd older than this client cannot release without a scan and says nothing
            // of the vault's settings: the scan then asks it for the key, as before.
            if case .service(let failure) = error, failure.name == "org.varlink.service.MethodNotFound" {
                return .scanNeeded(tries: nil, scanTimeout: nil)
            }
            let mapped = map(error)
            guard case .scanNeeded(let tries, let timeout) = mapped.code else { throw mapped }
            return .scanNeeded(tries: tries, scanTimeout: timeout.map { .seconds($0) })
        }
        guard var bytes = Data(base64Encoded: reply.key) else { throw Self.badTouchReply }
        defer { bytes.resetBytes(in: bytes.indices) }
        return .released(SymmetricKey(data: bytes))
    }

    static let badTouchReply = SystemFingerError(
        .slot(SystemSlotError(.failure, "fingerlockd sent a touch reply that is not what the interface says.")))

    public func setPolicy(vault: UUID, key: SymmetricKey, policy: SystemVaultPolicy, counts: AttemptState?) throws {
        let wire = VarlinkParameters.VaultPolicy(
            cacheExpirySeconds: Int(policy.cacheExpiry.components.seconds),
            reuseWindowSeconds: Int(policy.reuseWindow.components.seconds), maxTries: policy.maxTries,
            scanTimeoutSeconds: Int(policy.scanTimeout.components.seconds), kind: policy.kind.rawValue)
        let carried = ServiceInterface.maximumCarriedCount
        _ = try blocking(timeout: .seconds(10)) { client throws(ServiceClientError) in
            try client.setVaultPolicy(
                .init(
                    vault: Self.id(vault), key: ServiceSlotClient.base64(key), policy: wire,
                    failedTouches: counts.map { min($0.failedTouches, carried) },
                    failedPasscodes: counts.map { min($0.failedPasscodes, carried) }))
        }
    }

    public func policy(vault: UUID) throws -> SystemVaultPolicy? {
        let status = try blocking(timeout: .seconds(10)) { client throws(ServiceClientError) in
            try client.status(Self.id(vault))
        }
        guard let policy = status.policy else { return nil }
        guard let kind = VaultKind(rawValue: policy.kind) else {
            throw SystemFingerError(.slot(SystemSlotError(.failure, "fingerlockd named a vault kind the interface does not know.")))
        }
        return SystemVaultPolicy(
            cacheExpiry: .seconds(policy.cacheExpirySeconds), reuseWindow: .seconds(policy.reuseWindowSeconds),
            maxTries: policy.maxTries, scanTimeout: .seconds(policy.scanTimeoutSeconds), kind: kind)
    }

    public func lock(vault: UUID?) throws -> Bool {
        try blocking(timeout: .seconds(10)) { client throws(ServiceClientError) in try client.lock(vault.map(Self.id)) }
            .wasUnlocked
    }

    public func enroll(
        _ finger: Finger, proof: SystemPasscodeProof, timeout: Duration,
        progress: @escaping @Sendable (EnrollEvent) -> Void
    ) async throws -> SystemEnrolledFinger {
        let enrolled = try await scanning(timeout: timeout) { client throws(ServiceClientError) in
            try client.enrollFinger(
                .init(proof: Self.proof(proof), finger: finger.rawValue, timeoutSeconds: Self.seconds(timeout))
            ) { stage in
                switch stage.event {
                case .opened: progress(.opened(stages: stage.total))
                case .stage: progress(.stage(completed: stage.completed, total: stage.total))
                // A reason this client does not know is still a retry; the reason only words the hint.
                case .retry: progress(.retry(RetryReason(rawValue: stage.retry) ?? .general))
                }
            }
        }
        return try Self.finger(enrolled)
    }

    public func fingers(vault: UUID) throws -> [SystemEnrolledFinger] {
        try blocking(timeout: .seconds(10)) { client throws(ServiceClientError) in
            try client.listFingers(Self.id(vault))
        }.map(Self.finger)
    }

    public func forget(_ finger: Finger, proof: SystemPasscodeProof) async throws {
        try await scanning(timeout: .seconds(30)) { client throws(ServiceClientError) in
            try client.forgetFinger(.init(proof: Self.proof(proof), finger: finger.rawValue))
        }
    }

    public func importPrint(_ print: EnrolledPrint, proof: SystemPasscodeProof) async throws {
        let template = VarlinkParameters.FingerTemplate(
            finger: print.finger.rawValue, reader: print.reader.description,
            template: print.template.base64EncodedString(), enrolled: Int(print.enrolled.timeIntervalSince1970))
        _ = try await scanning(timeout: .seconds(30)) { client throws(ServiceClientError) in
            try client.importFinger(.init(proof: Self.proof(proof), print: template))
        }
    }

    public func exportPrint(_ finger: Finger, proof: SystemPasscodeProof) throws -> EnrolledPrint {
        let print = try blocking(timeout: .seconds(10)) { client throws(ServiceClientError) in
            try client.exportFinger(.init(proof: Self.proof(proof), finger: finger.rawValue))
        }
        guard let name = Finger(name: print.finger), name == finger, let reader = ReaderIdentity(print.reader),
            let template = Data(base64Encoded: print.template)
        else {
            throw SystemFingerError(.slot(SystemSlotError(.failure, "fingerlockd sent a finger the interface does not know.")))
        }
        return EnrolledPrint(
            finger: name, reader: reader, template: template,
            enrolled: Date(timeIntervalSince1970: TimeInterval(print.enrolled)))
    }

    // MARK: - Calls

    private func blocking<T>(timeout: Duration, _ body: (ServiceClient) throws(ServiceClientError) -> T) throws -> T {
        let client = try connect(timeout: timeout)
        do {
            return try body(client)
        } catch {
            throw map(error)
        }
    }

    /// Runs a blocking call on its own thread (it may wait for a finger for long); task
    /// cancellation (Ctrl-C, the passcode chosen at the prompt) shuts the connection.
    private func scanning<T: Sendable>(
        timeout: Duration, _ body: @escaping @Sendable (ServiceClient) throws(ServiceClientError) -> T
    ) async throws -> T {
        let client = try connect(timeout: Self.callTimeout(timeout))
        let canceller = client.canceller
        let box = ClientBox(client)
        let outcome: Result<T, ServiceClientError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                Thread.detachNewThread {
                    let result = Result(catching: { () throws(ServiceClientError) in try body(box.client) })
                    continuation.resume(returning: result)
                }
            }
        } onCancel: {
            canceller.cancel()
        }
        try Task.checkCancellation()
        return try outcome.mapError(map).get()
    }

    private func connect(timeout: Duration) throws(SystemFingerError) -> ServiceClient {
        do {
            return try slots.connect(timeout: timeout)
        } catch {
            throw SystemFingerError(.slot(error))
        }
    }

    private func map(_ error: ServiceClientError) -> SystemFingerError {
        guard case .service(let failure) = error else { return SystemFingerError(.slot(slots.map(error))) }
        typealias Name = ServiceInterface.ErrorName
        func string(_ key: String) -> String {
            if case .string(let text) = failure.parameters[key] { text } else { "" }
        }
        /// A parameter that must be one of `T`'s values; anything else is a protocol error.
        func value<T: RawRepresentable>(_ key: String, _ type: T.Type) -> T? where T.RawValue == String {
            T(rawValue: string(key))
        }
        func unknown(_ key: String) -> SystemFingerError {
            SystemFingerError(
                .slot(
                    SystemSlotError(
                        .failure,
                        "fingerlockd answered \(failure.name) with an unknown \(key) '\(string(key))': is it of another version?")))
        }
        switch failure.name {
        case Name.passcodeRequired.qualifiedName:
            let reason = ServiceInterface.PasscodeRequiredReason(rawValue: string("reason"))
            return SystemFingerError(.passcodeRequired(lockout: reason == .lockout))
        case Name.wrongReaderKind.qualifiedName:
            guard let kind = value("kind", VaultKind.self) else { return unknown("kind") }
            return SystemFingerError(.wrongReaderKind(reader: string("reader"), kind: kind))
        case Name.noFingerEnrolled.qualifiedName:
            return SystemFingerError(.noFingerEnrolled(reader: string("reader")))
        case Name.fingerNotEnrolled.qualifiedName:
            guard let finger = Finger(name: string("finger")) else { return unknown("finger") }
            return SystemFingerError(.fingerNotEnrolled(finger))
        case Name.noMatch.qualifiedName:
            return SystemFingerError(
                .noMatch(failedTouches: failure.int("failedTouches") ?? 0, touchesLeft: failure.int("touchesLeft") ?? 0))
        case Name.scanRetry.qualifiedName:
            guard let reason = value("reason", RetryReason.self) else { return unknown("reason") }
            return SystemFingerError(.retry(reason))
        case Name.readerMismatch.qualifiedName:
            return SystemFingerError(.readerMismatch(reader: string("reader"), serviceReader: string("serviceReader")))
        case Name.scanTimedOut.qualifiedName:
            return SystemFingerError(.timedOut)
        case Name.scanRequired.qualifiedName:
            return SystemFingerError(
                .scanNeeded(tries: failure.int("maxTries"), scanTimeoutSeconds: failure.int("scanTimeoutSeconds")))
        case Name.readerUnavailable.qualifiedName:
            guard let problem = value("problem", ServiceInterface.ReaderProblem.self) else { return unknown("problem") }
            let code: FingerprintError.Code =
                switch problem {
                case .noReader: .noReader
                case .busy: .busy
                case .unplugged: .unplugged
                case .noPermission: .permissionDenied
                case .deviceError: .deviceError
                }
            return SystemFingerError(.reader(FingerprintError(code, "fingerlockd: " + string("message"))))
        default:
            return SystemFingerError(.slot(slots.map(error)))
        }
    }

    // MARK: - Values

    static func id(_ vault: UUID) -> String { vault.uuidString.lowercased() }

    static func seconds(_ duration: Duration) -> Int {
        Int(min(max(duration.components.seconds, 1), Int64(ServiceInterface.maximumScanSeconds)))
    }

    static func proof(_ proof: SystemPasscodeProof) -> VarlinkParameters.PasscodeProof {
        .init(
            vault: id(proof.vault), stretched: ServiceSlotClient.base64(proof.stretched),
            sealedSlot: proof.sealedSlot.base64EncodedString(),
            associatedData: Data(proof.associatedData).base64EncodedString())
    }

    static func finger(_ finger: VarlinkParameters.EnrolledFinger) throws -> SystemEnrolledFinger {
        guard let name = Finger(name: finger.finger), let reader = ReaderIdentity(finger.reader) else {
            throw SystemFingerError(.slot(SystemSlotError(.failure, "fingerlockd named a finger the interface does not know.")))
        }
        return SystemEnrolledFinger(
            finger: name, reader: reader, enrolled: Date(timeIntervalSince1970: TimeInterval(finger.enrolled)))
    }
}

/// Hands the (non-Sendable) client to the one thread that uses it while the call runs.
private final class ClientBox: @unchecked Sendable {
    let client: ServiceClient
    init(_ client: ServiceClient) { self.client = client }
}
