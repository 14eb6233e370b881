import Crypto
import Foundation

/// One row of the slot table: the store master key wrapped (AES-GCM) under a key derived from a
/// passcode or the recovery key. `parameters` says how to derive that key and is bound into the
/// associated data together with the slot name and store id.
struct KeySlot: Equatable, Sendable {
    static let passcode = "passcode"
    static let recovery = "recovery"

    var name: String
    var parameters: [UInt8]
    var wrapped: Data

    private static func associatedData(name: String, parameters: [UInt8], storeID: UUID) -> [UInt8] {
        KeyHierarchy.associatedData("slot", storeID: storeID, [Array(name.utf8), parameters])
    }

    static func passcodeBytes(_ passcode: String) throws(VaultError) -> [UInt8] {
        // The same passcode typed with composed or decomposed accents must open the vault.
        let bytes = Array(passcode.precomposedStringWithCanonicalMapping.utf8)
        guard !bytes.isEmpty else { throw VaultError(.invalidInput, "The passcode cannot be empty.") }
        return bytes
    }

    static func makePasscode(_ passcode: String, cost: KDFCost, keys: KeyHierarchy) throws -> KeySlot {
        let (parameters, wrappingKey) = try ScryptParameters.derive(try passcodeBytes(passcode), cost: cost)
        return try wrap(keys, name: Self.passcode, parameters: parameters.encoded, wrappingKey: wrappingKey)
    }

    static func makeRecovery(_ recoveryKey: RecoveryKey, keys: KeyHierarchy) throws -> KeySlot {
        var writer = ByteWriter()
        writer.u8(1)
        writer.field(randomBytes(32))
        let parameters = writer.bytes
        return try wrap(
            keys, name: Self.recovery, parameters: parameters,
            wrappingKey: recoveryWrappingKey(recoveryKey, parameters: parameters))
    }

    private static func wrap(_ keys: KeyHierarchy, name: String, parameters: [UInt8], wrappingKey: SymmetricKey) throws
        -> KeySlot
    {
        let master = keys.master.withUnsafeBytes { Array($0) }
        let ad = associatedData(name: name, parameters: parameters, storeID: keys.storeID)
        return KeySlot(name: name, parameters: parameters, wrapped: try Sealer.seal(master, key: wrappingKey, ad: ad))
    }

    /// The recovery key has 256 bits of entropy, so a plain HKDF (no stretching) is enough.
    private static func recoveryWrappingKey(_ key: RecoveryKey, parameters: [UInt8]) -> SymmetricKey {
        var reader = ByteReader(parameters)
        let salt = (reader.u8() == 1 ? reader.field().map(Array.init) : nil) ?? []
        return HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: key.bytes), salt: salt,
            info: Array("fingerlock/vault/v1/recovery-slot".utf8), outputByteCount: 32)
    }

    /// Unwraps with a passcode. Parameters above the ceiling are refused before scrypt runs.
    func unwrap(passcode: String, storeID: UUID) throws(VaultError) -> SymmetricKey {
        guard let parameters = ScryptParameters.decode(parameters) else {
            throw VaultError(
                .tampered, part: "passcode slot",
                "The passcode slot asks for impossible key-derivation parameters: it was tampered with. "
                    + "Nothing was changed; restore a backup or use the recovery key.")
        }
        let wrappingKey: SymmetricKey
        do {
            wrappingKey = try parameters.deriveKey(try Self.passcodeBytes(passcode))
        } catch let error as VaultError {
            throw error
        } catch {
            throw VaultError(.io, "Key derivation failed: \(error).")
        }
        guard let master = open(wrappingKey, storeID: storeID) else { throw .wrongPasscode }
        return master
    }

    func unwrap(recoveryKey: RecoveryKey, storeID: UUID) throws(VaultError) -> SymmetricKey {
        guard let master = open(Self.recoveryWrappingKey(recoveryKey, parameters: parameters), storeID: storeID)
        else { throw .wrongRecoveryKey }
        return master
    }

    private func open(_ wrappingKey: SymmetricKey, storeID: UUID) -> SymmetricKey? {
        let ad = Self.associatedData(name: name, parameters: parameters, storeID: storeID)
        guard let plain = Sealer.open(wrapped, key: wrappingKey, ad: ad), plain.count == 32 else { return nil }
        return SymmetricKey(data: plain)
    }

    /// The MAC over the whole slot table, the vault kind and the key-check value: nobody without
    /// the SMK can add, drop or swap a slot or change the kind.
    static func tableMessage(_ slots: [KeySlot], kind: VaultKind, keys: KeyHierarchy) -> [UInt8] {
        var writer = ByteWriter(capacity: 512)
        writer.raw(keys.associatedData("slot-table", [Array(kind.rawValue.utf8), Array(keys.keyCheck)]))
        for slot in slots.sorted(by: { $0.name < $1.name }) {
            writer.string(slot.name)
            writer.field(slot.parameters)
            writer.field(slot.wrapped)
        }
        return writer.bytes
    }

    static func tableMAC(_ slots: [KeySlot], kind: VaultKind, keys: KeyHierarchy) -> Data {
        Data(HMAC<SHA256>.authenticationCode(for: tableMessage(slots, kind: kind, keys: keys), using: keys.slotTableKey))
    }

    static func verifyTableMAC(_ mac: Data, _ slots: [KeySlot], kind: VaultKind, keys: KeyHierarchy) -> Bool {
        HMAC<SHA256>.isValidAuthenticationCode(
            mac, authenticating: tableMessage(slots, kind: kind, keys: keys), using: keys.slotTableKey)
    }
}
