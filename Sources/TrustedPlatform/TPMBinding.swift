/// How a passcode slot is bound to the TPM: always to this TPM; with `pcr7`, also to the Secure
/// Boot state (off by default: firmware and bootloader updates change PCR 7).
public struct TPMBinding: Codable, Equatable, Sendable {
    public var pcr7: Bool

    public init(pcr7: Bool = false) {
        self.pcr7 = pcr7
    }
}
