public import Crypto
import FingerlockProtocol
public import Foundation
public import Vault

/// fingerlockd behind the vault's `SystemSlotService` seam: one Varlink connection per call (the
/// CLI makes a few calls per run), every wait bounded, and the service's replies turned into
/// `SystemSlotError`s with the sentence the user needs. Who may answer: see `ServiceSocket`.
public struct ServiceSlotClient: SystemSlotService {
    public let socketPath: String
    public let timeout: Duration

    public init(socketPath: String, timeout: Duration = .seconds(10)) {
        self.socketPath = socketPath
        self.timeout = timeout
    }

    /// The one-line fix printed whenever the service cannot be reached.
    var fix: String {
        "start it with `systemctl enable --now fingerlockd.socket`, or point --socket (FINGERLOCK_SOCKET) at it. "
            + "The recovery key still opens this vault: `fingerlock passcode reset`."
    }

    func unreachable(_ why: String) -> SystemSlotError {
        SystemSlotError(.unreachable, "fingerlockd is not reachable at \(socketPath) (\(why)): " + fix)
    }

    /// A connection to the service the socket rule accepts; `timeout` bounds every wait on it (a scan
    /// needs longer than a slot call).
    func connect(timeout: Duration? = nil) throws(SystemSlotError) -> ServiceClient {
        let uid: UInt32
        switch ServiceSocket(path: socketPath).expectedServiceUID() {
        case .success(let owner): uid = owner
        case .failure(let problem): throw unreachable(problem.reason)
        }
        do {
            return try ServiceClient(socketPath: socketPath, timeout: timeout ?? self.timeout, expectedServiceUID: uid)
        } catch {
            throw map(error)
        }
    }

    func map(_ error: ServiceClientError) -> SystemSlotError {
        switch error {
        case .unreachable(let why): return unreachable(why)
        case .timedOut: return unreachable("it did not answer in time")
        case .protocolViolation(let why): return SystemSlotError(.failure, "fingerlockd at \(socketPath): \(why).")
        case .notTheService(let why):
            return SystemSlotError(
                .unreachable,
                "\(socketPath) is not fingerlockd as this fingerlock knows it (\(why)), so nothing derived from the "
                    + "passcode was sent: point --socket (FINGERLOCK_SOCKET) at fingerlockd, or install fingerlock and "
                    + "fingerlockd from the same source.")
        case .service(let failure):
            switch failure.name {
            case ServiceInterface.ErrorName.wrongPasscode.qualifiedName:
                return SystemSlotError(
                    .wrongPasscode(
                        failedPasscodes: failure.int("failedPasscodes") ?? 0,
                        delaySeconds: failure.int("delaySeconds") ?? 0),
                    "Wrong passcode.")
            case ServiceInterface.ErrorName.passcodeDelayed.qualifiedName:
                return SystemSlotError(
                    .delayed(
                        secondsLeft: failure.int("secondsLeft") ?? 0,
                        failedPasscodes: failure.int("failedPasscodes") ?? 0),
                    "A passcode delay is running.")
            case ServiceInterface.ErrorName.keyRequired.qualifiedName:
                return SystemSlotError(
                    .failure,
                    "fingerlockd holds another key for this vault, so it will not seal a passcode slot for this one. "
                        + "`fingerlock passcode reset` (with the recovery key) puts the vault back in user mode.")
            case ServiceInterface.ErrorName.vaultNotRegistered.qualifiedName:
                return SystemSlotError(.notRegistered, "fingerlockd has no secret for this vault.")
            case ServiceInterface.ErrorName.tooManyConnections.qualifiedName:
                let limit = failure.int("limit").map { " (\($0))" } ?? ""
                return SystemSlotError(
                    .failure, "fingerlockd has too many connections open\(limit); try again in a moment.")
            default:
                var reason = ""
                if case .string(let text) = failure.parameters["reason"] { reason = ": " + text }
                return SystemSlotError(.failure, "fingerlockd refused (\(failure.name)\(reason)).")
            }
        }
    }

    func call<T>(_ body: (ServiceClient) throws(ServiceClientError) -> T) throws(SystemSlotError) -> T {
        let client = try connect()
        do {
            return try body(client)
        } catch {
            throw map(error)
        }
    }

    static func base64(_ key: SymmetricKey) -> String { key.withUnsafeBytes { Data($0).base64EncodedString() } }

    public func register(vault: UUID) throws(SystemSlotError) {
        _ = try call { client throws(ServiceClientError) in try client.registerVault(vault.uuidString.lowercased()) }
    }

    public func seal(
        vault: UUID, stretched: SymmetricKey, key: SymmetricKey, associatedData: [UInt8], authorizedBy currentKey: SymmetricKey?
    )
        throws(SystemSlotError) -> Data
    {
        let reply = try call { client throws(ServiceClientError) in
            try client.sealPasscodeSlot(
                .init(
                    vault: vault.uuidString.lowercased(), stretched: Self.base64(stretched), key: Self.base64(key),
                    associatedData: Data(associatedData).base64EncodedString(), currentKey: currentKey.map(Self.base64)))
        }
        guard let sealed = Data(base64Encoded: reply.sealedSlot) else {
            throw SystemSlotError(.failure, "fingerlockd at \(socketPath) sent a sealed slot that is not base64.")
        }
        return sealed
    }

    /// The service keeps the key for a touch to release, for the vault's `cache-expiry` as the vault
    /// last told it (the default before): the longest life is asked for, the service caps it.
    public func unlock(vault: UUID, stretched: SymmetricKey, sealedSlot: Data, associatedData: [UInt8])
        throws(SystemSlotError) -> SymmetricKey
    {
        let reply = try call { client throws(ServiceClientError) in
            try client.unlockWithPasscode(
                .init(
                    vault: vault.uuidString.lowercased(), stretched: Self.base64(stretched),
                    sealedSlot: sealedSlot.base64EncodedString(),
                    associatedData: Data(associatedData).base64EncodedString(),
                    cacheSeconds: ServiceInterface.maximumCacheSeconds))
        }
        guard var bytes = Data(base64Encoded: reply.key) else {
            throw SystemSlotError(.failure, "fingerlockd at \(socketPath) sent a key that is not base64.")
        }
        defer { bytes.resetBytes(in: bytes.indices) }
        return SymmetricKey(data: bytes)
    }

    public func status(vault: UUID) throws(SystemSlotError) -> SystemVaultStatus {
        let reply = try call { client throws(ServiceClientError) in try client.status(vault.uuidString.lowercased()) }
        return SystemVaultStatus(
            registered: reply.registered, unlocked: reply.unlocked, unlockedSeconds: reply.unlockedSeconds,
            failedPasscodes: reply.failedPasscodes, delaySeconds: reply.delaySeconds,
            failedTouches: reply.failedTouches, touchLockedOut: reply.touchLockedOut, reuseSeconds: reply.reuseSeconds)
    }

    public func lock(vault: UUID) throws(SystemSlotError) {
        _ = try call { client throws(ServiceClientError) in try client.lock(vault.uuidString.lowercased()) }
    }

    public func forget(vault: UUID, stretched: SymmetricKey, sealedSlot: Data, associatedData: [UInt8])
        throws(SystemSlotError)
    {
        try call { client throws(ServiceClientError) in
            try client.forgetVault(
                .init(
                    vault: vault.uuidString.lowercased(), stretched: Self.base64(stretched),
                    sealedSlot: sealedSlot.base64EncodedString(),
                    associatedData: Data(associatedData).base64EncodedString()))
        }
    }
}
