public import Auth
public import AuthCore
public import Crypto
import FingerlockProtocol
public import Fingerprint
public import Foundation
import Vault

/// Touches and the key fingerlockd keeps: release it after a matching touch or within the reuse
/// window, the vault's settings as the service applies them, and `lock`.
extension SystemServiceClient {
    public func unlockWithTouch(
        vault: UUID, finger: Finger?, timeout: Duration, reuse: Bool,
        waiting: @escaping @Sendable (OtherUsersRequest) -> Void
    ) async throws -> SystemTouch {
        // The service scans for the vault's own scan timeout once it was told it (up to the longest
        // the setting allows), whatever `timeout` asks: wait for that long.
        let longest = Duration.seconds(SecuritySetting.scanTimeout.range.upperBound)
        let request = VarlinkParameters.UnlockWithTouch(
            vault: Self.id(vault), finger: finger?.rawValue, timeoutSeconds: Self.seconds(timeout),
            reuse: reuse ? true : nil)
        let reply = try await scanning(timeout: max(timeout, longest)) { client throws(ServiceClientError) in
            try client.sendUnlockWithTouch(request)
        } reply: { client, deadline throws(ServiceClientError) in
            try client.unlockWithTouchReply(until: deadline) { holder in
                waiting(OtherUsersRequest(rawValue: holder.rawValue) ?? .scan)
            }
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

    static let badTouchReply = failure("fingerlockd sent a touch reply that is not what the interface says.")

    public func setPolicy(vault: UUID, key: SymmetricKey, policy: SystemVaultPolicy, counts: AttemptState?) throws {
        let wire = VarlinkParameters.VaultPolicy(
            cacheExpirySeconds: Int(policy.cacheExpiry.components.seconds),
            reuseWindowSeconds: Int(policy.reuseWindow.components.seconds), maxTries: policy.maxTries,
            scanTimeoutSeconds: Int(policy.scanTimeout.components.seconds), kind: policy.kind.rawValue)
        let carried = ServiceInterface.maximumCarriedCount
        _ = try call { client throws(ServiceClientError) in
            try client.setVaultPolicy(
                .init(
                    vault: Self.id(vault), key: Self.base64(key), policy: wire,
                    failedTouches: counts.map { min($0.failedTouches, carried) },
                    failedPasscodes: counts.map { min($0.failedPasscodes, carried) }))
        }
    }

    public func policy(vault: UUID) throws -> SystemVaultPolicy? {
        let status = try call { client throws(ServiceClientError) in
            try client.status(Self.id(vault))
        }
        guard let policy = status.policy else { return nil }
        guard let kind = VaultKind(rawValue: policy.kind) else {
            throw Self.failure("fingerlockd named a vault kind the interface does not know.")
        }
        return SystemVaultPolicy(
            cacheExpiry: .seconds(policy.cacheExpirySeconds), reuseWindow: .seconds(policy.reuseWindowSeconds),
            maxTries: policy.maxTries, scanTimeout: .seconds(policy.scanTimeoutSeconds), kind: kind)
    }

    public func lock(vault: UUID?) throws -> Bool {
        try call { client throws(ServiceClientError) in try client.lock(vault.map(Self.id)) }
            .wasUnlocked
    }

    static func seconds(_ duration: Duration) -> Int {
        Int(min(max(duration.components.seconds, 1), Int64(ServiceInterface.maximumScanSeconds)))
    }
}
