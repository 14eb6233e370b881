import AuthCore
import Vault

extension ReaderKind {
    /// The rule's kind for the kind a vault records.
    init(_ kind: VaultKind) {
        switch kind {
        case .test: self = .test
        case .hardware: self = .hardware
        }
    }
}
