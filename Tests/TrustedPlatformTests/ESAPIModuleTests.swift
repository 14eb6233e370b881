import Crypto
import FingerlockTestSupport
import Foundation
import Testing

@testable import TrustedPlatform

/// The real ESAPI against swtpm: sealing, unsealing, the TPM's own counting, lockout, another TPM,
/// a clear, PCR 7, and a wrong TCTI. Each test has a factory-fresh TPM of its own.
@Suite(.timed, .timeLimit(.minutes(2)))
struct ESAPIModuleTests {
    @Test func aSealedSecretUnsealsWithItsAuthorizationOnly() throws {
        let swtpm = try SoftwareTPM()
        defer { swtpm.stop() }
        let tpm = ESAPIModule(tcti: swtpm.tcti)
        let secret = SymmetricKey(size: .bits256)
        let auth = SymmetricKey(size: .bits256)
        let object = try tpm.seal(secret, authorization: auth, bindingPCR7: false)
        #expect(try tpm.unseal(object, authorization: auth, bindingPCR7: false) == secret)
        #expect(try swtpm.lockoutCounter() == 0)
        #expect(throws: TPMError.self) { try tpm.unseal(object, authorization: SymmetricKey(size: .bits256), bindingPCR7: false) }
        #expect(try swtpm.lockoutCounter() == 1)
        #expect(try tpm.lockoutState().failedTries == 1)
    }

    @Test func inLockoutEvenTheRightAuthorizationIsRefusedAndSaidSo() throws {
        let swtpm = try SoftwareTPM()
        defer { swtpm.stop() }
        try swtpm.setDictionaryParameters(maximumTries: 2, interval: 600, recovery: 600)
        let tpm = ESAPIModule(tcti: swtpm.tcti)
        let auth = SymmetricKey(size: .bits256)
        let object = try tpm.seal(SymmetricKey(size: .bits256), authorization: auth, bindingPCR7: false)
        for _ in 0..<2 { _ = try? tpm.unseal(object, authorization: SymmetricKey(size: .bits256), bindingPCR7: false) }
        #expect(try swtpm.inLockout())
        let state = try tpm.lockoutState()
        #expect(state.inLockout && state.failedTries == 2 && state.maximumTries == 2 && state.interval == 600)
        #expect(state.refusal?.code == .lockout(seconds: 1200))
        let error = #expect(throws: TPMError.self) { try tpm.unseal(object, authorization: auth, bindingPCR7: false) }
        #expect(error?.code == .lockout(seconds: 0))
    }

    @Test func anotherTPMCannotLoadTheObject() throws {
        let first = try SoftwareTPM()
        defer { first.stop() }
        let second = try SoftwareTPM()
        defer { second.stop() }
        let auth = SymmetricKey(size: .bits256)
        let object = try ESAPIModule(tcti: first.tcti).seal(SymmetricKey(size: .bits256), authorization: auth, bindingPCR7: false)
        let error = #expect(throws: TPMError.self) { try ESAPIModule(tcti: second.tcti).unseal(object, authorization: auth, bindingPCR7: false) }
        #expect(error?.code == .foreignObject)
        #expect(try second.lockoutCounter() == 0)
    }

    @Test func aClearedTPMNoLongerLoadsTheObject() throws {
        let swtpm = try SoftwareTPM()
        defer { swtpm.stop() }
        let tpm = ESAPIModule(tcti: swtpm.tcti)
        let auth = SymmetricKey(size: .bits256)
        let object = try tpm.seal(SymmetricKey(size: .bits256), authorization: auth, bindingPCR7: false)
        try swtpm.clear()
        let error = #expect(throws: TPMError.self) { try tpm.unseal(object, authorization: auth, bindingPCR7: false) }
        #expect(error?.code == .foreignObject)
    }

    @Test func aPCR7BoundSecretUnsealsUntilPCR7Changes() throws {
        let swtpm = try SoftwareTPM()
        defer { swtpm.stop() }
        let tpm = ESAPIModule(tcti: swtpm.tcti)
        let secret = SymmetricKey(size: .bits256)
        let auth = SymmetricKey(size: .bits256)
        let object = try tpm.seal(secret, authorization: auth, bindingPCR7: true)
        #expect(try tpm.unseal(object, authorization: auth, bindingPCR7: true) == secret)
        _ = try? tpm.unseal(object, authorization: SymmetricKey(size: .bits256), bindingPCR7: true)
        #expect(try swtpm.lockoutCounter() == 1)
        try swtpm.extendPCR7()
        let error = #expect(throws: TPMError.self) { try tpm.unseal(object, authorization: auth, bindingPCR7: true) }
        #expect(error?.code == .policyMismatch)
    }

    @Test func aWrongTCTIOrAMissingDeviceIsUnreachable() throws {
        let nowhere = ESAPIModule(tcti: "swtpm:path=/nonexistent/sock")
        let error = #expect(throws: TPMError.self) { try nowhere.lockoutState() }
        #expect(error?.code == .unreachable)
        let device = ESAPIModule(tcti: "device:/dev/tpmrm-none")
        let missing = #expect(throws: TPMError.self) { try device.lockoutState() }
        #expect(missing?.code == .unreachable)
        #expect(missing?.message.contains("no TPM at /dev/tpmrm-none") == true)
    }

    @Test func theWireCarriesNeitherTheAuthorizationNorTheSecret() throws {
        let swtpm = try SoftwareTPM()
        defer { swtpm.stop() }
        let capture = swtpm.directory.appendingPathComponent("wire.pcap").path
        setenv("TCTI_PCAP_FILE", capture, 1)
        let tpm = ESAPIModule(tcti: "pcap:" + swtpm.tcti)
        let secret = SymmetricKey(data: [UInt8](repeating: 0x5A, count: 32))
        let auth = SymmetricKey(data: [UInt8](repeating: 0xA5, count: 32))
        let object = try tpm.seal(secret, authorization: auth, bindingPCR7: false)
        #expect(try tpm.unseal(object, authorization: auth, bindingPCR7: false) == secret)
        let wire = try [UInt8](Data(contentsOf: URL(fileURLWithPath: capture)))
        #expect(wire.count > 1000)
        #expect(!contains(wire, [UInt8](repeating: 0x5A, count: 16)))
        #expect(!contains(wire, [UInt8](repeating: 0xA5, count: 16)))
    }

    private func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard haystack.count >= needle.count else { return false }
        return (0...(haystack.count - needle.count)).contains { haystack[$0..<($0 + needle.count)].elementsEqual(needle) }
    }
}

/// The check that costs no try: whether this TPM still loads the object and PCR 7 still matches.
@Suite(.timed, .timeLimit(.minutes(2)))
struct ESAPIModuleCheckTests {
    @Test func theCheckTellsAnotherTPMAndAChangedPCR7WithoutCountingAFailure() throws {
        let swtpm = try SoftwareTPM()
        defer { swtpm.stop() }
        let other = try SoftwareTPM()
        defer { other.stop() }
        let tpm = ESAPIModule(tcti: swtpm.tcti)
        let object = try tpm.seal(SymmetricKey(size: .bits256), authorization: SymmetricKey(size: .bits256), bindingPCR7: true)
        try tpm.check(object, bindingPCR7: true)
        #expect((try? ESAPIModule(tcti: other.tcti).check(object, bindingPCR7: true)) == nil)
        let foreign = #expect(throws: TPMError.self) { try ESAPIModule(tcti: other.tcti).check(object, bindingPCR7: true) }
        #expect(foreign?.code == .foreignObject)
        try swtpm.extendPCR7()
        let changed = #expect(throws: TPMError.self) { try tpm.check(object, bindingPCR7: true) }
        #expect(changed?.code == .policyMismatch)
        #expect(try swtpm.lockoutCounter() == 0 && other.lockoutCounter() == 0)
    }

    @Test func anEmptyTCTIIsTheKernelsResourceManager() {
        #expect(ESAPIModule(tcti: "").location == "device:/dev/tpmrm0")
        #expect(ESAPIModule(tcti: "  ").location == "device:/dev/tpmrm0")
        #expect(ESAPIModule(tcti: "swtpm:path=/x").location == "swtpm:path=/x")
    }
}

/// fingerlock's own rule over the TPM's counter: never the failure that locks it out.
@Suite(.timed)
struct TPMLockoutStateTests {
    func state(_ failed: Int, of maximum: Int, interval: Int = 600, inLockout: Bool = false) -> TPMLockoutState {
        TPMLockoutState(
            failedTries: failed, maximumTries: maximum, interval: interval, recovery: 600, inLockout: inLockout,
            lockoutPasswordSet: false)
    }

    @Test func theTPMIsAskedOnlyWhileAFailureCouldNotLockItOut() {
        #expect(state(0, of: 3).refusal == nil)
        #expect(state(1, of: 3).refusal == nil)
        #expect(state(2, of: 3).refusal?.code == .nearLockout(seconds: 600))
        #expect(state(0, of: 1).refusal?.code == .nearLockout(seconds: 600))
        #expect(state(3, of: 3, inLockout: true).refusal?.code == .lockout(seconds: 1200))
        #expect(state(31, of: 32).refusal?.code == .nearLockout(seconds: 600))
        #expect(state(30, of: 32).refusal == nil)
        #expect(state(2, of: 3, interval: 0).secondsUntilAsked == nil)
        #expect(state(2, of: 3, interval: 0).refusal?.message.contains("never forgets") == true)
        #expect(!state(0, of: 1).allowsGuarding && state(0, of: 2).allowsGuarding)
    }
}
