import Crypto
import Foundation

/// One row of the slot table: the store master key wrapped (AES-GCM) under a key derived from a
/// passcode or the recovery key. `parameters` says how to derive that key and is bound into the
/// associated data together with the slot name and store id.
struct KeySlot: Equatable, Sendable {
    static let passcode = "passcode"
    static let recovery = "recovery"
    /// System mode's passcode slot (see `KeySlot+Passcode.swift`).
    static let systemPasscode = "system-passcode"

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

    /// The passcode's scrypt output under this slot's parameters, which are refused first when
    /// malformed or above the ceiling (so no work is done for a forged header).
    func stretch(
        _ passcode: String, derive: (ScryptParameters, [UInt8]) throws -> SymmetricKey = { try $0.deriveKey($1) }
    ) throws(VaultError) -> SymmetricKey {
        let parameters: ScryptParameters
        do {
            parameters = try ScryptParameters.decode(self.parameters)
        } catch .aboveCeiling {
            throw .passcodeSlotAboveCeiling
        } catch {
            throw .passcodeSlotMalformed
        }
        do {
            return try derive(parameters, try Self.passcodeBytes(passcode))
        } catch let error as VaultError {
            throw error
        } catch {
            throw VaultError(.io, "Key derivation failed: \(error).")
        }
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

    /// The MAC over the whole slot table, the vault kind and mode and the key-check value: nobody
    /// without the SMK can add, drop or swap a slot or change the kind or the mode. The mode enters
    /// the message only when it is `system`, so every user-mode vault written before modes existed
    /// keeps its MAC, and flipping the mode either way changes the message.
    static func tableMessage(_ slots: [KeySlot], kind: VaultKind, mode: VaultMode, keys: KeyHierarchy) -> [UInt8] {
        var writer = ByteWriter(capacity: 512)
        var fields = [Array(kind.rawValue.utf8), Array(keys.keyCheck)]
        if mode == .system { fields.append(Array(mode.rawValue.utf8)) }
        writer.raw(keys.associatedData("slot-table", fields))
        for slot in slots.sorted(by: { $0.name < $1.name }) {
            writer.string(slot.name)
            writer.field(slot.parameters)
            writer.field(slot.wrapped)
        }
        return writer.bytes
    }

    static func tableMAC(_ slots: [KeySlot], kind: VaultKind, mode: VaultMode, keys: KeyHierarchy) -> Data {
        Data(
            HMAC<SHA256>.authenticationCode(
                for: tableMessage(slots, kind: kind, mode: mode, keys: keys), using: keys.slotTableKey))
    }

    static func verifyTableMAC(_ mac: Data, _ slots: [KeySlot], kind: VaultKind, mode: VaultMode, keys: KeyHierarchy)
        -> Bool
    {
        HMAC<SHA256>.isValidAuthenticationCode(
            mac, authenticating: tableMessage(slots, kind: kind, mode: mode, keys: keys), using: keys.slotTableKey)
    }

    /// The slot table as fingerlock wrote it, or nil if the MAC does not confirm it. The passcode
    /// slot's cost fields are read (and refused, when forged above the ceiling) before any key is
    /// known, so forging them must not also lock out the recovery key: when the MAC fails, the
    /// costs fingerlock can write are tried in the passcode slot's place, and a table that then
    /// verifies is authentic in every byte but those fields (which are put back as written). Used
    /// to open with a known key and to reset the passcode, never to accept the forged slot.
    static func verifiedTable(_ mac: Data, _ slots: [KeySlot], kind: VaultKind, mode: VaultMode, keys: KeyHierarchy)
        -> [KeySlot]?
    {
        if verifyTableMAC(mac, slots, kind: kind, mode: mode, keys: keys) { return slots }
        // Both passcode slots (user and system mode) store scrypt costs read before any key is known.
        guard let index = slots.firstIndex(where: { $0.name == passcode || $0.name == systemPasscode }) else {
            return nil
        }
        for candidate in ScryptParameters.writableCosts(replacing: slots[index].parameters) {
            var repaired = slots
            repaired[index].parameters = candidate
            if verifyTableMAC(mac, repaired, kind: kind, mode: mode, keys: keys) { return repaired }
        }
        return nil
    }
}
